// What the sandbox accepts: WASI 0.2 components and preview1 commands; anything else is
// refused with a reason, and a bad grant names the field.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox, SandboxError } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, tempDir } from '../helpers.ts';

describe('sandbox: inputs', () => {
  let sandbox: Sandbox;
  let dir: string;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
    dir = tempDir();
  });
  after(() => sandbox.close());

  it('refuses a file that is not WebAssembly, saying so', async () => {
    const f = join(dir, 'notes.wasm');
    writeFileSync(f, 'hello, I am text');
    await assert.rejects(sandbox.run(f, grant()), (e: unknown) => {
      assert.ok(e instanceof SandboxError);
      assert.equal(e.code, 'invalid-tool');
      assert.match(e.message, /notes\.wasm/);
      assert.match(e.message, /not a WebAssembly/i);
      return true;
    });
  });

  it('refuses a core module that is not a WASI command', async () => {
    const f = join(dir, 'lib.wasm');
    // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
    writeFileSync(
      f,
      Buffer.from('0061736d0100000001070160027f7f017f030201000707010361646400000a09010700200020016a0b', 'hex'),
    );
    await assert.rejects(sandbox.run(f, grant()), /_start|command/);
  });

  it('reports a missing file as not-found', async () => {
    await assert.rejects(
      sandbox.run(join(dir, 'nope.wasm'), grant()),
      (e: unknown) => e instanceof SandboxError && e.code === 'not-found',
    );
  });

  it('names the bad field of a grant', async () => {
    await assert.rejects(
      sandbox.run(guest('exit42'), grant({ mounts: [{ host: join(dir, 'missing'), guest: '/', readOnly: true }] })),
      /mounts\[0\]\.host/,
    );
    await assert.rejects(sandbox.run(guest('exit42'), grant({ env: { 'A=B': 'x' } })), /env/);
    const g = grant();
    g.limits.timeoutMs = -1;
    await assert.rejects(sandbox.run(guest('exit42'), g), /limits\.timeoutMs/);
  });

  it('concurrent first calls of a new tool compile it once', async () => {
    const { copyFileSync } = await import('node:fs');
    const fresh = join(dir, 'fresh.wasm');
    copyFileSync(guest('count'), fresh);
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => sandbox.prepare(fresh, 64 * 1024 * 1024)));
    assert.equal(a!.modules, b!.modules);
    assert.equal(b!.modules, c!.modules);
  });

  it('a renamed copy of a tool reuses the compiled module; a changed file recompiles', async () => {
    const { copyFileSync } = await import('node:fs');
    const copy = join(dir, 'renamed.wasm');
    copyFileSync(guest('exit42'), copy);
    const a = await sandbox.prepare(guest('exit42'), 256 * 1024 * 1024);
    const b = await sandbox.prepare(copy, 256 * 1024 * 1024);
    assert.equal(a.key, b.key);
    assert.equal(a.modules, b.modules);
    copyFileSync(guest('environ'), copy);
    const c = await sandbox.prepare(copy, 256 * 1024 * 1024);
    assert.notEqual(c.key, a.key);
  });
});
