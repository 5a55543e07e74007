// The CLI world a guest sees: exactly the granted args and env, captured output under a cap,
// and an exit that ends the call with its code and leaves the host serving.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, text } from '../helpers.ts';

describe('sandbox: CLI world', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 2 });
  });
  after(() => sandbox.close());

  it('sees exactly the granted arguments and environment, nothing from the host', async () => {
    process.env.BOXBOT_TEST_SECRET = 'sk-live-should-never-leak';
    try {
      const r = await sandbox.run(guest('environ'), grant({ args: ['one', 'two words'], env: { GREETING: 'hi' } }));
      assert.equal(r.exitCode, 0, text(r.stderr));
      assert.deepEqual(text(r.stdout).split('\n').filter(Boolean), ['environ', 'one', 'two words', 'GREETING=hi']);
      assert.doesNotMatch(text(r.stdout), /sk-live|PATH=|HOME=/);
    } finally {
      delete process.env.BOXBOT_TEST_SECRET; // the process runs other test files after this one
    }
  });

  it('with an empty grant the guest sees only its own name', async () => {
    const r = await sandbox.run(guest('environ'), grant());
    assert.deepEqual(text(r.stdout).split('\n').filter(Boolean), ['environ']);
  });

  it('exit(n) ends the call with code n and keeps what was printed', async () => {
    const r = await sandbox.run(guest('exit42'), grant());
    assert.equal(r.exitCode, 42);
    assert.equal(r.trap, undefined);
    assert.equal(text(r.stdout), 'bye\n');
  });

  it('an empty write to an fd that is not open is EBADF, to stdout it succeeds (preview1 tools)', async () => {
    const r = await sandbox.run(guest('fd-write-badfd'), grant());
    assert.equal(r.exitCode, 0, text(r.stderr));
    // The guest's first 24 bytes of memory read the same afterwards.
    assert.equal(text(r.stdout), 'badfd 8 stdout 0 kept 1\n');
  });

  it("the fd check leaves a guest's data at address 0 alone; its output stands when it traps after", async () => {
    // This guest is not moved up (it gives the adapter memory itself): its 0..24 is memory's 0..24.
    const r = await sandbox.run(guest('fd-write-low-data'), grant());
    assert.equal(r.trap?.kind, 'crash', text(r.stderr));
    assert.equal(text(r.stdout), 'stdout 0 badfd 8 kept 1\n');
  });

  it('a componentize-js component runs and prints', async () => {
    const r = await sandbox.run(guest('hello'), grant());
    assert.equal(r.exitCode, 0, text(r.stderr));
    assert.deepEqual(JSON.parse(text(r.stdout)), { hello: 'world' });
  });

  it('an output flood is cut at the cap with trap "output", and the next call works', async () => {
    const g = grant();
    g.limits.maxOutputBytes = 100_000;
    const r = await sandbox.run(guest('flood'), g);
    assert.equal(r.trap?.kind, 'output');
    assert.equal(r.stdout.length, 100_000);
    const next = await sandbox.run(guest('exit42'), grant());
    assert.equal(next.exitCode, 42);
  });

  it('runs many calls in parallel, each with its own world', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sandbox.run(guest('environ'), grant({ args: [`call-${i}`], env: { N: String(i) } })),
      ),
    );
    results.forEach((r, i) => {
      assert.deepEqual(text(r.stdout).split('\n').filter(Boolean), ['environ', `call-${i}`, `N=${i}`]);
    });
  });
});
