// Sub-agents through runAgent: the child's tools are a subset of the parent's, nesting is
// bounded, spending rolls up into the parent's budget, background runs are fetched with
// agent_result, and cancelling the parent cancels the children.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { resolveModel } from '../../../src/agent/providers/index.ts';
import { type AgentDeps, type AgentPolicy, runAgent } from '../../../src/agent/run-agent.ts';
import type { BuiltinTool } from '../../../src/agent/tools/builtin.ts';
import type { StreamPart } from '../../../src/agent/types.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { startLlmEmulator } from '../../emulators/llm/index.ts';
import { builtin, noSandbox, noWasm, policy } from '../loop/helpers.ts';
import { callTools, hangAfter, reply, type ScriptedModel, type ScriptStep, scriptedModel } from '../loop/scripted.ts';

function deps(
  t: TestContext,
  parent: ScriptStep[],
  child: ScriptStep[],
  builtins: BuiltinTool[],
  over: Partial<AgentDeps> = {},
) {
  const models: Record<string, ScriptedModel> = {
    'test/parent': scriptedModel(t, parent, 'test'),
    'test/child': scriptedModel(t, child, 'test'),
  };
  const d: AgentDeps = {
    resolveModel(spec) {
      const id = spec ?? 'test/parent';
      const provider = models[id];
      if (!provider) throw new Error(`unknown model ${id}`);
      return { provider, model: id.split('/')[1]!, id };
    },
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0.01,
    builtins,
    ...over,
  };
  return { d, parent: models['test/parent']!, child: models['test/child']! };
}

const agentCall = (input: Record<string, unknown>, id = 'a1'): [string, unknown, string] => [
  'agent',
  { description: 'look around', prompt: 'Find the answer.', model: 'test/child', ...input },
  id,
];
/** The tool result at `index` in the last message of the model's `call`-th request. */
const resultOf = (p: ScriptedModel, call: number, index = 0): { content: string; isError: boolean } => {
  const part = p.requests[call]!.messages.at(-1)!.content[index]!;
  assert.ok(part.type === 'tool-result', `expected a tool result, got ${part.type}`);
  return { content: part.content, isError: part.isError };
};

test('a sub-agent gets only tools its parent may use, never more, and not agent by default', async (t) => {
  const echo = builtin('echo', 'None');
  const read = builtin('read', 'ReadOnly');
  const write = builtin('write', 'Write');
  const { d, parent, child } = deps(
    t,
    [
      callTools([agentCall({ tools: ['read', 'write'] })]),
      callTools([agentCall({ tools: ['read'] })]),
      callTools([agentCall({})]),
      reply('done'),
    ],
    [callTools([['echo', { text: 'sneaky' }]]), reply('read-only answer'), reply('default answer')],
    [echo, read, write],
  );
  const pol: AgentPolicy = { ...policy('read-only'), model: 'test/parent', models: ['test/child'] };
  const r = await runAgent({ input: 'go', policy: pol, deps: d });
  assert.equal(r.outcome, 'final');
  assert.deepEqual(resultOf(parent, 1), {
    content: 'the sub-agent cannot have tools you do not have: write; yours: echo, read, agent, agent_result',
    isError: true,
  });
  assert.deepEqual(
    child.requests[0]!.tools.map((x) => x.name),
    ['read'],
  );
  const refused = resultOf(child, 1);
  assert.deepEqual(refused, { content: "refused: echo is not among this sub-agent's tools", isError: true });
  assert.equal(echo.calls.length, 0);
  assert.deepEqual(resultOf(parent, 2), { content: 'read-only answer', isError: false });
  assert.deepEqual(
    child.requests[2]!.tools.map((x) => x.name),
    ['echo', 'read'],
    'default: the parent’s tools without agent',
  );
  assert.deepEqual(resultOf(parent, 3), { content: 'default answer', isError: false });
  assert.match(child.requests[0]!.system, /^You are a sub-agent of boxbot/);
});

