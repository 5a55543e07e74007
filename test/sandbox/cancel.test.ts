// Cancellation: aborting a call's signal stops a running tool at once (its worker is replaced)
// or drops a queued one, rejecting with SandboxError `cancelled`; the next call works.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox, SandboxError } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, waitUntil } from '../helpers.ts';

const isCancelled = (e: unknown) => e instanceof SandboxError && e.code === 'cancelled';

describe('sandbox: cancellation', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
  });
  after(() => sandbox.close());

  it('a running infinite loop is stopped by its signal, long before its timeout, and the next call works', async () => {
    const controller = new AbortController();
    const long = grant();
    long.limits = { ...long.limits, timeoutMs: 120_000, fuel: undefined };
    const running = sandbox.run(guest('spin'), long, { signal: controller.signal });
    // Abort once a worker has it (a queued call would be dropped instead).
    await waitUntil(() => sandbox.pool.busyCount === 1, 'the call handed to a worker', 60_000);
    controller.abort();
    await assert.rejects(running, isCancelled);
    const r = await sandbox.run(guest('exit42'), grant());
    assert.equal(r.exitCode, 42);
  });

  it('a queued call is dropped when cancelled; an already-aborted signal runs nothing', async () => {
    const busy = new AbortController();
    const long = grant();
    long.limits = { ...long.limits, timeoutMs: 120_000, fuel: undefined };
    const first = sandbox.run(guest('spin'), long, { signal: busy.signal });
    const queuedController = new AbortController();
    const queued = sandbox.run(guest('exit42'), grant(), { signal: queuedController.signal });
    queuedController.abort();
    await assert.rejects(queued, isCancelled);
    busy.abort();
    await assert.rejects(first, isCancelled);
    await assert.rejects(sandbox.run(guest('exit42'), grant(), { signal: AbortSignal.abort() }), isCancelled);
    assert.equal((await sandbox.run(guest('exit42'), grant())).exitCode, 42);
  });

  it('fifteen calls on one signal (one agent run) leave no abort listener behind and print no warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const run = new AbortController();
      for (let i = 0; i < 15; i++) {
        assert.equal((await sandbox.run(guest('exit42'), grant(), { signal: run.signal })).exitCode, 42);
      }
      assert.equal(getEventListeners(run.signal, 'abort').length, 0);
      // Node emits the warning on a later tick.
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
