// Approvals across a restart that changed the config, through the whole gateway (a fake platform
// with buttons, the real agent runner, a memory store kept across the restart, a scripted model):
// only who is an approver now decides, a question whose approvers changed is withdrawn and asked
// anew, one the run no longer asks is withdrawn, and a call the policy now forbids is refused
// whatever was approved before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgentRunner } from '../../src/agent/gateway-runner.ts';
import type { AgentDeps, ModelRequest, Provider, StreamPart } from '../../src/agent/index.ts';
import type { BuiltinTool } from '../../src/agent/tools/builtin.ts';
import { configSchema } from '../../src/config/schema.ts';
import { APPROVERS_CHANGED, NOT_WAITED_ON } from '../../src/gateway/approvals.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import type { MemoryFilesState } from '../../src/store/memory-files.ts';
import { noSandbox, noWasm } from '../agent/loop/helpers.ts';
import { callTools, reply } from '../agent/loop/scripted.ts';
import { tempDir } from '../helpers.ts';
import { FakeAdapter, fakeCapabilities, inboundMessage, until } from './fakes.ts';

/** A model answering from a queue shared across restarts. */
function scriptedModel() {
  const steps: StreamPart[][] = [];
  const requests: ModelRequest[] = [];
  const provider: Provider = {
    name: 'test',
    stream: (req) => {
      requests.push(structuredClone(req));
      const step = steps.shift();
      if (!step) throw new Error(`model call ${requests.length} was not scripted`);
      return (async function* () {
        yield* step;
      })();
    },
  };
  return { provider, requests, script: (...s: StreamPart[][]) => steps.push(...s) };
}

/** A Write tool that counts its runs. */
function writeTool() {
  const runs: unknown[] = [];
  const t: BuiltinTool = {
    name: 'write',
    description: 'write test tool',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false },
    permissionLevel: 'Write',
    async run(input) {
      runs.push(input);
      return { content: `write done: ${String(input.path)}`, isError: false };
    },
  };
  return { t, runs };
}

