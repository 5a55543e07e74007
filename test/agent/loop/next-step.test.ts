// nextStep as a table over its facts: abort wins, tool calls run again, a cut-off reply is
// continued up to MAX_TOKEN_RECOVERIES times, and the turn and budget limits stop a loop that
// wants more, never one that is done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TOKEN_RECOVERIES, nextStep, type StepFacts } from '../../../src/agent/loop/next-step.ts';
import type { NextStep } from '../../../src/agent/loop/types.ts';

const facts = (over: Partial<StepFacts> = {}): StepFacts => ({
  aborted: undefined,
  finish: 'stop',
  toolCalls: 0,
  turns: 1,
  maxTurns: 10,
  recoveries: 0,
  budgetExceeded: false,
  ...over,
});

const table: [string, Partial<StepFacts>, NextStep][] = [
  ['a plain answer is final', {}, { type: 'final' }],
  ['content-filter with no tool calls is final', { finish: 'content-filter' }, { type: 'final' }],
  ['tool calls run again', { finish: 'tool-calls', toolCalls: 2 }, { type: 'run-again' }],
  ['tool calls run again whatever the finish reason says', { finish: 'stop', toolCalls: 1 }, { type: 'run-again' }],
  ['a cut-off reply is continued', { finish: 'max-tokens' }, { type: 'recover-max-tokens', attempt: 1 }],
  [
    'the next continuation counts up',
    { finish: 'max-tokens', recoveries: MAX_TOKEN_RECOVERIES - 1 },
    { type: 'recover-max-tokens', attempt: MAX_TOKEN_RECOVERIES },
  ],
  [
    'continuations used up: max-tokens',
    { finish: 'max-tokens', recoveries: MAX_TOKEN_RECOVERIES },
    { type: 'max-tokens' },
  ],
  [
    'cut off while calling tools: the tools run',
    { finish: 'max-tokens', toolCalls: 1, recoveries: MAX_TOKEN_RECOVERIES },
    { type: 'run-again' },
  ],
  ['cancelled wins over tool calls', { aborted: 'cancelled', toolCalls: 3 }, { type: 'cancelled' }],
  ['timeout wins over everything', { aborted: 'timeout', budgetExceeded: true, turns: 99 }, { type: 'timeout' }],
  ['budget exceeded stops a loop that wants more', { toolCalls: 1, budgetExceeded: true }, { type: 'budget-exceeded' }],
  ['budget exceeded does not spoil a final answer', { budgetExceeded: true }, { type: 'final' }],
  ['budget is checked before turns', { toolCalls: 1, budgetExceeded: true, turns: 10 }, { type: 'budget-exceeded' }],
  ['the last turn wanting tools hits max-turns', { toolCalls: 1, turns: 10 }, { type: 'max-turns' }],
  ['one turn before the limit runs again', { toolCalls: 1, turns: 9 }, { type: 'run-again' }],
  ['max turns does not spoil a final answer', { turns: 10 }, { type: 'final' }],
  ['a continuation past max turns is max-turns', { finish: 'max-tokens', turns: 10 }, { type: 'max-turns' }],
];

for (const [name, over, want] of table) {
  test(name, () => {
    assert.deepEqual(nextStep(facts(over)), want);
  });
}
