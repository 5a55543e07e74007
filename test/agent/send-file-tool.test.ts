// The send_file tool: a workspace file the model names comes back with the run's answer (its type
// sniffed from the bytes), offered only where reading is permitted and listed by /whoami; a path
// outside the workspace, a symlink out, a FIFO or an oversized file is refused with a clear error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { type AttachedFile, createSendFileTool } from '../../src/agent/media/send-file-tool.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createAgentRunner, workspaceOf } from '../../src/runner/agent-runner.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { inboundMessage } from '../gateway/fakes.ts';
import { tempDir } from '../helpers.ts';
import { scriptedDeps } from './loop/helpers.ts';
import { callTools, reply, type ScriptStep, scriptedModel } from './loop/scripted.ts';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

const message = (text: string, over: Partial<InboundMessage> = {}): InboundMessage =>
  inboundMessage(text, { id: 'telegram:7:1', chatId: '7', userId: '7', ...over });

function runnerWith(t: TestContext, steps: ScriptStep[], maxFileBytes?: number) {
  const provider = scriptedModel(t, steps, 'test');
  const deps = scriptedDeps(provider);
  const workspacesDir = tempDir();
  const runner = createAgentRunner({
    store: createMemoryStore(),
    deps,
    workspacesDir,
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
    ...(maxFileBytes ? { maxFileBytes } : {}),
  });
  const workspace = workspaceOf(workspacesDir, 'telegram:7');
  mkdirSync(workspace, { recursive: true });
  return { runner, provider, workspace };
}

test('a file the model sends comes back with the answer: its name, sniffed type, bytes and caption', async (t) => {
  const { runner, provider, workspace } = runnerWith(t, [
    callTools([
      ['send_file', { path: '/out/chart.txt', caption: 'Sales by month' }],
      ['send_file', { path: 'notes.md' }],
    ]),
    reply('Here is the chart.'),
  ]);
  mkdirSync(join(workspace, 'out'));
  writeFileSync(join(workspace, 'out', 'chart.txt'), PNG); // named .txt, but a PNG: the bytes decide
  writeFileSync(join(workspace, 'notes.md'), '# Notes\n');
  const m = message('chart please');
  const r = await runner.run({
    message: m,
    policy: resolvePolicy(configSchema.parse({}), m),
    signal: new AbortController().signal,
    onEvent: () => undefined,
  });
  assert.equal(r.text, 'Here is the chart.');
  assert.deepEqual(
    r.files?.map((f) => [f.name, f.mimeType, Buffer.from(f.bytes).toString('hex'), f.caption]),
    [
      ['chart.txt', 'image/png', PNG.toString('hex'), 'Sales by month'],
      ['notes.md', 'text/plain', Buffer.from('# Notes\n').toString('hex'), undefined],
    ],
  );
  const results = provider.requests[1]!.messages.at(-1)!.content;
  assert.match(JSON.stringify(results), /attached chart\.txt \(image\/png, 12 bytes\)/);
});

test('the name a sent file is shown under has no format characters (a right-to-left override)', async (t) => {
  const { runner, provider, workspace } = runnerWith(t, [
    callTools([['send_file', { path: 'report\u202Efdp.exe' }]]),
    reply('Sent.'),
  ]);
  writeFileSync(join(workspace, 'report\u202Efdp.exe'), '# Notes\n');
  const m = message('send it');
  const r = await runner.run({
    message: m,
    policy: resolvePolicy(configSchema.parse({}), m),
    signal: new AbortController().signal,
    onEvent: () => undefined,
  });
  assert.deepEqual(
    r.files?.map((f) => f.name),
    ['reportfdp.exe'],
  );
  assert.match(JSON.stringify(provider.requests[1]!.messages.at(-1)!.content), /attached reportfdp\.exe /);
});

test('send_file is offered and listed by /whoami where ReadOnly tools are permitted, not in chat-only', async (t) => {
  const { runner } = runnerWith(t, []);
  const m = message('hi');
  const readOnly = resolvePolicy(configSchema.parse({ channels: { telegram: { access: 'read-only' } } }), m);
  const chatOnly = resolvePolicy(configSchema.parse({ channels: { telegram: { access: 'chat-only' } } }), m);
  assert.ok(runner.toolsFor(readOnly, m).includes('send_file'));
  assert.ok(!runner.toolsFor(chatOnly, m).includes('send_file'));
});