test('nesting is bounded: a sub-agent at depth 2 cannot start another one', async (t) => {
  const echo = builtin('echo', 'None');
  // parent → child (depth 1, asked for agent) → grandchild (depth 2). All children use test/child.
  const { d, parent, child } = deps(
    t,
    [callTools([agentCall({ tools: ['echo', 'agent'] })]), reply('top done')],
    [
      callTools([agentCall({ tools: ['echo', 'agent'] }, 'b1')]), // child: a grandchild that could nest again
      callTools([agentCall({ tools: ['echo'] }, 'b2')]), // child: a plain grandchild
      reply('grandchild answer'), // grandchild at depth 2
      reply('child done'),
    ],
    [echo],
  );
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'] },
    deps: d,
  });
  assert.equal(r.outcome, 'final');
  assert.deepEqual(
    child.requests[0]!.tools.map((x) => x.name),
    ['echo', 'agent', 'agent_result'],
  );
  assert.deepEqual(resultOf(child, 1), {
    content: 'a sub-agent at depth 2 cannot start sub-agents (the limit is 2)',
    isError: true,
  });
  assert.deepEqual(
    child.requests[2]!.tools.map((x) => x.name),
    ['echo'],
    'the grandchild has no agent tool',
  );
  assert.deepEqual(resultOf(child, 3), { content: 'grandchild answer', isError: false });
  assert.deepEqual(resultOf(parent, 1), { content: 'child done', isError: false });
});

test('with maxSubagentDepth 1 a sub-agent cannot nest, and 0 removes the agent tool', async (t) => {
  const { d, parent, child } = deps(t, [callTools([agentCall({ tools: ['agent'] })]), reply('ok')], [], []);
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'], maxSubagentDepth: 1 },
    deps: d,
  });
  assert.equal(r.outcome, 'final');
  assert.deepEqual(resultOf(parent, 1), {
    content: 'a sub-agent at depth 1 cannot start sub-agents (the limit is 1)',
    isError: true,
  });
  assert.equal(child.requests.length, 0);
  const { d: d0, parent: p0 } = deps(t, [reply('no agents here')], [], []);
  await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'], maxSubagentDepth: 0 },
    deps: d0,
  });
  assert.deepEqual(
    p0.requests[0]!.tools.map((x) => x.name),
    [],
  );
});

test('a sub-agent’s tokens and cost count in the parent’s result', async (t) => {
  const echo = builtin('echo', 'None');
  const { d } = deps(
    t,
    [callTools([agentCall({})]), reply('ok')],
    [callTools([['echo', { text: 'x' }]]), reply('child')],
    [echo],
  );
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'] },
    deps: d,
  });
  assert.equal(r.costUsd, 0.04);
  assert.deepEqual(r.usage, { inputTokens: 400, outputTokens: 80 });
  assert.deepEqual(r.toolCalls, [
    {
      name: 'agent',
      input: { description: 'look around', prompt: 'Find the answer.', model: 'test/child' },
      isError: false,
    },
  ]);
});

test('a sub-agent’s spending stops the parent at its budget', async (t) => {
  const echo = builtin('echo', 'None');
  const { d } = deps(
    t,
    [callTools([agentCall({})])],
    [callTools([['echo', { text: '1' }]]), callTools([['echo', { text: '2' }]])],
    [echo],
  );
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'], budgetUsd: 0.025 },
    deps: d,
  });
  assert.equal(r.outcome, 'budget-exceeded');
  assert.deepEqual(r.cost, { knownUsd: 0.03, unknownCalls: 0, limitUsd: 0.025 });
  assert.equal(echo.calls.length, 1);
  const childReport = r.messages.at(-1)!.content[0]!;
  assert.ok(
    childReport.type === 'tool-result' &&
      childReport.isError &&
      /stopped early: the session budget is spent/.test(childReport.content),
    JSON.stringify(childReport),
  );
});

test('a background sub-agent returns an id at once and agent_result fetches its answer', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const slowChild: ScriptStep = () =>
    (async function* () {
      await released;
      yield* reply('background answer') as StreamPart[];
    })();
  const { d, parent } = deps(
    t,
    [
      callTools([agentCall({ background: true })]),
      () => {
        release();
        return (async function* () {
          yield* callTools([['agent_result', { id: 'agent-1' }]]);
        })();
      },
      reply('got it'),
    ],
    [slowChild],
    [],
  );
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'] },
    deps: d,
  });
  assert.equal(r.outcome, 'final');
  assert.deepEqual(resultOf(parent, 1), {
    content: 'started sub-agent agent-1 in the background; call agent_result with id "agent-1" for its answer',
    isError: false,
  });
  assert.deepEqual(resultOf(parent, 2), { content: 'background answer', isError: false });
  assert.equal(r.costUsd, 0.04);
});

