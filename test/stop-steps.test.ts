// A stop in named parts under a deadline: the parts of a stage stop side by side, later stages wait,
// and a stop past its deadline names the innermost parts still under way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createStopSteps, type StopPart, stopInStages, stopTimeoutLine, stopWithin } from '../src/core/stop-steps.ts';

const never = () => new Promise<void>(() => {});

test('a hung part is named by its innermost step; its siblings stop and later stages never begin', async () => {
  const done: string[] = [];
  const parts: StopPart[] = [
    { stage: 4, name: 'store', stop: async () => done.push('store') },
    {
      stage: 1,
      name: 'gateway',
      stop: async (inner) => {
        await Promise.all([
          inner.run('telegram adapter', async () => done.push('telegram')),
          inner.run('discord adapter', never),
        ]);
      },
    },
    { stage: 1, name: 'http server', stop: async () => done.push('http') },
    { stage: 0, name: 'scheduler', stop: async () => done.push('scheduler') },
  ];
  const outcome = await stopWithin((steps) => stopInStages(parts, steps, () => {}), 50);
  assert.deepEqual(outcome, { stopped: false, pending: ['discord adapter'] });
  assert.deepEqual(done, ['scheduler', 'telegram', 'http'], 'the store is not closed under a part still running');
  assert.equal(
    stopTimeoutLine(outcome.stopped ? [] : outcome.pending, 10_000),
    'shutdown: discord adapter did not stop within 10 s; exiting',
  );
});

test('a part that fails is reported and the stop goes on to the store', async () => {
  const failed: string[] = [];
  const done: string[] = [];
  const parts: StopPart[] = [
    { stage: 2, name: 'mcp', stop: () => Promise.reject(new Error('broken pipe')) },
    { stage: 4, name: 'store', stop: async () => done.push('store') },
  ];
  const outcome = await stopWithin((steps) => stopInStages(parts, steps, (name) => failed.push(name)), 60_000);
  assert.deepEqual(outcome, { stopped: true });
  assert.deepEqual(failed, ['mcp']);
  assert.deepEqual(done, ['store']);
});

test('a part whose own parts are done is named itself; several are joined in one line', async () => {
  const steps = createStopSteps();
  void steps.run('leadership', async (inner) => {
    await inner.run('scheduler (leader)', async () => {});
    await never();
  });
  void steps.run('mcp', never);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(steps.pending(), ['leadership', 'mcp']);
  assert.equal(
    stopTimeoutLine(steps.pending(), 2500),
    'shutdown: leadership and mcp did not stop within 2.5 s; exiting',
  );
});
