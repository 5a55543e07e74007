// A real Rust/clap tool (test/fixtures/rust-clap: rcat, clap 4.0.32, wasm32-wasi, rebuilt by
// scripts/build-rust-fixture.sh), registered and called as a preview1 module and as the
// component jco's preview1 adapter makes of it: its help becomes the spec (name, version,
// level, keywords, typed, required and defaulted options, an enum), calls read files, its
// ReadOnly grant refuses a write, and clap's exit codes (2 on a usage error) reach the caller.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  grantFor,
  invokeTool,
  permits,
  type RegisteredTool,
  registerFile,
  type ToolPolicy,
} from '../../../src/agent/tools/index.ts';
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { grant, root, SHARED_CACHE, tempDir, text } from '../../helpers.ts';

const FIXTURE = join(root, 'test', 'fixtures', 'rust-clap');
const MODULE = join(FIXTURE, 'rcat.wasm');

test('the committed Rust fixture is the one its SHA-256 file names', () => {
  const want = readFileSync(join(FIXTURE, 'rcat.wasm.sha256'), 'utf8').split(/\s+/)[0];
  assert.equal(
    createHash('sha256').update(readFileSync(MODULE)).digest('hex'),
    want,
    'rebuild it with scripts/build-rust-fixture.sh --update',
  );
});

/** The fixture wrapped into a component with jco's preview1 adapter, as a user might ship it. */
async function asComponent(dir: string): Promise<string> {
  const jco = await import('@bytecodealliance/jco');
  const component = await jco.componentNew(readFileSync(MODULE), [
    ['wasi_snapshot_preview1', readFileSync(jco.preview1AdapterCommandPath())],
  ]);
  const file = join(dir, 'rcat.wasm');
  writeFileSync(file, component);
  assert.deepEqual([...component.subarray(4, 8)], [0x0d, 0x00, 0x01, 0x00], 'a component, not a module');
  return file;
}

for (const form of ['module', 'component'] as const) {
  describe(`the Rust/clap tool as a ${form}`, () => {
    let sandbox: Sandbox;
    let tool: RegisteredTool;
    const workspace = tempDir('boxbot-ws-');
    const policy: ToolPolicy = {
      access: 'full',
      workspace,
      network: { allow: [], block: ['private'] },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 60_000 },
    };
    const call = (input: unknown) =>
      invokeTool(sandbox, tool, input, grantFor(tool.spec.permissionLevel, tool.spec.network, policy));
    const run = (...args: string[]) =>
      sandbox.run(tool.blob, grant({ args, mounts: [{ host: workspace, guest: '/', readOnly: true }] }), {
        name: tool.spec.program,
      });

    before(async () => {
      sandbox = createSandbox({
        workerFile: compiledSandboxWorker(),
        cacheDir: join(SHARED_CACHE, 'sandbox'),
        workers: 1,
      });
      const file = form === 'module' ? MODULE : await asComponent(tempDir('boxbot-rust-'));
      const { spec, blob } = await registerFile(sandbox, file, tempDir('boxbot-toolcache-'));
      tool = { spec, blob, source: 'extension' };
      writeFileSync(join(workspace, 'notes.txt'), 'alpha\nBeta\ngamma\ndelta\n');
    });
    after(() => sandbox.close());

    const validatesNameVersionTitle =
      'validates: name and version from its help, level, keywords, typed, required and defaulted options, an enum';
    test(validatesNameVersionTitle, () => {
      const { spec } = tool;
      assert.equal(spec.name, 'rcat');
      assert.equal(spec.version, '0.1.0');
      assert.equal(spec.about, 'Print lines of a file');
      assert.equal(spec.permissionLevel, 'ReadOnly');
      assert.deepEqual(spec.keywords, ['file', 'read', 'cat', 'lines']);
      assert.deepEqual(spec.network, []);
      assert.deepEqual(spec.notes, []);
      assert.ok(
        spec.imports.some((i) => i.startsWith('wasi:clocks/wall-clock@')),
        spec.imports.join(', '),
      );
      const p = spec.inputSchema.properties!;
      assert.deepEqual(spec.inputSchema.required, ['file_path']);
      assert.equal(p.file_path?.type, 'string');
      assert.equal(p.file_path?.description, 'Path of the file to read');
      assert.deepEqual([p.offset?.type, p.offset?.default], ['integer', 0]);
      assert.equal(p.limit?.type, 'integer');
      assert.equal(p.number?.type, 'boolean');
      assert.equal(p.copy_to?.type, 'string');
      assert.deepEqual([p.case?.type, p.case?.enum, p.case?.default], ['string', ['keep', 'upper', 'lower'], 'keep']);
      assert.deepEqual(Object.keys(p).sort(), ['case', 'copy_to', 'file_path', 'limit', 'number', 'offset']);
    });

    test('runs: the input becomes its options and it reads the workspace file', async () => {
      const r = await call({ file_path: 'notes.txt', offset: 1, limit: 2, case: 'upper', number: true });
      assert.equal(r.isError, false, r.content);
      assert.equal(r.content, '     2  BETA\n     3  GAMMA\n');
      assert.equal((await call({ file_path: 'notes.txt' })).content, 'alpha\nBeta\ngamma\ndelta\n');
    });

    test('its ReadOnly grant refuses a write, and a chat-only conversation refuses the tool', async () => {
      const r = await call({ file_path: 'notes.txt', copy_to: 'copy.txt' });
      assert.equal(r.isError, true);
      assert.match(r.content, /rcat: cannot write copy\.txt: Read-only file system/);
      assert.equal(existsSync(join(workspace, 'copy.txt')), false);
      assert.deepEqual(permits({ access: 'chat-only' }, 'rcat', tool.spec.permissionLevel), {
        ok: false,
        reason: 'rcat needs ReadOnly access, and this conversation is chat-only',
      });
    });

    test("exit codes: clap's 2 on a usage error, 1 when the file cannot be read, 0 for --help", async () => {
      const badValue = await run('--file-path', 'notes.txt', '--case', 'shouting');
      assert.equal(badValue.exitCode, 2);
      assert.match(text(badValue.stderr), /'shouting' isn't a valid value for '--case <CASE>'/);
      const missing = await run('--offset', '1');
      assert.equal(missing.exitCode, 2);
      assert.match(text(missing.stderr), /--file-path <FILE_PATH>/);
      const notANumber = await run('--file-path', 'notes.txt', '--offset', 'two');
      assert.equal(notANumber.exitCode, 2);
      const absent = await run('--file-path', 'absent.txt');
      assert.equal(absent.exitCode, 1);
      assert.match(text(absent.stderr), /rcat: absent\.txt: No such file or directory/);
      const help = await run('--help');
      assert.equal(help.exitCode, 0);
      assert.match(text(help.stdout), /^rcat 0\.1\.0\n/);
      const r = await call({ file_path: 'absent.txt' });
      assert.equal(r.isError, true);
      assert.match(r.content, /absent\.txt/);
    });
  });
}
