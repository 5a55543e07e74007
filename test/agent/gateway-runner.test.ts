// The gateway's agent runner over the real (memory) store and a scripted model: what a run
// again of the same message (after a crash) does to the answer and the saved history; what
// /whoami lists against what the model is offered.
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import type { AgentDeps } from '../../src/agent/index.ts';
import type { RegisteredTool } from '../../src/agent/tools/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createAgentRunner, workspaceOf } from '../../src/runner/agent-runner.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { inboundMessage } from '../gateway/fakes.ts';
import { tempDir } from '../helpers.ts';
import { noSandbox, noWasm } from './loop/helpers.ts';
import { reply, type ScriptStep, scriptedModel } from './loop/scripted.ts';

function runnerWith(t: TestContext, steps: ScriptStep[], skills?: AgentDeps['skills'], more: Partial<AgentDeps> = {}) {
  const provider = scriptedModel(t, steps, 'test');
  const deps: AgentDeps = {
    resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
    ...(skills ? { skills } : {}),
    ...more,
  };
  const store = createMemoryStore();
  const runner = createAgentRunner({
    store,
    deps,
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
  });
  return { runner, store, provider };
}

const message = (id: string, text: string): InboundMessage => inboundMessage(text, { id, chatId: '7', userId: '7' });

const runAgainMessageTitle =
  'a run again of a message whose turn was saved answers from the history: no second model call, the turn kept once';
test(runAgainMessageTitle, async (t) => {
  const { runner, store } = runnerWith(t, [reply('Paris.'), reply('Rome.')]);
  const first = message('telegram:7:1', 'capital of France?');
  const policy = resolvePolicy(configSchema.parse({}), first);
  const run = (m: InboundMessage) =>
    runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined });
  const answered = await run(first);
  assert.equal(answered.text, 'Paris.');
  // The gateway may send it before its outbox entry is durable: a run again sends the same text.
  assert.equal(answered.replayable, true, 'the answer is in the saved history as sent');
  // The process died after saving the history, before the answer reached the outbox: run again.
  const again = await run(first);
  assert.equal(again.text, 'Paris.');
  assert.equal(again.outcome, 'replayed');
  assert.equal(again.replayable, true);
  const history = (await store.conversations.get('telegram:7'))!.messages;
  assert.equal(history.length, 2, 'one question, one answer');
  // A new message is a new turn as usual.
  assert.equal((await run(message('telegram:7:2', 'and Italy?'))).text, 'Rome.');
  assert.equal((await store.conversations.get('telegram:7'))!.messages.length, 4);
  await store.close();
});

const readyTitle =
  "the model waits for the message's save (the run's setup does not); a duplicate ends with nothing spent or saved";
test(readyTitle, async (t) => {
  const { runner, store, provider } = runnerWith(t, [reply('Paris.')]);
  const first = message('telegram:7:1', 'capital of France?');
  const policy = resolvePolicy(configSchema.parse({}), first);
  let save!: (fresh: boolean) => void;
  const run = (m: InboundMessage, ready: Promise<boolean>) =>
    runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined, ready });
  const answering = run(first, new Promise<boolean>((r) => (save = r)));
  // The memory store answers in promise steps: a few rounds of the event loop let the setup finish.
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  assert.equal(provider.requests.length, 0, 'the model is not called before the save is durable');
  save(true);
  assert.equal((await answering).text, 'Paris.');
  // A message its save found seen before: no model call (the script has no second step), nothing saved.
  const duplicate = await run(message('telegram:7:2', 'and Italy?'), Promise.resolve(false));
  assert.equal(duplicate.outcome, 'interrupted');
  assert.equal(provider.requests.length, 1);
  assert.equal((await store.conversations.get('telegram:7'))!.messages.length, 2);
  await store.close();
});

const notReplayableTitle =
  'an answer the history does not hold as sent (a failed run) is not replayable: its entry is written first';
test(notReplayableTitle, async (t) => {
  const failing = () =>
    (async function* () {
      yield* [];
      throw new Error('the provider failed');
    })();
  const { runner, store } = runnerWith(t, [failing]);
  const m = message('telegram:7:1', 'hi');
  const policy = resolvePolicy(configSchema.parse({}), m);
  const r = await runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined });
  assert.equal(r.outcome, 'error');
  assert.equal(r.replayable, undefined);
  await store.close();
});

const remadeTitle =
  "a conversation's workspace removed between two messages is made again; an AGENTS.md put there is read";
