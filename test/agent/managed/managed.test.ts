// Managed agents through runAgent, over the LLM emulator (the OpenAI SDK on the wire) and the real
// sandboxed `read` and `write` tools: a manager that can only delegate, three executors in
// parallel (one writes in a copy, one hits its turn cap, one whose provider fails), the copy's
// changes applied once as a patch, the checklist a chat would show, and /stop stopping them all.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ExecutorStatus } from '../../../src/agent/index.ts';
import { resolveModel } from '../../../src/agent/providers/index.ts';
import { type AgentDeps, type AgentPolicy, runAgent } from '../../../src/agent/run-agent.ts';
import { type RegisteredTool, registerFile } from '../../../src/agent/tools/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { type LlmEmulator, llm, type RecordedRequest, startLlmEmulator } from '../../emulators/llm/index.ts';
import { root, tempDir } from '../../helpers.ts';

let sandbox: Sandbox;
let emu: LlmEmulator;
const wasm = new Map<string, RegisteredTool>();

before(async () => {
  sandbox = createSandbox({
    cacheDir: join(root, '.cache', 'sandbox-test'),
    workers: 2,
    workerFile: compiledSandboxWorker(),
  });
  for (const name of ['read', 'write']) {
    const reg = await registerFile(sandbox, join(root, 'tools', 'dist', `${name}.wasm`), tempDir('boxbot-tools-'));
    wasm.set(name, { spec: reg.spec, blob: reg.blob, source: 'bundled' });
  }
  emu = await startLlmEmulator();
});
after(async () => {
  await sandbox.close();
  await emu.close();
});

const AGENTS = {
  writer: { description: 'writes notes', model: 'emu/writer', tools: ['write', 'read'], isolation: 'copy' },
  looper: { description: 'reads forever', model: 'emu/looper', tools: ['read'], maxTurns: 2, isolation: 'copy' },
  broken: { model: 'emu/broken', isolation: 'shared' },
} as const;

/** The executors' models, which the managed conversations allow (an executor may use no other). */
const EXECUTOR_MODELS = ['emu/writer', 'emu/looper', 'emu/broken', 'emu/searcher'];

function deps(): AgentDeps {
  const config = configSchema.parse({
    providers: { emu: { type: 'openai-compatible', baseURL: emu.openaiBaseURL } },
    agents: AGENTS,
    channels: {
      telegram: { models: EXECUTOR_MODELS, manager: { executors: ['writer', 'looper', 'broken'], maxConcurrent: 3 } },
    },
  });
  return {
    resolveModel: (spec) => resolveModel(spec ?? 'emu/manager', { config, secrets: {}, retry: { maxRetries: 0 } }),
    registry: { list: () => [...wasm.values()], get: (n) => wasm.get(n) },
    sandbox,
    costOf: () => 0.001,
    agents: config.agents!,
  };
}

function managedPolicy(workspace: string, maxConcurrent = 3): AgentPolicy {
  return {
    access: 'full',
    tools: {},
    workspace,
    network: { allow: [], block: ['private'] },
    limits: { ...DEFAULT_LIMITS, timeoutMs: 20_000 },
    model: 'emu/manager',
    models: EXECUTOR_MODELS,
    manager: { executors: ['writer', 'looper', 'broken'], maxConcurrent },
  };
}

/** A workspace in a folder of its own (executors' private copies go beside it). */
function workspaceDir(): string {
  const dir = join(tempDir('boxbot-managed-'), 'ws');
  mkdirSync(dir);
  return dir;
}