test('send_file refuses, with a clear tool error, what is not a regular file inside the workspace', async () => {
  const root = tempDir();
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(root, 'secret.txt'), 'host secret');
  symlinkSync(join(root, 'secret.txt'), join(workspace, 'link-out'));
  symlinkSync('../secret.txt', join(workspace, 'relative-out'));
  execFileSync('mkfifo', [join(workspace, 'pipe')]);
  writeFileSync(join(workspace, 'big.bin'), Buffer.alloc(2048));
  mkdirSync(join(workspace, 'dir'));
  const got: AttachedFile[] = [];
  const tool = createSendFileTool({ workspace, maxBytes: 1024, attach: (f) => got.push(f) });
  const cases: [string, RegExp][] = [
    ['../secret.txt', /cannot send \.\.\/secret\.txt: it leads outside the folder/],
    ['/link-out', /cannot send \/link-out: it leads outside the folder/],
    ['relative-out', /cannot send relative-out: it leads outside the folder/],
    ['pipe', /cannot send pipe: it is not a regular file \(a FIFO\)/],
    ['big.bin', /cannot send big\.bin: it is larger than the 1 KB limit .*2048 bytes; the limit is 1024/],
    ['missing.txt', /cannot send missing\.txt: it does not exist/],
    ['dir', /cannot send dir: it is not a regular file \(a directory\)/],
    ['/', /cannot send a file: the path is empty/],
  ];
  for (const [path, expected] of cases) {
    const r = await tool.run({ path }, {});
    assert.equal(r.isError, true, path);
    assert.match(r.content, expected, path);
  }
  assert.deepEqual(got, [], 'nothing was attached');
});

test('at most ten files per answer', async () => {
  const workspace = tempDir();
  writeFileSync(join(workspace, 'a.txt'), 'a');
  const got: AttachedFile[] = [];
  const tool = createSendFileTool({ workspace, maxBytes: 1024, attach: (f) => got.push(f) });
  for (let i = 0; i < 10; i++) assert.equal((await tool.run({ path: 'a.txt' }, {})).isError, false);
  const r = await tool.run({ path: 'a.txt' }, {});
  assert.equal(r.isError, true);
  assert.match(r.content, /at most 10 files per answer/);
  assert.equal(got.length, 10);
});

const replayTitle =
  'a run again of a turn already saved (a crash before its answer reached the outbox) attaches its files again';
test(replayTitle, async (t) => {
  const { runner, workspace } = runnerWith(t, [
    callTools([
      ['send_file', { path: 'a.txt' }],
      ['send_file', { path: 'gone.txt' }],
      ['send_file', { path: 'missing.txt' }],
    ]),
    reply('Two files.'),
  ]);
  writeFileSync(join(workspace, 'a.txt'), 'alpha');
  writeFileSync(join(workspace, 'gone.txt'), 'beta');
  const m = message('files please');
  const run = () =>
    runner.run({
      message: m,
      policy: resolvePolicy(configSchema.parse({}), m),
      signal: new AbortController().signal,
      onEvent: () => undefined,
    });
  const first = await run();
  assert.deepEqual(
    first.files?.map((f) => f.name),
    ['a.txt', 'gone.txt'],
  );
  rmSync(join(workspace, 'gone.txt')); // removed before the run again
  const again = await run(); // no model call: the scripted model has no step left
  assert.equal(again.outcome, 'replayed');
  assert.deepEqual(
    again.files?.map((f) => [f.name, Buffer.from(f.bytes).toString()]),
    [['a.txt', 'alpha']],
  );
  assert.match(again.text, /^Two files\.\n\n\(I could not attach again gone\.txt: it does not exist\.\)$/);
});

test('a run again after the config stopped files being sent here attaches nothing, and says so', async (t) => {
  const { runner, workspace } = runnerWith(t, [callTools([['send_file', { path: 'a.txt' }]]), reply('One file.')]);
  writeFileSync(join(workspace, 'a.txt'), 'alpha');
  const m = message('a file please');
  const run = (config: Record<string, unknown>) =>
    runner.run({
      message: m,
      policy: resolvePolicy(configSchema.parse(config), m),
      signal: new AbortController().signal,
      onEvent: () => undefined,
    });
  assert.deepEqual((await run({})).files?.length, 1);
  // The restart found the turn saved but not delivered, under a config that now denies send_file here.
  for (const telegram of [{ tools: { deny: ['send_file'] } }, { access: 'chat-only' }]) {
    const again = await run({ channels: { telegram } });
    assert.equal(again.outcome, 'replayed');
    assert.equal(again.files, undefined, 'nothing attached');
    assert.match(again.text, /^One file\.\n\n\(I could not attach again a\.txt: send_file (is denied|needs ReadOnly)/);
  }
});

test('a refused send_file reaches the model as a tool error, and nothing is attached to the answer', async (t) => {
  const { runner, provider } = runnerWith(t, [
    callTools([['send_file', { path: '../../etc/passwd' }]]),
    reply('I cannot send that file.'),
  ]);
  const m = message('send me the passwords');
  const r = await runner.run({
    message: m,
    policy: resolvePolicy(configSchema.parse({}), m),
    signal: new AbortController().signal,
    onEvent: () => undefined,
  });
  assert.equal(r.files, undefined);
  const result = provider.requests[1]!.messages.at(-1)!.content.find((p) => p.type === 'tool-result');
  assert.equal(result?.type === 'tool-result' && result.isError, true);
  assert.match(JSON.stringify(result), /cannot send \.\.\/\.\.\/etc\/passwd: it leads outside the folder/);
});