test('agent_result says so when the sub-agent is still running, and an unknown id is an error', async (t) => {
  const { d, parent } = deps(
    t,
    [
      callTools([agentCall({ background: true })]),
      callTools([
        ['agent_result', { id: 'agent-1', wait_ms: 0 }],
        ['agent_result', { id: 'agent-9' }],
      ]),
      reply('later'),
    ],
    [hangAfter('working')],
    [],
  );
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'] },
    deps: d,
  });
  assert.equal(r.outcome, 'final');
  assert.deepEqual(resultOf(parent, 2, 0), {
    content: 'sub-agent agent-1 (look around) is still running after 0 s; call agent_result again later',
    isError: false,
  });
  assert.deepEqual(resultOf(parent, 2, 1), { content: 'there is no background sub-agent "agent-9"', isError: true });
});

test('cancelling the parent cancels a running sub-agent; a finished run stops its background ones', async (t) => {
  const ctl = new AbortController();
  const seen: { signal?: AbortSignal } = {};
  const hang = hangAfter('child working', seen);
  const { d } = deps(
    t,
    [callTools([agentCall({})])],
    [
      (req, signal) => {
        queueMicrotask(() => ctl.abort());
        return (hang as (r: typeof req, s: AbortSignal) => AsyncIterable<StreamPart>)(req, signal);
      },
    ],
    [],
  );
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'] },
    deps: d,
    signal: ctl.signal,
  });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(seen.signal?.aborted, true);

  const bg: { signal?: AbortSignal } = {};
  const { d: d2 } = deps(
    t,
    [callTools([agentCall({ background: true })]), reply('bye')],
    [hangAfter('forever', bg)],
    [],
  );
  const r2 = await runAgent({
    input: 'go',
    policy: { ...policy('full'), model: 'test/parent', models: ['test/child'] },
    deps: d2,
  });
  assert.equal(r2.outcome, 'final');
  assert.equal(bg.signal?.aborted, true, 'the background sub-agent was stopped with the run');
});

const subAgentModelTitle =
  'a sub-agent model the policy does not list is refused, naming the allowed ones, and no request reaches its provider';
test(subAgentModelTitle, async (t) => {
  const other = await startLlmEmulator();
  t.after(() => other.close());
  // A keyless local endpoint, as the lmstudio/ollama presets are: the host itself would POST there.
  const config = configSchema.parse({
    providers: { local: { type: 'openai-compatible', baseURL: other.openaiBaseURL } },
  });
  const { parent } = deps(
    t,
    [
      callTools([agentCall({ model: 'local/big-model' })]),
      callTools([agentCall({ model: 'test/child' })]),
      reply('done'),
    ],
    [],
    [],
  );
  const d: AgentDeps = {
    resolveModel: (spec) =>
      spec?.startsWith('local/')
        ? resolveModel(spec, { config, secrets: {} })
        : { provider: parent, model: 'parent', id: 'test/parent' },
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
  };
  const r = await runAgent({ input: 'go', policy: { ...policy('read-only'), model: 'test/parent' }, deps: d });
  assert.equal(r.outcome, 'final');
  const refusal = resultOf(parent, 1);
  assert.equal(refusal.isError, true);
  assert.match(
    refusal.content,
    /^model local\/big-model is not allowed in this conversation; sub-agents may use: test\/parent/,
  );
  assert.match(
    resultOf(parent, 2).content,
    /^model test\/child is not allowed/,
    'without a models list only the conversation model is allowed',
  );
  assert.equal(other.requests.length, 0, 'no request reached the other provider');
});

test('a model the policy lists is allowed to sub-agents', async (t) => {
  const { d, parent, child } = deps(t, [callTools([agentCall({})]), reply('done')], [reply('child answer')], []);
  const r = await runAgent({
    input: 'go',
    policy: { ...policy('read-only'), model: 'test/parent', models: ['test/child'] },
    deps: d,
  });
  assert.equal(r.outcome, 'final');
  assert.deepEqual(resultOf(parent, 1), { content: 'child answer', isError: false });
  assert.equal(child.requests.length, 1);
});
