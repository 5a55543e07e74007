// A real sandboxed WASM tool in the loop: registered from its own help, called by the scripted
// model with a grant computed from its level and the session's policy (read-only workspace).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildGuest } from '../../../scripts/componentize.ts';
import { createCostMeter } from '../../../src/agent/loop/cost-meter.ts';
import { runLoop } from '../../../src/agent/loop/run-loop.ts';
import { createToolSet } from '../../../src/agent/loop/tool-set.ts';
import { type RegisteredTool, registerFile } from '../../../src/agent/tools/index.ts';
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { root, tempDir } from '../../helpers.ts';
import { callTools, reply, scriptedModel } from './scripted.ts';

let sandbox: Sandbox;
let peek: RegisteredTool;
const workspace = tempDir('boxbot-ws-');

before(async () => {
  const wasm = join(root, '.cache', 'guests', 'agent-peek.wasm');
  await buildGuest(join(root, 'test', 'agent', 'loop', 'guests', 'peek.js'), wasm);
  sandbox = createSandbox({
    workerFile: compiledSandboxWorker(),
    cacheDir: join(root, '.cache', 'sandbox-test'),
    workers: 1,
  });
  const reg = await registerFile(sandbox, wasm, tempDir('boxbot-tools-'), 'peek');
  peek = { spec: reg.spec, blob: reg.blob, source: 'extension' };
  writeFileSync(join(workspace, 'notes.txt'), 'buy milk\n');
});
after(() => sandbox.close());

test('a registered WASM tool runs in the sandbox with a read-only grant of the workspace', async (t) => {
  const provider = scriptedModel(t, [
    callTools([
      ['peek', { file_path: 'notes.txt' }],
      ['peek', { file_path: '../../../../etc/passwd' }],
    ]),
    reply('You need milk.'),
  ]);
  const tools = createToolSet({
    wasm: { list: () => [peek], get: (n) => (n === 'peek' ? peek : undefined) },
    builtins: [],
    policy: {
      access: 'read-only',
      workspace,
      network: { allow: [], block: ['private'] },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 20_000 },
    },
    sandbox,
  });
  const r = await runLoop({
    provider,
    model: 'm',
    system: '',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'what is in my notes?' }] }],
    tools,
    meter: createCostMeter(() => 0),
  });
  assert.equal(r.outcome, 'final');
  const def = provider.requests[0]!.tools[0]!;
  assert.equal(def.name, 'peek');
  assert.deepEqual((def.inputSchema as { required?: string[] }).required, ['file_path']);
  const [ok, escape] = provider.requests[1]!.messages.at(-1)!.content;
  assert.ok(ok?.type === 'tool-result' && escape?.type === 'tool-result');
  assert.deepEqual([ok.isError, ok.content], [false, 'buy milk\n']);
  assert.equal(escape.isError, true);
  assert.match(escape.content, /cannot read \.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd/);
});

const chatOnlySessionTitle =
  'a chat-only session does not list the ReadOnly WASM tool and refuses a call to it before the sandbox';
test(chatOnlySessionTitle, async (t) => {
  const provider = scriptedModel(t, [
    callTools([['peek', { file_path: 'notes.txt' }]]),
    reply('I cannot read files here.'),
  ]);
  let runs = 0;
  const counting = { ...sandbox, run: (...a: Parameters<Sandbox['run']>) => (runs++, sandbox.run(...a)) } as Sandbox;
  const tools = createToolSet({
    wasm: { list: () => [peek], get: (n) => (n === 'peek' ? peek : undefined) },
    builtins: [],
    policy: { access: 'chat-only', workspace, network: { allow: [], block: ['private'] }, limits: DEFAULT_LIMITS },
    sandbox: counting,
  });
  await runLoop({
    provider,
    model: 'm',
    system: '',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'read notes' }] }],
    tools,
    meter: createCostMeter(() => 0),
  });
  assert.deepEqual(provider.requests[0]!.tools, []);
  const result = provider.requests[1]!.messages.at(-1)!.content[0]!;
  assert.ok(result.type === 'tool-result');
  assert.equal(result.content, 'refused: peek needs ReadOnly access, and this conversation is chat-only');
  assert.equal(runs, 0);
});
