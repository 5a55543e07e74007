// Approvals inside a run: a guarded call waits for the asker's decision and runs once when
// approved; a refusal goes back to the model, which continues; with nobody to ask the call is
// refused; a read-only chat escalates only when its rules allow; after untrusted content every
// Write/Execute call asks, naming what was read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import {
  type ApprovalAnswer,
  type ApprovalQuestion,
  type ApprovalRules,
  createApprovalGate,
} from '../../../src/agent/tools/approvals.ts';
import type { AccessMode } from '../../../src/agent/tools/grants.ts';
import type { Message } from '../../../src/agent/types.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';
import { callTools, reply, scriptedModel } from './scripted.ts';

const ask: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'do it' }] }];
const lastResult = (m: Message[]) => {
  const p = m.at(-1)!.content.find((x) => x.type === 'tool-result');
  return p?.type === 'tool-result' ? p : undefined;
};

function setup(
  access: AccessMode,
  rules: ApprovalRules,
  decide?: (q: ApprovalQuestion) => ApprovalAnswer,
  nobody?: string,
) {
  const write = builtin('write', 'Write');
  const fetchTool = builtin('fetch', 'ReadOnly', async (input) => ({
    content: `page ${String(input.text)}`,
    isError: false,
    untrusted: `the page ${String(input.text)}`,
  }));
  const asked: ApprovalQuestion[] = [];
  const gate = createApprovalGate(
    rules,
    decide
      ? async (q) => {
          asked.push(q);
          return decide(q);
        }
      : undefined,
    nobody,
  );
  const tools = createToolSet({
    wasm: noWasm,
    builtins: [write, fetchTool],
    policy: { ...policy(access), approvals: rules },
    sandbox: noSandbox,
    gate,
  });
  return { write, tools, asked };
}

const run = (provider: ReturnType<typeof scriptedModel>, tools: ReturnType<typeof setup>['tools']) =>
  runLoop({ provider, model: 'm', system: '', messages: ask, tools, meter: createCostMeter(() => 0) });

test('an approved call runs once; the question names the exact call', async (t) => {
  const { write, tools, asked } = setup('full', { levels: ['Write'] }, () => ({ approved: true }));
  const provider = scriptedModel(t, [callTools([['write', { file_path: 'a.txt', text: 'hi' }]]), reply('Done.')]);
  const r = await run(provider, tools);
  assert.equal(r.outcome, 'final');
  assert.equal(write.calls.length, 1);
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.tool, 'write');
  assert.deepEqual(asked[0]!.input, { file_path: 'a.txt', text: 'hi' });
  assert.deepEqual(asked[0]!.reasons, ['policy']);
});

test('a denied call is not run; the refusal goes to the model, which continues', async (t) => {
  const { write, tools } = setup('full', { tools: ['write'] }, () => ({ approved: false, reason: 'denied by ada' }));
  const provider = scriptedModel(t, [callTools([['write', { file_path: 'a.txt' }]]), reply('Understood.')]);
  const r = await run(provider, tools);
  assert.equal(write.calls.length, 0);
  assert.match(lastResult(provider.requests[1]!.messages)!.content, /refused: denied by ada/);
  assert.equal(r.text, 'Understood.');
});

test('with nobody to ask (a scheduled job) a guarded call is refused with a clear tool error', async (t) => {
  const { write, tools } = setup('full', { levels: ['Write'] }, undefined, 'a scheduled job has nobody to ask');
  const provider = scriptedModel(t, [callTools([['write', { file_path: 'a.txt' }]]), reply('ok')]);
  await run(provider, tools);
  assert.equal(write.calls.length, 0);
  const res = lastResult(provider.requests[1]!.messages)!;
  assert.equal(res.isError, true);
  assert.match(res.content, /write was not run: a scheduled job has nobody to ask/);
});

test('a read-only chat offers Write tools only when escalation is allowed, and then asks each time', async (t) => {
  const strict = setup('read-only', { levels: ['Execute'] }, () => ({ approved: true }));
  assert.ok(!strict.tools.permittedNames().includes('write'));
  const open = setup('read-only', { allowEscalation: true }, () => ({ approved: true }));
  assert.ok(open.tools.permittedNames().includes('write'));
  const provider = scriptedModel(t, [callTools([['write', { file_path: 'a.txt' }]]), reply('ok')]);
  await run(provider, open.tools);
  assert.deepEqual(open.asked[0]!.reasons, ['escalation']);
  assert.equal(open.write.calls.length, 1);
});

test('afterUntrusted: once the run read untrusted content, a Write call asks and says what was read', async (t) => {
  const { write, tools, asked } = setup('full', { afterUntrusted: true }, () => ({ approved: true }));
  const provider = scriptedModel(t, [
    callTools([['write', { file_path: 'before.txt' }]]),
    callTools([['fetch', { text: 'https://example.com' }]]),
    callTools([['write', { file_path: 'after.txt' }]]),
    reply('ok'),
  ]);
  await run(provider, tools);
  assert.equal(write.calls.length, 2);
  assert.equal(asked.length, 1, 'only the write after the fetch asked');
  assert.deepEqual(asked[0]!.input, { file_path: 'after.txt' });
  assert.deepEqual(asked[0]!.reasons, ['untrusted']);
  assert.deepEqual(asked[0]!.untrusted, ['the page https://example.com']);
});

test('an approved call already run before a restart is replayed, not run again', async (t) => {
  const { write, tools } = setup('full', { levels: ['Write'] }, () => ({
    approved: true,
    replay: { content: 'wrote a.txt (before the restart)', isError: false },
  }));
  const provider = scriptedModel(t, [callTools([['write', { file_path: 'a.txt' }]]), reply('ok')]);
  await run(provider, tools);
  assert.equal(write.calls.length, 0);
  assert.equal(lastResult(provider.requests[1]!.messages)!.content, 'wrote a.txt (before the restart)');
});

test('an approved call reports its result for the journal', async (t) => {
  const ran: unknown[] = [];
  const { tools } = setup('full', { levels: ['Write'] }, () => ({
    approved: true,
    ran: async (r) => void ran.push(r),
  }));
  const provider = scriptedModel(t, [callTools([['write', { file_path: 'a.txt' }]]), reply('ok')]);
  await run(provider, tools);
  assert.deepEqual(ran, [{ content: 'write: a.txt', isError: false }]);
});

test('a sub-agent’s tool set keeps the run’s gate: its guarded calls ask too', async () => {
  const { write, tools, asked } = setup('full', { levels: ['Write'] }, () => ({ approved: false, reason: 'no' }));
  const child = tools.derive(['write'], [write]);
  const r = await child.call({ id: 'c1', name: 'write', input: { file_path: 'a.txt' } }, new AbortController().signal);
  assert.equal(r.isError, true);
  assert.equal(asked.length, 1);
  assert.equal(write.calls.length, 0);
});
