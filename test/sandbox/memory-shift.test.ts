// Preview1 tools whose runtime claims all of memory (AssemblyScript's heap takes everything up
// to memory.size): the module's memory is moved past the adapter's pages, so the adapter's
// state survives, and the module still sees its memory as before (sizes, growth, bulk memory,
// data, bounds); the memory cap covers both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, text } from '../helpers.ts';

describe('sandbox: preview1 tools own all of their memory', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
  });
  after(() => sandbox.close());

  it('a guest that writes over all of memory up to memory.size still gets its args, env and output', async () => {
    const r = await sandbox.run(
      guest('heap-claim'),
      grant({ args: ['first', 'the second'], env: { GREETING: 'hi', LANG: 'C' } }),
    );
    assert.equal(r.trap, undefined, text(r.stderr));
    assert.equal(r.exitCode, 0, text(r.stderr));
    assert.deepEqual(text(r.stdout).split('\n'), [
      'heap-claim',
      'first',
      'the second',
      'GREETING=hi',
      'LANG=C',
      'two iovecs',
      'kept 1',
      '',
    ]);
  });

  it('an empty argument or environment value reads as empty, terminated where it should be', async () => {
    // jco's glue passed an empty string without asking the guest's allocator for its place, so
    // the adapter had no byte to end it with: "EMPTY=" ran on into the next variable, and an
    // empty argument pointed outside the guest's memory (src/sandbox/glue-patch.ts).
    const r = await sandbox.run(guest('heap-claim'), grant({ args: ['', 'after'], env: { EMPTY: '', NEXT: 'x' } }));
    assert.equal(r.exitCode, 0, text(r.stderr));
    assert.deepEqual(text(r.stdout).split('\n').slice(0, 5), ['heap-claim', '', 'after', 'EMPTY=', 'NEXT=x']);
  });

  it("the adapter's pages count against the memory cap; the adapter works once the module took the rest", async () => {
    const capped = grant();
    capped.limits = { ...capped.limits, maxMemoryBytes: 1024 * 1024 };
    const r = await sandbox.run(guest('grow-to-cap'), capped);
    assert.equal(r.trap, undefined, text(r.stderr));
    // 16 pages in all: the module grew to 14, the adapter has the other two.
    assert.equal(text(r.stdout), 'pages 14\n');
  });

  it('sees its own pages only: sizes, growth, data, fill/copy/init, and an out-of-bounds trap', async () => {
    const r = await sandbox.run(guest('memory-ops'), grant());
    assert.equal(text(r.stdout), 'size 1 grow 1 size 2 data hello fill xxx copy hello init world top 7\n');
    assert.equal(r.trap?.kind, 'crash');
    assert.match(r.trap!.message, /out of bounds memory access/);
  });
});
