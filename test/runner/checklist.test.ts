// The checklist lines a chat shows for a managed run's executors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checklistLines } from '../../src/runner/checklist.ts';

test('each executor is a line: its state, task, why it failed or stopped, and what it spent', () => {
  assert.deepEqual(
    checklistLines([
      { id: 'e1', executor: 'writer', task: 'notes', state: 'done', costUsd: 0.0123 },
      { id: 'e2', executor: 'looper', task: 'loop', state: 'failed', costUsd: 0.002, detail: 'reached its turn limit' },
      { id: 'e3', executor: 'tester', task: 'tests', state: 'running', costUsd: 0 },
      { id: 'e4', executor: 'fixer', task: 'fix', state: 'stopped', costUsd: 0, detail: 'stopped' },
      { id: 'e5', executor: 'docs', task: 'docs', state: 'waiting', costUsd: 0 },
    ]),
    [
      '✅ writer: notes · $0.01',
      '❌ looper: loop (reached its turn limit) · $0.0020',
      '⏳ tester: tests',
      '⏹️ fixer: fix (stopped)',
      '◻️ docs: docs',
    ],
  );
});