/** A gateway on `state` with the telegram config `telegram`; boot again on the same state and adapter to restart. */
function boot(
  model: ReturnType<typeof scriptedModel>,
  state: MemoryFilesState,
  telegram: Record<string, unknown>,
  tool: BuiltinTool,
  adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 })),
) {
  const store = createMemoryStore({ state });
  const deps: AgentDeps = {
    resolveModel: (spec) => ({ provider: model.provider, model: 'default', id: spec ?? 'test/default' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0.001,
    builtins: [tool],
  };
  const agent = createAgentRunner({
    store,
    deps,
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
  });
  const gw = createGateway({
    config: configSchema.parse({ channels: { telegram: { access: 'full', ...telegram } } }),
    adapters: [adapter],
    agent,
    store: store.delivery,
    approvals: store.approvals,
    outbound: { backoffMs: 5 },
  });
  return { gw, adapter, store };
}

const lastToolResult = (req: ModelRequest | undefined): string => {
  const part = req?.messages.at(-1)?.content.find((p) => p.type === 'tool-result');
  return part?.type === 'tool-result' ? part.content : '';
};
const questions = (a: FakeAdapter) => a.posted.filter((p) => p.text.startsWith('Approval needed'));
const idOf = (text: string) => /\(([a-z0-9]+)\)/.exec(text)![1]!;

/** First start: a run asks about write(x) and the gateway stops while the question waits. */
async function questionLeftPending(telegram: Record<string, unknown>) {
  const model = scriptedModel();
  const state = createMemoryState();
  const write = writeTool();
  const first = boot(model, state, telegram, write.t);
  await first.gw.start();
  model.script(callTools([['write', { path: 'x' }]]));
  await first.adapter.say('save x');
  await until(() => questions(first.adapter).some((q) => q.buttons?.length), 'the question');
  await first.gw.stop();
  return { model, state, write, adapter: first.adapter, id: idOf(questions(first.adapter)[0]!.text) };
}

test('restart with other approvers: old question withdrawn, removed approver cannot decide, new ones can', async () => {
  const { model, state, write, adapter, id } = await questionLeftPending({
    approvals: { levels: ['Write'], approvers: ['boss'] },
  });
  const old = questions(adapter)[0]!;
  model.script(callTools([['write', { path: 'x' }]]), reply('Saved x.'));
  const second = boot(model, state, { approvals: { levels: ['Write'], approvers: ['chief'] } }, write.t, adapter);
  await second.gw.start();
  await until(() => questions(adapter).length === 2, 'asked anew');
  await until(() => old.text.endsWith(APPROVERS_CHANGED), 'the old question says why it was withdrawn');
  assert.equal(old.buttons, undefined);
  const fresh = questions(adapter)[1]!;
  assert.match(fresh.text, /Who decides: users chief\./);
  await adapter.sink!({
    ...inboundMessage('', { id: 'telegram:press:old', userId: 'boss' }),
    action: { id: `ap:${id}:y`, messageId: old.messageId, handle: 'h' },
  });
  assert.match(adapter.pressAnswers.at(-1)!.text, /already expired/, 'a press on the old buttons');
  await adapter.press('Approve', { userId: 'boss' });
  assert.equal(adapter.pressAnswers.at(-1)!.text, 'Only chief may decide this.');
  assert.equal(write.runs.length, 0);
  await adapter.press('Approve', { userId: 'chief' });
  await until(() => adapter.texts().includes('Saved x.'), 'the answer');
  await second.gw.idle();
  assert.equal(write.runs.length, 1);
  await second.gw.stop();
});

test('restart after approvals were turned off: the call runs without asking, the old question withdrawn', async () => {
  const { model, state, write, adapter, id } = await questionLeftPending({
    approvals: { levels: ['Write'], approvers: ['boss'] },
  });
  model.script(callTools([['write', { path: 'x' }]]), reply('Saved x.'));
  const second = boot(model, state, {}, write.t, adapter);
  await second.gw.start();
  await until(() => adapter.texts().includes('Saved x.'), 'the answer');
  await second.gw.idle();
  assert.equal(write.runs.length, 1);
  const old = questions(adapter)[0]!;
  await until(() => old.text.endsWith(NOT_WAITED_ON), 'the old question withdrawn');
  assert.equal(old.buttons, undefined, 'no button left that would approve nothing');
  assert.equal((await second.store.approvals.get(id))?.state, 'expired');
  await second.gw.stop();
});

for (const [what, forbidding] of [
  ['denied by name', { tools: { deny: ['write'] } }],
  ['above the chat’s access', { access: 'read-only' }],
] as const)
  test(`restart after the tool was forbidden here (${what}): a call approved before is refused, not run`, async () => {
    const approvals = { levels: ['Write'], approvers: ['boss'] };
    const { model, state, write, adapter, id } = await questionLeftPending({ approvals });
    // The approver's press was taken just before the restart: approved, not yet run.
    await createMemoryStore({ state }).approvals.decide(id, 'approved', new Date().toISOString(), 'boss');
    model.script(callTools([['write', { path: 'x' }]]), reply('Could not save.'));
    const next = boot(model, state, { approvals, ...forbidding }, write.t, adapter);
    await next.gw.start();
    await until(() => adapter.texts().includes('Could not save.'), 'the answer');
    await next.gw.idle();
    assert.match(lastToolResult(model.requests.at(-1)), /^refused: /);
    assert.equal(write.runs.length, 0, 'the approval does not outlive the policy');
    await next.gw.stop();
  });

test('restart after the requester lost access: the message is refused and its old question withdrawn', async () => {
  const approvals = { levels: ['Write'], approvers: ['boss'] };
  const { model, state, write, adapter, id } = await questionLeftPending({ approvals });
  const next = boot(model, state, { approvals, allowFrom: ['7'] }, write.t, adapter);
  await next.gw.start();
  const old = questions(adapter)[0]!;
  await until(() => old.text.endsWith(NOT_WAITED_ON), 'the old question withdrawn');
  assert.equal(old.buttons, undefined);
  assert.equal((await next.store.approvals.get(id))?.state, 'expired');
  await until(() => adapter.texts().some((t) => t.includes('not set up to talk with you')), 'the refusal');
  assert.equal(write.runs.length, 0);
  await next.gw.stop();
});
