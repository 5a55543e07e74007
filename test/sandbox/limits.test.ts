// Limits: wall-clock timeout, fuel, memory and stack each end a call with a trap naming the
// limit, and the next call on the same sandbox works.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox, type SandboxGrant } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache } from '../helpers.ts';

function withLimits(l: Partial<SandboxGrant['limits']>): SandboxGrant {
  const g = grant();
  g.limits = { ...g.limits, ...l };
  return g;
}

describe('sandbox: limits', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 2 });
  });
  after(() => sandbox.close());

  async function nextCallWorks(): Promise<void> {
    const r = await sandbox.run(guest('exit42'), grant());
    assert.equal(r.exitCode, 42, 'the call after a trap must work');
  }

  it('an infinite loop is stopped by the timeout, and the worker is replaced', async () => {
    const r = await sandbox.run(guest('spin'), withLimits({ timeoutMs: 500, fuel: undefined }));
    assert.equal(r.trap?.kind, 'timeout');
    assert.match(r.trap!.message, /500 ms/);
    await nextCallWorks();
  });

  it('an infinite loop is stopped by fuel long before the timeout', async () => {
    const r = await sandbox.run(guest('spin'), withLimits({ timeoutMs: 60_000, fuel: 10_000_000 }));
    assert.equal(r.trap?.kind, 'fuel');
    await nextCallWorks();
  });

  it('fuel is deterministic: a bounded loop fits a budget, and fails with a tenth of it', async () => {
    const ok = await sandbox.run(guest('count'), withLimits({ fuel: 50_000_000 }));
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.trap, undefined);
    const starved = await sandbox.run(guest('count'), withLimits({ fuel: 100_000 }));
    assert.equal(starved.trap?.kind, 'fuel');
  });

  it('a memory bomb hits the cap with trap "memory"', async () => {
    const r = await sandbox.run(guest('membomb'), withLimits({ maxMemoryBytes: 32 * 1024 * 1024 }));
    assert.equal(r.trap?.kind, 'memory');
    await nextCallWorks();
  });

  const tenTablesGrownTitle =
    'ten tables grown until growth fails end the call with trap "memory"; the host and the next call live on';
  it(tenTablesGrownTitle, async () => {
    // Unbounded, this exhausts the worker's heap inside one table.grow and V8 aborts the whole
    // process (exit 134), which would end this test file too.
    const r = await sandbox.run(guest('tablebomb'), grant());
    assert.equal(r.trap?.kind, 'memory');
    await nextCallWorks();
  });

  const workerReachesHeapTitle =
    'a worker that reaches its heap limit ends only its call, with trap "memory"; a new worker runs the next';
  it(workerReachesHeapTitle, async () => {
    // Host objects the guest keeps (here pollables) live in the worker's JS heap, outside the
    // guest's memory cap; a small heap makes the worker's own limit the one that is hit.
    const small = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: sharedCompileCache(),
      workers: 1,
      workerHeapMb: 24,
    });
    try {
      const r = await small.run(guest('heap-hog'), withLimits({ timeoutMs: 120_000 }));
      assert.equal(r.trap?.kind, 'memory');
      assert.match(r.trap!.message, /heap/);
      assert.equal((await small.run(guest('exit42'), grant())).exitCode, 42);
    } finally {
      await small.close();
    }
  });

  it('unbounded recursion ends with trap "stack"', async () => {
    const r = await sandbox.run(guest('recurse'), grant());
    assert.equal(r.trap?.kind, 'stack');
    await nextCallWorks();
  });
});
