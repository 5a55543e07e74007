// Every call runs a fresh instance: whatever a guest leaves in its linear memory, globals,
// tables or JS heap is gone for the next call, even though workers reuse (reset) memories.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildGuest } from '../../scripts/componentize.ts';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, root, sharedCompileCache, text } from '../helpers.ts';

const built = join(root, '.cache', 'sandbox-guests');
const source = (name: string) => join(root, 'test', 'sandbox', 'guests', name);

async function build(file: string): Promise<string> {
  const out = join(built, `${file.replace('.', '-')}.wasm`);
  await buildGuest(source(file), out);
  return out;
}

describe('sandbox: a fresh instance per call', () => {
  let sandbox: Sandbox;
  const guests: Record<string, string> = {};
  before(async () => {
    for (const f of ['marker.wat', 'grower.wat', 'marker.js']) guests[f] = await build(f);
    // One worker: every call lands where the previous one ran and reused its memory.
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
  });
  after(() => sandbox.close());

  it('memory words, globals, table slots, data bytes and the last page are as new on every call', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await sandbox.run(guests['marker.wat']!, grant());
      assert.equal(r.exitCode, 0, text(r.stderr));
      // memory word, global, table slot, data segment, last page
      assert.equal(text(r.stdout), 'yyyyy\n', `call ${i + 1} saw state left by an earlier call`);
    }
  });

  it('a call that grew memory leaves neither the growth nor its writes behind', async () => {
    const outputs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await sandbox.run(guests['grower.wat']!, grant());
      assert.equal(r.exitCode, 0, text(r.stderr));
      outputs.push(text(r.stdout));
    }
    // Pages at start (its own 1: the preview1 adapter's pages lie below its memory), then "page 0 unmarked".
    assert.equal(outputs[0], '1y\n');
    assert.deepEqual(outputs, [outputs[0], outputs[0], outputs[0]], 'a later call saw a grown or marked memory');
  });

  it('markers left by a call that then trapped are gone too', async () => {
    // The guest writes its markers first, then prints: over the output cap, it traps.
    const capped = grant();
    capped.limits = { ...capped.limits, maxOutputBytes: 2 };
    const trapped = await sandbox.run(guests['marker.wat']!, capped);
    assert.equal(trapped.trap?.kind, 'output');
    const r = await sandbox.run(guests['marker.wat']!, grant());
    assert.equal(text(r.stdout), 'yyyyy\n');
  });

  it("a componentize-js guest never sees an earlier call's JS globals or module state", async () => {
    for (let i = 0; i < 4; i++) {
      const r = await sandbox.run(guests['marker.js']!, grant());
      assert.equal(r.exitCode, 0, text(r.stderr));
      assert.deepEqual(JSON.parse(text(r.stdout)), { calls: 1, marker: null, cached: 'undefined' }, `call ${i + 1}`);
    }
  });
});