test(remadeTitle, async (t) => {
  const provider = scriptedModel(t, [reply('One.'), reply('Two.'), reply('Three.')], 'test');
  const deps: AgentDeps = {
    resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
  };
  const store = createMemoryStore();
  const workspacesDir = tempDir();
  const runner = createAgentRunner({ store, deps, workspacesDir, sandbox: { block: [], limits: DEFAULT_LIMITS } });
  const run = (m: InboundMessage) =>
    runner.run({
      message: m,
      policy: resolvePolicy(configSchema.parse({}), m),
      signal: new AbortController().signal,
      onEvent: () => undefined,
    });
  const workspace = workspaceOf(workspacesDir, 'telegram:7');
  assert.equal((await run(message('telegram:7:1', 'one'))).text, 'One.');
  assert.ok(existsSync(workspace), 'the first message made the workspace');
  rmSync(workspace, { recursive: true });
  assert.equal((await run(message('telegram:7:2', 'two'))).text, 'Two.');
  assert.ok(existsSync(workspace), 'the next message made it again');
  assert.doesNotMatch(provider.requests[1]!.system, /AGENTS\.md/);
  writeFileSync(join(workspace, 'AGENTS.md'), 'Answer in French.');
  assert.equal((await run(message('telegram:7:3', 'three'))).text, 'Three.');
  assert.match(provider.requests[2]!.system, /# Workspace instructions \(AGENTS\.md\)\n\nAnswer in French\./);
  await store.close();
});

test('/whoami lists exactly the tools the model is offered: skill, agent and agent_result included', async (t) => {
  const { runner, provider } = runnerWith(t, [reply('Hello.')], {
    list: () => [
      {
        name: 'digest',
        description: 'Summarise the day',
        tools: [],
        args: [],
        body: 'Summarise.',
        file: 'digest/SKILL.md',
        source: 'bundled',
      },
    ],
    get: () => undefined,
  });
  const m = message('telegram:7:1', 'hi');
  const policy = resolvePolicy(configSchema.parse({}), m);
  await runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined });
  const offered = provider.requests[0]!.tools.map((d) => d.name).sort();
  assert.ok(offered.includes('skill') && offered.includes('agent') && offered.includes('agent_result'), `${offered}`);
  assert.deepEqual(runner.toolsFor(policy, m), offered);
});

/** The bundled web_search as the registry lists it (only its name, level and network matter here). */
const bundledSearch: RegisteredTool = {
  source: 'bundled',
  blob: 'unused',
  spec: {
    name: 'web_search',
    program: 'web_search',
    version: '1',
    about: 'Search the web',
    longAbout: '',
    keywords: [],
    permissionLevel: 'ReadOnly',
    network: ['*'],
    inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
    commands: [],
    file: 'web.wasm',
    sha256: '0',
    params: [],
    imports: [],
    notes: [],
  },
};
const searchRegistry: AgentDeps['registry'] = {
  list: () => [bundledSearch],
  get: (n) => (n === 'web_search' ? bundledSearch : undefined),
};

test('web_search is neither offered nor in /whoami with no service configured; with one it is both', async (t) => {
  const m = message('telegram:7:1', 'hi');
  const policy = resolvePolicy(configSchema.parse({}), m);
  const offeredBy = async (more: Partial<AgentDeps>) => {
    const { runner, provider } = runnerWith(t, [reply('Hello.')], undefined, { registry: searchRegistry, ...more });
    await runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined });
    return { model: provider.requests[0]!.tools.map((d) => d.name), whoami: runner.toolsFor(policy, m) };
  };
  const none = await offeredBy({});
  assert.ok(!none.model.includes('web_search'), `${none.model}`);
  assert.ok(!none.whoami.includes('web_search'), `${none.whoami}`);
  const grant = { hosts: ['http://127.0.0.1:8888'], block: [], env: { BOXBOT_SEARCH_PROVIDER: 'searxng' } };
  const configured = await offeredBy({ hostGrants: { web_search: grant } });
  assert.ok(configured.model.includes('web_search'), `${configured.model}`);
  assert.ok(configured.whoami.includes('web_search'), `${configured.whoami}`);
});

test("a signed-in web browser's tools are built for the identity it signed in as, not the browser", async (t) => {
  const provider = scriptedModel(t, [reply('ok')], 'test');
  const seen: string[] = [];
  const runner = createAgentRunner({
    store: createMemoryStore(),
    deps: {
      resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
      registry: noWasm,
      sandbox: noSandbox,
      costOf: () => 0,
    },
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
    // The schedule tool takes its job's creator (budget, rights) from this context.
    builtinsFor: (ctx) => {
      seen.push(ctx.userKey);
      return [];
    },
  });
  const msg = inboundMessage('hi', {
    platform: 'web',
    chatId: 'b1',
    userId: 'owner-digest',
    signedInAs: 'telegram:4242',
  });
  const config = configSchema.parse({});
  await runner.run({
    message: msg,
    policy: resolvePolicy(config, msg),
    signal: new AbortController().signal,
    onEvent: () => {},
  });
  assert.deepEqual(seen, ['telegram:4242']);
});
