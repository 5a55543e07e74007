// The turn's two overlaps and what they must not change: a run starts while its message's save
// is written, yet nothing reaches the model or the platform (and the platform is not acknowledged)
// before that save is durable; an answer's end is written after the reply went out, yet the
// conversation's next answer waits for it, and a crash before it is written behaves as a crash
// just before it always did (the unfinished entry is delivered again at the restart, in order).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { AgentRunner, AgentRunReply, AgentRunRequest } from '../../src/runner/ports.ts';
import { FakeAdapter, FakeAgent, inboundMessage, MemoryGatewayStore, until } from './fakes.ts';

function setup(o: { adapter?: FakeAdapter; agent?: AgentRunner; store: MemoryGatewayStore }) {
  const adapter = o.adapter ?? new FakeAdapter();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent: o.agent ?? new FakeAgent(),
    store: o.store,
    outbound: { backoffMs: 5 },
  });
  return { adapter, gw };
}

/** A promise and the call that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const earlyTitle =
  'a run starts while its message is saved; the model, the platform and the acknowledgement wait for the save';
test(earlyTitle, async () => {
  const store = new MemoryGatewayStore();
  const save = deferred();
  const accept = store.accept.bind(store);
  store.accept = async (m) => {
    await save.promise;
    return accept(m);
  };
  // A runner that notes when it was called and when it was allowed to go on, as the real one does.
  const began: string[] = [];
  const agent: AgentRunner = {
    async run(req: AgentRunRequest): Promise<AgentRunReply> {
      began.push(`run ${req.message.text}`);
      if (req.ready && !(await req.ready)) return { text: '', outcome: 'interrupted' };
      began.push(`model ${req.message.text}`);
      return { text: `echo: ${req.message.text}`, outcome: 'final' };
    },
    reset: async () => undefined,
    toolsFor: () => [],
  };
  const { adapter, gw } = setup({ store, agent });
  await gw.start();
  let acknowledged = false;
  const sunk = adapter.sink!(inboundMessage('hello', { id: 'telegram:evt:1' })).then(() => {
    acknowledged = true;
  });
  await until(() => began.length === 1, 'the run started');
  assert.deepEqual(began, ['run hello'], 'the model is not asked before the save is durable');
  assert.equal(acknowledged, false, 'the platform is not acknowledged before the save is durable');
  assert.deepEqual(adapter.calls, [], 'nothing reached the platform');
  save.resolve();
  await sunk;
  await gw.idle();
  assert.deepEqual(began, ['run hello', 'model hello']);
  assert.deepEqual(adapter.texts(), ['echo: hello']);
  // The same event again: its run starts as early, learns it is a duplicate, and ends having done nothing.
  await adapter.sink!(inboundMessage('hello', { id: 'telegram:evt:1' }));
  await gw.idle();
  assert.deepEqual(began, ['run hello', 'model hello', 'run hello']);
  assert.deepEqual(adapter.texts(), ['echo: hello']);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
});

test('a message whose save fails for good is never answered by the run that started early', async () => {
  const store = new MemoryGatewayStore();
  store.accept = async () => {
    throw new Error('the store refuses');
  };
  const agent = new FakeAgent();
  const { adapter, gw } = setup({ store, agent });
  await gw.start();
  // A webhook's message (the platform redelivers it): tried once, refused, left to the platform.
  await assert.rejects(
    gw.handle(inboundMessage('hello', { id: 'telegram:evt:1' }), { redelivers: true }),
    /the store refuses/,
  );
  await gw.idle();
  assert.deepEqual(agent.seen, [], 'the model was not asked');
  assert.deepEqual(
    adapter.texts().filter((t) => t.includes('echo')),
    [],
  );
  await gw.stop();
});

/** A store whose answer ends (finishOutbox) wait until `ends` is released; `held` lists those waiting. */
function heldEnds(store: MemoryGatewayStore) {
  const ends = deferred();
  const held: string[] = [];
  const finishOutbox = store.finishOutbox.bind(store);
  store.finishOutbox = async (id, answered) => {
    held.push(id);
    await ends.promise;
    return finishOutbox(id, answered);
  };
  return { ends, held };
}

const say = (adapter: FakeAdapter, text: string, n: number): Promise<InboundMessage> =>
  adapter.say(text, { id: `telegram:evt:${n}`, messageId: `u${n}` });

test("an answer's end is written after the reply; the conversation's next answer waits for it", async () => {
  const store = new MemoryGatewayStore();
  const { ends, held } = heldEnds(store);
  const { adapter, gw } = setup({ store });
  await gw.start();
  await say(adapter, 'one', 1);
  await until(() => adapter.texts().length === 1 && held.length === 1, 'the first answer is out, its end pending');
  await say(adapter, 'two', 2);
  // Another conversation is not held by it.
  await adapter.say('elsewhere', { id: 'telegram:evt:3', chatId: '200', conversationKey: 'telegram:200' });
  await until(() => adapter.texts('200').length === 1, 'the other conversation is answered');
  assert.deepEqual(adapter.texts('100'), ['echo: one'], 'the second answer waits for the first one’s end');
  ends.resolve();
  await gw.idle();
  assert.deepEqual(adapter.texts('100'), ['echo: one', 'echo: two']);
  assert.deepEqual(await store.pending(), []);
  assert.deepEqual(await store.pendingOutbox(), []);
  await gw.stop();
});

const killedTitle =
  'killed after an answer went out, before its end was written: the restart sends it again, then the next, once each';
test(killedTitle, async () => {
  const store = new MemoryGatewayStore();
  const platform = new FakeAdapter(); // the platform outlives the gateway process
  const { held } = heldEnds(store);
  const first = setup({ store, adapter: platform });
  await first.gw.start();
  await say(platform, 'one', 1);
  await say(platform, 'two', 2);
  await until(() => held.length === 1 && platform.texts().length === 1, 'the first answer is out, its end pending');
  assert.deepEqual(platform.texts(), ['echo: one'], 'the second answer waits for the first one’s end');
  // Crash: the end never reaches the store; a new gateway starts on what the store holds.
  const finishOutbox = MemoryGatewayStore.prototype.finishOutbox;
  store.finishOutbox = finishOutbox.bind(store);
  const second = setup({ store, adapter: platform });
  await second.gw.start();
  await second.gw.idle();
  // As a crash between the platform taking an answer and its end always did: the entry is unfinished, so its
  // last message goes again (a platform without idempotent sends shows it twice); then the next answer, once.
  assert.deepEqual(platform.texts(), ['echo: one', 'echo: one', 'echo: two']);
  assert.deepEqual(await store.pending(), []);
  assert.deepEqual(await store.pendingOutbox(), []);
  await second.gw.stop();
});

test("stop waits for an answer's end that is being written", async () => {
  const store = new MemoryGatewayStore();
  const { ends, held } = heldEnds(store);
  const { adapter, gw } = setup({ store });
  await gw.start();
  await say(adapter, 'one', 1);
  await until(() => held.length === 1, 'the answer is out, its end pending');
  let stopped = false;
  const stopping = gw.stop().then(() => {
    stopped = true;
  });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(stopped, false, 'stop is still waiting for the end');
  ends.resolve();
  await stopping;
  assert.deepEqual(await store.pending(), [], 'the message is answered: a restart does not answer it again');
  assert.deepEqual(await store.pendingOutbox(), []);
});
