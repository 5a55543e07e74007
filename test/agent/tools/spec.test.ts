// Registration through the sandbox: a tool file's own help becomes its ToolSpec, and a file
// whose help or imports do not add up is refused with a reason a user can act on.
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { grantFor, invokeTool, registerFile, ToolRefusedError } from '../../../src/agent/tools/index.ts';
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from '../../../src/sandbox/index.ts';
import { root, SHARED_CACHE, tempDir } from '../../helpers.ts';

const RCAT = join(root, 'test', 'fixtures', 'rust-clap', 'rcat.wasm');

import { compiledSandboxWorker } from '../../compiled-src.ts';
import { dropTool } from './registry-helpers.ts';

describe('registering a tool file', () => {
  let sandbox: Sandbox;
  const dir = tempDir('boxbot-tools-');
  const cache = tempDir('boxbot-toolcache-');
  before(() => {
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(SHARED_CACHE, 'sandbox'),
      workers: 1,
    });
  });
  after(() => sandbox.close());

  const register = (guestName: string, toolName: string) =>
    registerFile(sandbox, dropTool(dir, guestName, toolName), cache);
  const refusal = async (guestName: string, toolName: string): Promise<string> => {
    try {
      await register(guestName, toolName);
    } catch (e) {
      assert.ok(e instanceof ToolRefusedError, String(e));
      return e.message;
    }
    assert.fail(`${toolName} was registered but should have been refused`);
  };

  test('its help becomes the spec: name, version, about, level, keywords, input schema', async () => {
    const { spec, cached } = await register('reg-multi', 'echo');
    assert.equal(cached, false);
    assert.equal(spec.name, 'echo');
    assert.equal(spec.version, '1.0.0');
    assert.equal(spec.about, 'Print the arguments it was given');
    assert.equal(spec.permissionLevel, 'ReadOnly');
    assert.deepEqual(spec.keywords, ['echo', 'arguments']);
    assert.deepEqual(spec.inputSchema.required, ['file_path']);
    assert.deepEqual(Object.keys(spec.inputSchema.properties ?? {}).sort(), [
      'file_path',
      'mode',
      'offset',
      'pattern',
      'tag',
      'verbose',
    ]);
    assert.match(spec.sha256, /^[0-9a-f]{64}$/);
  });

  test('a second registration of the same content comes from the cache', async () => {
    const first = await register('reg-multi', 'jsonout');
    const again = await register('reg-multi', 'jsonout');
    assert.equal(again.cached, true);
    assert.deepEqual(again.spec, first.spec);
  });

  test('no PermissionLevel: is read as Execute, with a note saying so', async () => {
    const { spec } = await register('reg-multi', 'nolevel');
    assert.equal(spec.permissionLevel, 'Execute');
    assert.match(spec.notes.join('\n'), /no PermissionLevel: declared, so it is treated as Execute/);
  });

  test('help printed in GBK registers, decoded', async () => {
    const { spec } = await register('reg-multi', 'zhtool');
    assert.equal(spec.about, '读取文件并统计中文字符的数量');
    assert.equal(spec.inputSchema.properties?.file_path?.description, '要读取的文件路径');
  });

  test('declared Network: hosts are kept when the component imports wasi:http', async () => {
    const { spec } = await register('reg-net', 'fetchy');
    assert.deepEqual(spec.network, ['http://127.0.0.1:*']);
    assert.ok(
      spec.imports.some((i) => i.startsWith('wasi:http/outgoing-handler@')),
      spec.imports.join(', '),
    );
  });

  const componentImportingWasiTitle =
    'a component importing wasi:http without declaring Network: registers with a note; it reaches only what the ' +
    'policy allows (nothing by default)';
  test(componentImportingWasiTitle, async () => {
    const { spec, blob } = await register('reg-net', 'sneaky');
    assert.ok(
      spec.notes.some((n) => /imports wasi:http.*no Network: line.*network\.allow/.test(n)),
      spec.notes.join('\n'),
    );
    const server = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const tool = { spec, blob, source: 'extension' as const };
      const policy = (allow: string[]) => ({
        access: 'full' as const,
        workspace: tempDir('boxbot-ws-'),
        network: { allow, block: [] },
        limits: { ...DEFAULT_LIMITS, timeoutMs: 60_000 },
      });
      const allowed = await invokeTool(
        sandbox,
        tool,
        { url },
        grantFor(spec.permissionLevel, spec.network, policy(['http://127.0.0.1:*'])),
      );
      assert.equal(allowed.content.trim(), 'v1: hello', 'the policy allows the host');
      const byDefault = await invokeTool(
        sandbox,
        tool,
        { url },
        grantFor(spec.permissionLevel, spec.network, policy([])),
      );
      assert.match(byDefault.content, /^v1: request failed/, 'an empty network.allow reaches nothing');
    } finally {
      server.close();
    }
  });

  test('a None tool may import wasi:filesystem (every toolchain does), and its grant mounts nothing', async () => {
    const { spec } = await register('reg-multi', 'nofiles');
    assert.equal(spec.permissionLevel, 'None');
    assert.ok(spec.imports.some((i) => i.startsWith('wasi:filesystem/')));
    const grant = grantFor('None', spec.network, {
      access: 'full',
      workspace: '/tmp',
      network: { allow: ['*://*:*'], block: [] },
      limits: DEFAULT_LIMITS,
    });
    assert.deepEqual(grant.mounts, []);
  });

  test('a Network: entry that is not a host pattern is refused naming it', async () => {
    assert.match(await refusal('reg-multi', 'badnet'), /Network: "api\.github\.com\/v3" is not a host pattern/);
  });

  test('a program whose -h/--help is not help is refused, quoting what it printed', async () => {
    assert.match(
      await refusal('reg-multi', 'greeter'),
      /greeter\.wasm refused: `-h` and `--help`: the output is not help: .*"Hello! I am greeter, not a tool\."/,
    );
  });

  test('a file that is not WebAssembly is refused with the reason', async () => {
    const file = join(dir, 'junk.wasm');
    writeFileSync(file, 'this is not wasm');
    await assert.rejects(
      registerFile(sandbox, file, cache),
      (e: unknown) =>
        e instanceof ToolRefusedError && /junk\.wasm refused: it is not a usable WASI tool/.test(e.message),
    );
  });

  const toolNamedFirstTitle =
    "a tool is named by the first word of its help's first line, not by its file; calls still run as the file's name";
  test(toolNamedFirstTitle, async () => {
    const file = join(dir, 'my-cat.wasm');
    copyFileSync(RCAT, file);
    const { spec, blob } = await registerFile(sandbox, file, cache);
    assert.equal(spec.name, 'rcat');
    assert.equal(spec.file, file);
    const again = await registerFile(sandbox, file, cache);
    assert.equal(again.cached, true, 'the spec cache finds it under its file');
    assert.equal(again.spec.name, 'rcat');
    const ws = tempDir('boxbot-ws-');
    writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n');
    const r = await invokeTool(
      sandbox,
      { spec, blob, source: 'extension' },
      { file_path: 'a.txt' },
      grantFor(spec.permissionLevel, spec.network, {
        access: 'full',
        workspace: ws,
        network: { allow: [], block: [] },
        limits: DEFAULT_LIMITS,
      }),
    );
    assert.equal(r.content, 'one\ntwo\n');
  });

  const helpWithoutNameTitle =
    'a help without a name line leaves the file name, and a file name that is not a valid tool name is refused';
  test(helpWithoutNameTitle, async () => {
    // reg-v1 starts its help with argv[0]: "my tool 1.0.0" is no name line.
    assert.match(await refusal('reg-v1', 'my tool'), /the tool name "my tool" must be 1-64 letters, digits, _ or -/);
  });
});
