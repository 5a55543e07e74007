// Which worker a call goes to. After a call a worker resets the memories it used and makes the
// instance for its next call, which takes longer than a whole warm call: a call sent to it
// meanwhile waits for all of that. So a worker counts as ready again only once it says so, and
// the next call goes to another worker that is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, text, waitUntil } from '../helpers.ts';

describe('sandbox: choosing a worker', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 2 });
  });
  after(() => sandbox.close());

  it('a worker still making its next instance is not ready; it is once it has made it', async () => {
    const tool = guest('exit42');
    await sandbox.warm(tool, DEFAULT_LIMITS.maxMemoryBytes);
    const { key } = await sandbox.prepare(tool, DEFAULT_LIMITS.maxMemoryBytes);
    assert.equal(sandbox.pool.readyFor(key), 2);
    const r = await sandbox.run(tool, grant());
    // Right as the result arrives, the worker that ran the call has not made its next instance.
    assert.equal(sandbox.pool.readyFor(key), 1);
    assert.equal(r.exitCode, 42, text(r.stderr));
    await waitUntil(() => sandbox.pool.readyFor(key) === 2, 'the worker that ran the call reports it is ready', 60_000);
    // Calls in a row are spread over the ready workers, and each still runs a fresh instance.
    for (let i = 0; i < 4; i++) assert.equal((await sandbox.run(tool, grant())).exitCode, 42);
  });

  it('calls queued for one worker each find an instance it made ahead, even sent back to back', async () => {
    const one = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
    try {
      const tool = guest('exit42');
      await one.warm(tool, DEFAULT_LIMITS.maxMemoryBytes);
      // All queued at once: the pool hands the worker the next call as soon as a result is in.
      const results = await Promise.all(Array.from({ length: 12 }, () => one.run(tool, grant())));
      assert.deepEqual(
        results.map((r) => r.exitCode),
        results.map(() => 42),
      );
      assert.equal(one.pool.instancesMadeOnCall, 0, 'a call made its own instance while its caller waited');
    } finally {
      await one.close();
    }
  });
});
