// A target run in a worker: an input that never returns or fills the heap ends the worker, not
// the fuzz run, and is reported with that input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runIsolated } from './isolate.ts';

const module = new URL('./broken-targets.ts', import.meta.url);

test('an input that loops forever is a hang, reported with the input', async () => {
  const r = await runIsolated('loops on 7', { runs: 100, seed: 3, stallMs: 2_000, module });
  assert.equal(r.stopped, true);
  assert.equal(r.hangs, 1);
  assert.equal(r.findings[0]?.input, '7');
  assert.match(r.findings[0]?.error ?? '', /no answer after \d+ s/);
});

test('an input that fills the heap is a crash, reported with the input', async () => {
  const r = await runIsolated('fills memory on 7', { runs: 100, seed: 3, heapMb: 64, module });
  assert.equal(r.stopped, true);
  assert.equal(r.crashes, 1);
  assert.equal(r.findings[0]?.input, '7');
  assert.match(r.findings[0]?.error ?? '', /memory/);
});