const modelOf = (r: RecordedRequest) => String(r.body?.model ?? '');
const lastToolResult = (r: RecordedRequest): string => {
  const tool = (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool');
  return String(tool.at(-1)?.content ?? '');
};

const threeTitle = 'a manager delegates to three executors at once; one fails, one hits its turn cap, a copy applies';
test(threeTitle, async () => {
  const workspace = workspaceDir();
  writeFileSync(join(workspace, 'readme.md'), 'the original\n');
  const managerRequests: RecordedRequest[] = [];
  const firstCalls = new Set<string>();
  let release: () => void = () => {};
  const allStarted = new Promise<void>((resolve) => {
    release = resolve;
  });
  let workspaceBeforeApply: boolean | undefined;
  emu.respond(async (req) => {
    const model = modelOf(req);
    if (model === 'manager') {
      managerRequests.push(req);
      const n = managerRequests.length;
      if (n === 1)
        return llm.answer([
          llm.toolCalls(
            llm.call('delegate', {
              tasks: [
                { executor: 'writer', task: 'Write notes.md saying hello', description: 'notes' },
                { executor: 'looper', task: 'Read readme.md again and again', description: 'loop' },
                { executor: 'broken', task: 'Anything', description: 'broken' },
              ],
            }),
          ),
        ]);
      if (n === 2) {
        workspaceBeforeApply = existsSync(join(workspace, 'notes.md'));
        return llm.answer([llm.toolCalls(llm.call('apply_patch', { id: 'patch-1' }))]);
      }
      if (n === 3) return llm.answer([llm.toolCalls(llm.call('apply_patch', { id: 'patch-1' }))]);
      return llm.say('All done.');
    }
    // Each executor's first call waits until all three have called: they run at once, or this never ends.
    const first = !firstCalls.has(model);
    firstCalls.add(model);
    if (first && firstCalls.size === 3) release();
    if (first) await allStarted;
    if (model === 'broken') return llm.fail(400, { message: 'this model is not available' });
    if (model === 'looper') return llm.answer([llm.toolCalls(llm.call('read', { file_path: '/readme.md' }))]);
    const messages = req.body.messages as { role: string }[];
    if (!messages.some((m) => m.role === 'tool'))
      return llm.answer([llm.toolCalls(llm.call('write', { file_path: '/notes.md', content: 'hello\n' }))]);
    return llm.say('I wrote notes.md.');
  });
  const boards: ExecutorStatus[][] = [];
  const r = await runAgent({
    input: 'Split this up.',
    policy: managedPolicy(workspace),
    deps: deps(),
    onEvent: (e) => {
      if (e.type === 'executors') boards.push(e.items);
    },
  });
  assert.equal(r.outcome, 'final', r.error);
  assert.equal(r.text, 'All done.');

  // The manager was offered delegation only: no Write or Execute tool, no file tool at all.
  const offered = (managerRequests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
  assert.deepEqual(offered.sort(), ['apply_patch', 'delegate', 'reject_patch']);

  // What the manager read back: each executor's outcome, the failure and the turn cap named.
  const report = lastToolResult(managerRequests[1]!);
  assert.match(report, /^1 of 3 executor\(s\) done\./);
  assert.match(report, /## writer: notes\ndone after 2 turn\(s\)/);
  assert.match(report, /## looper: loop\nreached its turn limit after 2 turn\(s\)/);
  assert.match(report, /## broken: broken\nfailed: .*not available/);
  assert.match(report, /patch-1 from writer: 1 file\(s\)\nadded notes\.md \(6 bytes\)\n {2}@@ line 1 @@\n {2}\+hello/);

  // The copy's change reached the workspace only when applied, and only once.
  assert.equal(workspaceBeforeApply, false);
  assert.equal(lastToolResult(managerRequests[2]!), 'patch-1 applied: 1 file(s) written');
  assert.equal(lastToolResult(managerRequests[3]!), 'Error: patch-1 was already applied');
  assert.equal(readFileSync(join(workspace, 'notes.md'), 'utf8'), 'hello\n');
  assert.equal(readFileSync(join(workspace, 'readme.md'), 'utf8'), 'the original\n');

  // The checklist a chat shows: all three waiting, then running, then each one's end.
  assert.deepEqual(
    boards[0]!.map((s) => s.state),
    ['waiting', 'waiting', 'waiting'],
  );
  const last = boards.at(-1)!;
  assert.deepEqual(
    last.map((s) => [s.executor, s.state, s.detail]),
    [
      ['writer', 'done', '2 turn(s)'],
      ['looper', 'failed', 'reached its turn limit'],
      ['broken', 'failed', 'failed'],
    ],
  );
  assert.ok(last[0]!.costUsd > 0, 'the writer spent something');
  assert.ok(
    boards.some((b) => b.filter((s) => s.state === 'running').length === 3),
    'the three ran at once',
  );
  // Private copies are gone once their patches were taken.
  const scratch = join(workspace, '..', '.executors');
  assert.deepEqual(existsSync(scratch) ? readdirSync(scratch) : [], []);
});

test('a patch whose file changed in the workspace meanwhile is reported as a conflict and writes nothing', async () => {
  const workspace = workspaceDir();
  writeFileSync(join(workspace, 'plan.md'), 'v1\n');
  let n = 0;
  emu.respond((req) => {
    const model = modelOf(req);
    if (model === 'manager') {
      n++;
      if (n === 1)
        return llm.answer([
          llm.toolCalls(llm.call('delegate', { tasks: [{ executor: 'writer', task: 'Rewrite plan.md' }] })),
        ]);
      if (n === 2) {
        // Someone edits the workspace while the manager decides.
        writeFileSync(join(workspace, 'plan.md'), 'v2 by a person\n');
        return llm.answer([llm.toolCalls(llm.call('apply_patch', { id: 'patch-1' }))]);
      }
      return llm.say('Could not apply.');
    }
    const messages = req.body.messages as { role: string }[];
    if (!messages.some((m) => m.role === 'tool'))
      return llm.answer([llm.toolCalls(llm.call('write', { file_path: '/plan.md', content: 'v2 by the executor\n' }))]);
    return llm.say('Rewritten.');
  });
  const d = deps();
  const r = await runAgent({ input: 'Go.', policy: managedPolicy(workspace), deps: d });
  assert.equal(r.outcome, 'final', r.error);
  const applied = r.messages.flatMap((m) =>
    m.content.flatMap((p) => (p.type === 'tool-result' && /patch-1/.test(p.content) ? [p.content] : [])),
  );
  assert.match(
    applied.at(-1)!,
    new RegExp(
      '^patch-1 not applied, nothing was written; conflicts:\n' +
        'plan\\.md: changed by the executor, but changed in the workspace since it started$',
    ),
  );
  assert.equal(readFileSync(join(workspace, 'plan.md'), 'utf8'), 'v2 by a person\n');
});

test('/stop during a managed run stops every executor and the manager', async () => {
  const workspace = workspaceDir();
  const ctl = new AbortController();
  let started = 0;
  emu.respond((req) => {
    const model = modelOf(req);
    if (model === 'manager')
      return llm.answer([
        llm.toolCalls(
          llm.call('delegate', {
            tasks: [
              { executor: 'writer', task: 'Take your time' },
              { executor: 'looper', task: 'Take your time too' },
            ],
          }),
        ),
      ]);
    if (++started === 2) setImmediate(() => ctl.abort());
    return llm.answer([llm.hang()]);
  });
  const boards: ExecutorStatus[][] = [];
  const r = await runAgent({
    input: 'Go.',
    policy: managedPolicy(workspace),
    deps: deps(),
    signal: ctl.signal,
    onEvent: (e) => {
      if (e.type === 'executors') boards.push(e.items);
    },
  });
  assert.equal(r.outcome, 'cancelled');
  assert.deepEqual(
    boards.at(-1)!.map((s) => s.state),
    ['stopped', 'stopped'],
  );
});

test('config: a manager naming an executor that agents does not define is refused, naming it', () => {
  const parsed = configSchema.safeParse({
    agents: { writer: { isolation: 'copy' } },
    channels: { slack: { channels: { C1: { manager: { executors: ['writer', 'ghost'] } } } } },
  });
  assert.equal(parsed.success, false);
  assert.deepEqual(
    parsed.error?.issues.map((i) => [i.path.join('.'), i.message]),
    [['channels.slack.channels.C1.manager.executors.1', 'no executor "ghost" in agents (known: writer)']],
  );
});

test('an executor is offered web_search exactly when the gateway configured a search service', async () => {
  // The bundled web_search as listed (never called here): what matters is whether the executor is offered it.
  const search: RegisteredTool = { ...wasm.get('read')!, spec: { ...wasm.get('read')!.spec, name: 'web_search' } };
  const config = configSchema.parse({
    providers: { emu: { type: 'openai-compatible', baseURL: emu.openaiBaseURL } },
    agents: { searcher: { model: 'emu/searcher', tools: ['web_search', 'read'], isolation: 'shared' } },
  });
  const executorTools: string[][] = [];
  emu.respond(async (req) => {
    if (modelOf(req) === 'searcher') {
      executorTools.push(((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name));
      return llm.say('Nothing to search.');
    }
    const messages = req.body.messages as { role: string }[];
    if (messages.some((m) => m.role === 'tool')) return llm.say('Done.');
    return llm.answer([
      llm.toolCalls(llm.call('delegate', { tasks: [{ executor: 'searcher', task: 'Look it up', description: 's' }] })),
    ]);
  });
  const runWith = async (hostGrants: AgentDeps['hostGrants']) => {
    const r = await runAgent({
      input: 'Find it.',
      policy: { ...managedPolicy(workspaceDir()), manager: { executors: ['searcher'], maxConcurrent: 1 } },
      deps: {
        resolveModel: (spec) => resolveModel(spec ?? 'emu/manager', { config, secrets: {}, retry: { maxRetries: 0 } }),
        registry: { list: () => [wasm.get('read')!, search], get: (n) => (n === 'web_search' ? search : wasm.get(n)) },
        sandbox,
        costOf: () => 0.001,
        agents: config.agents!,
        ...(hostGrants ? { hostGrants } : {}),
      },
    });
    assert.equal(r.outcome, 'final', r.error);
  };
  await runWith(undefined);
  await runWith({ web_search: { hosts: ['http://127.0.0.1:8888'], block: [], env: {} } });
  assert.deepEqual(
    executorTools.map((names) => names.includes('web_search')),
    [false, true],
    `${JSON.stringify(executorTools)}`,
  );
});

const refusedAtLoad = 'an executor whose model its channel does not allow is refused at config load, naming all three';
test(refusedAtLoad, () => {
  const parsed = configSchema.safeParse({
    model: 'openai/gpt-5.4',
    agents: { coder: { model: 'anthropic/claude-opus-5', isolation: 'copy' }, plain: { isolation: 'shared' } },
    channels: {
      slack: {
        models: ['openai/gpt-5.4-mini'],
        channels: {
          C1: { manager: { executors: ['plain', 'coder'] } },
          C2: { models: ['anthropic/claude-opus-5'], manager: { executors: ['coder'] } },
        },
      },
    },
  });
  assert.equal(parsed.success, false);
  assert.deepEqual(
    parsed.error?.issues.map((i) => [i.path.join('.'), i.message]),
    [
      [
        'channels.slack.channels.C1.manager.executors.1',
        'executor "coder" uses model anthropic/claude-opus-5, which channels.slack.channels.C1 does not allow ' +
          '(it allows openai/gpt-5.4, openai/gpt-5.4-mini): add it to channels.slack.channels.C1\'s "models"',
      ],
    ],
  );
});

const refusedAtRun = 'at delegation, an executor whose model the run’s policy does not allow is refused; others run';
test(refusedAtRun, async () => {
  const workspace = workspaceDir();
  const called: string[] = [];
  let report = '';
  emu.respond((req) => {
    const model = modelOf(req);
    called.push(model);
    if (model !== 'manager') return llm.say('Wrote it.');
    const messages = req.body.messages as { role: string }[];
    if (messages.some((m) => m.role === 'tool')) {
      report = lastToolResult(req);
      return llm.say('Reported.');
    }
    return llm.answer([
      llm.toolCalls(
        llm.call('delegate', {
          tasks: [
            { executor: 'writer', task: 'Write', description: 'w' },
            { executor: 'broken', task: 'Anything', description: 'b' },
          ],
        }),
      ),
    ]);
  });
  // A user's narrower policy: only the writer's model among the executors' ones.
  const policy = { ...managedPolicy(workspace), models: ['emu/writer'] };
  const r = await runAgent({ input: 'Go.', policy, deps: deps() });
  assert.equal(r.outcome, 'final', r.error);
  assert.deepEqual(
    called.filter((m) => m !== 'manager'),
    ['writer'],
    'the refused executor made no model call',
  );
  assert.match(
    report,
    new RegExp(
      '## broken: b\nrefused: executor "broken" uses model emu/broken, which this conversation does not allow ' +
        '\\(it allows emu/manager, emu/writer\\)',
    ),
  );
  assert.match(report, /## writer: w\ndone after 1 turn\(s\)/);
});
