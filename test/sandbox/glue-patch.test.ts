// The glue rewrites run against the installed jco's real output: every synchronous host call
// takes the direct path (an upgrade that changes jco's text shows up here, not as a silent
// slowdown), a trampoline doing anything the direct path does not answer keeps jco's path, and
// a tool that uses host functions returning values directly (handles, clocks) still works.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { transpileBytes } from '@bytecodealliance/jco-transpile';
import { componentNew } from '@bytecodealliance/jco-transpile/wasm-tools';
import { patchGlueReport } from '../../src/sandbox/glue-patch.ts';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { readPreview1CommandAdapter } from '../../src/sandbox/preview1-adapter.ts';
import { GLUE_INIT_FUNCTION } from '../../src/sandbox/v8-flags.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, tempDir, text } from '../helpers.ts';

/** jco's unpatched glue for a small preview1 command (exit42: prints, then exits 42). */
async function rawGlue(): Promise<string> {
  const component = await componentNew(readFileSync(guest('exit42')), [
    ['wasi_snapshot_preview1', await readPreview1CommandAdapter()],
  ]);
  const out = await transpileBytes(component, {
    name: 'guest',
    instantiation: 'async',
    emitTypescriptDeclarations: false,
  });
  return Buffer.from(out.files['guest.js']!).toString('utf8');
}

describe('sandbox: jco glue rewrites', () => {
  let glue: string;
  let sandbox: Sandbox;
  before(async () => {
    glue = await rawGlue();
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
  });
  after(() => sandbox.close());

  it("every synchronous host call of the installed jco's glue takes the direct path", () => {
    const { glue: patched, report } = patchGlueReport(Buffer.from(glue));
    assert.ok(report.trampolines > 10, `found ${report.trampolines} trampolines`);
    assert.equal(report.directHostCalls, report.trampolines);
    assert.equal(report.debugLog, true);
    const out = Buffer.from(patched).toString('utf8');
    assert.equal(out.match(/\.boxbotDirect = true;/g)?.length, report.trampolines);
    assert.doesNotMatch(out, /createNewCurrentTask\(\{\n {8}componentIdx: -1,/);
  });

  it('the function TurboFan is kept off is the one that builds instances in this jco', () => {
    assert.match(glue, new RegExp(`function\\* ${GLUE_INIT_FUNCTION} \\(`));
  });

  it('a trampoline that asks its task for more keeps jco path; the others still go direct', () => {
    // The first trampoline's body gains a use of the task the direct path does not answer.
    const changed = glue.replace(
      /(\n {2}const _trampoline\d+ = function\([^)]*\) \{\n[\s\S]*?)(\n {4}task\.exit\(\);)/,
      '$1\n    task.mayBlock();$2',
    );
    assert.notEqual(changed, glue);
    const { glue: patched, report } = patchGlueReport(Buffer.from(changed));
    assert.equal(report.directHostCalls, report.trampolines - 1);
    const out = Buffer.from(patched).toString('utf8');
    assert.match(out, /task\.mayBlock\(\);/);
    assert.match(out, /createNewCurrentTask\(\{\n {8}componentIdx: -1,/);
  });

  it('glue of another shape is left as it is, and patching twice changes nothing more', () => {
    const other = Buffer.from('export function instantiate() { return {}; }\n');
    assert.equal(Buffer.from(patchGlueReport(other).glue).toString(), other.toString());
    const once = patchGlueReport(Buffer.from(glue)).glue;
    const twice = patchGlueReport(once);
    assert.equal(twice.report.directHostCalls, 0);
    assert.equal(Buffer.from(twice.glue).toString(), Buffer.from(once).toString());
  });

  it('host functions that return their value directly still answer the guest (handles, exit code)', async () => {
    // get-stdout returns a handle straight to the guest; proc_exit's code comes back exactly.
    const r = await sandbox.run(guest('exit42'), grant());
    assert.equal(r.exitCode, 42, text(r.stderr));
    assert.equal(text(r.stdout), 'bye\n');
  });

  it('a componentize-js tool (its host calls all direct) reads a file and prints it', async () => {
    const dir = tempDir('boxbot-glue-');
    writeFileSync(`${dir}/a.txt`, 'through the direct path\n');
    const r = await sandbox.run(
      guest('cat'),
      grant({ args: ['a.txt'], mounts: [{ host: dir, guest: '/', readOnly: true }] }),
    );
    assert.equal(r.exitCode, 0, text(r.stderr));
    // console.log adds its own newline.
    assert.equal(text(r.stdout), 'through the direct path\n\n');
  });
});
