// runAgent, the one entry of the CLI and the gateway: the system prompt it assembles, the
// events a UI gets, and the result `boxbot ask --format json` prints.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import {
  type AgentDeps,
  type AgentEvent,
  type AgentPolicy,
  type Message,
  runAgent,
  staticSkillCatalog,
} from '../../../src/agent/index.ts';
import { MAX_AGENTS_MD_BYTES } from '../../../src/agent/system-prompt.ts';
import { createLogger } from '../../../src/core/log.ts';
import { tempDir } from '../../helpers.ts';
import { builtin, noSandbox, noWasm, policy } from './helpers.ts';
import { callTools, reply, type ScriptStep, scriptedModel } from './scripted.ts';

function deps(t: TestContext, steps: ScriptStep[], over: Partial<AgentDeps> = {}) {
  const provider = scriptedModel(t, steps, 'test');
  const d: AgentDeps = {
    resolveModel: (spec) => ({ provider, model: (spec ?? 'test/default').split('/')[1]!, id: spec ?? 'test/default' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: (model, u) => (model === 'test/default' ? (u.inputTokens + u.outputTokens) / 1e6 : undefined),
    ...over,
  };
  return { provider, d };
}

test('the system prompt is the base, AGENTS.md, the skills and the conversation prompt, in that order', async (t) => {
  const workspace = tempDir();
  writeFileSync(join(workspace, 'AGENTS.md'), 'Use tabs in this repo.\n');
  const skills = staticSkillCatalog([
    {
      name: 'haiku',
      description: 'Answer in a haiku.\nMore detail.',
      tools: [],
      args: [],
      body: 'Write a haiku.',
      file: 'x',
      source: 'bundled',
    },
  ]);
  const { provider, d } = deps(t, [reply('ok')], { skills, basePrompt: 'BASE' });
  const pol: AgentPolicy = { ...policy('full'), workspace, systemPrompt: 'You are in #general.' };
  await runAgent({ input: 'hi', policy: pol, deps: d });
  assert.equal(
    provider.requests[0]!.system,
    'BASE\n\n# Workspace instructions (AGENTS.md)\n\nUse tabs in this repo.\n\n# Skills\n\nLoad one with the skill ' +
      'tool when the task matches:\n- haiku: Answer in a haiku.\n\n# This conversation\n\nYou are in #general.',
  );
  assert.deepEqual(
    provider.requests[0]!.tools.map((x) => x.name),
    ['skill', 'agent', 'agent_result'],
  );
});

test('an AGENTS.md written, changed or removed between two runs is what the next run is told', async (t) => {
  const workspace = tempDir();
  const { provider, d } = deps(t, [reply('1'), reply('2'), reply('3'), reply('4')], { basePrompt: 'BASE' });
  const pol: AgentPolicy = { ...policy('full'), workspace };
  const told = async () => {
    await runAgent({ input: 'hi', policy: pol, deps: d });
    return provider.requests.at(-1)!.system;
  };
  assert.equal(await told(), 'BASE');
  writeFileSync(join(workspace, 'AGENTS.md'), 'Use tabs.\n');
  assert.equal(await told(), 'BASE\n\n# Workspace instructions (AGENTS.md)\n\nUse tabs.');
  writeFileSync(join(workspace, 'AGENTS.md'), 'Use spaces.\n');
  assert.equal(await told(), 'BASE\n\n# Workspace instructions (AGENTS.md)\n\nUse spaces.');
  rmSync(join(workspace, 'AGENTS.md'));
  assert.equal(await told(), 'BASE');
});

test('an AGENTS.md that is a symlink out, a FIFO, a device or too big is left out, and the run goes on', async (t) => {
  // A tool with write access may have made it: the host must not follow it to its secrets
  // (/proc/self/environ held the API keys), hang on a FIFO or read without a bound.
  const secret = join(tempDir('boxbot-secret-'), 'keys.env');
  writeFileSync(secret, 'ANTHROPIC_API_KEY=sk-ant-stolen\n');
  process.env.BOXBOT_TEST_ENVIRON_MARKER = 'environ-marker-7f3a';
  const cases: [string, (ws: string) => void][] = [
    ['symlink to a file outside', (ws) => symlinkSync(secret, join(ws, 'AGENTS.md'))],
    ['symlink to /proc/self/environ', (ws) => symlinkSync('/proc/self/environ', join(ws, 'AGENTS.md'))],
    [
      'path through a symlinked directory',
      (ws) => {
        const dir = tempDir('boxbot-outside-');
        writeFileSync(join(dir, 'AGENTS.md'), 'sk-ant-stolen');
        symlinkSync(dir, join(ws, 'sub'));
        symlinkSync('sub/AGENTS.md', join(ws, 'AGENTS.md'));
      },
    ],
    ['FIFO', (ws) => execFileSync('mkfifo', [join(ws, 'AGENTS.md')])],
    ['device', (ws) => symlinkSync('/dev/zero', join(ws, 'AGENTS.md'))],
    ['oversized', (ws) => writeFileSync(join(ws, 'AGENTS.md'), `sk-ant-stolen ${'x'.repeat(MAX_AGENTS_MD_BYTES)}`)],
  ];
  for (const [what, make] of cases) {
    const workspace = tempDir();
    make(workspace);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: new Writable({
        write: (c, _e, done) => {
          lines.push(String(c));
          done();
        },
      }),
    });
    const { provider, d } = deps(t, [reply('ok')], { logger });
    const r = await runAgent({ input: 'hi', policy: { ...policy('full'), workspace }, deps: d });
    assert.equal(r.outcome, 'final', what);
    const system = provider.requests[0]!.system;
    assert.doesNotMatch(system, /sk-ant-stolen|environ-marker-7f3a|# Workspace instructions/, what);
    assert.ok(
      lines.some((l) => l.includes('AGENTS.md ignored')),
      `${what}: nothing logged`,
    );
  }
});

test('without AGENTS.md, skills or a conversation prompt, only the base prompt is sent', async (t) => {
  const { provider, d } = deps(t, [reply('ok')]);
  await runAgent({ input: 'hi', policy: policy('chat-only'), deps: d });
  assert.match(provider.requests[0]!.system, /^You are boxbot/);
  assert.doesNotMatch(provider.requests[0]!.system, /# (Skills|Workspace|This conversation)/);
});

test('a run returns what `ask --format json` prints and leaves the given history untouched', async (t) => {
  const read = builtin('read', 'ReadOnly', async () => ({ content: 'SECRET-FILE-CONTENTS', isError: false }));
  const { d } = deps(
    t,
    [callTools([['read', { file_path: 'src/main.ts' }]], 'Looking.'), reply('It starts the CLI.')],
    { builtins: [read] },
  );
  const history: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'earlier' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'yes?' }] },
  ];
  const events: AgentEvent[] = [];
  const r = await runAgent({
    history,
    input: 'what does main.ts do?',
    policy: policy('read-only'),
    deps: d,
    onEvent: (e) => events.push(e),
  });
  assert.equal(history.length, 2);
  assert.deepEqual(
    { text: r.text, outcome: r.outcome, toolCalls: r.toolCalls, usage: r.usage, costUsd: r.costUsd },
    {
      text: 'It starts the CLI.',
      outcome: 'final',
      toolCalls: [{ name: 'read', input: { file_path: 'src/main.ts' }, isError: false }],
      usage: { inputTokens: 200, outputTokens: 40 },
      costUsd: 0.00024,
    },
  );
  assert.equal(r.messages.length, 6);
  const statuses = events
    .filter((e) => e.type === 'tool-start' || e.type === 'tool-end')
    .map((e) => ('status' in e ? e.status : ''));
  assert.deepEqual(statuses, ['reading src/main.ts…', 'read done']);
  // The output travels only in its own field of the end (for a UI that redacts it), never in a status line.
  const withoutOutput = events.map((e) => (e.type === 'tool-end' ? { ...e, output: undefined } : e));
  assert.ok(!JSON.stringify(withoutOutput).includes('SECRET-FILE-CONTENTS'), 'no status line carries tool output');
  const end = events.find((e) => e.type === 'tool-end');
  assert.deepEqual(
    end?.type === 'tool-end' ? [end.output, end.outputChars] : [],
    ['SECRET-FILE-CONTENTS', 20],
    "the end carries the start of the tool's output",
  );
});

test('an unknown model is an error result naming it, not a crash', async (t) => {
  const { d } = deps(t, [], {
    resolveModel: (spec) => {
      throw new Error(`unknown provider in model ${String(spec)}; expected provider/model`);
    },
  });
  const r = await runAgent({ input: 'hi', policy: { ...policy('full'), model: 'nope' }, deps: d });
  assert.equal(r.outcome, 'error');
  assert.equal(r.error, 'unknown provider in model nope; expected provider/model');
});

test('the policy’s timeout ends a hanging run with outcome timeout', async (t) => {
  const { d } = deps(t, [
    (_req, signal) =>
      (async function* () {
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
        yield { type: 'finish' as const, reason: 'stop' as const };
      })(),
  ]);
  const r = await runAgent({ input: 'hi', policy: { ...policy('full'), timeoutMs: 20 }, deps: d });
  assert.equal(r.outcome, 'timeout');
});
