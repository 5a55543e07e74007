// The gateway under faults a user would feel as a lost or late answer: the platform rate
// limiting or down for longer than any retry budget, a send failing unexpectedly, and a full
// disk under the real delivery log. Every answer arrives once, in order, without a restart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError, type InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { silentLogger } from '../../src/core/log.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createAgentRunner } from '../../src/runner/index.ts';
import type { GatewayStore } from '../../src/runner/ports.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createConversations } from '../../src/store/conversations.ts';
import { createDeliveryLog } from '../../src/store/delivery-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import {
  createMemoryState,
  createMemoryStore,
  type MemoryFilesState,
  type Store,
  StoreError,
} from '../../src/store/index.ts';
import { createKv } from '../../src/store/kv.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createSequence } from '../../src/store/sequence.ts';
import { createUsage } from '../../src/store/usage.ts';
import { DEFAULT_FAILED_OUTBOX, validatedDelivery } from '../../src/store/validated.ts';
import { scriptedDeps } from '../agent/loop/helpers.ts';
import { reply, scriptedModel } from '../agent/loop/scripted.ts';
import { tempDir } from '../helpers.ts';
import { FakeAdapter, FakeAgent, inboundMessage, MemoryGatewayStore, until } from './fakes.ts';

function setup(o: { adapter?: FakeAdapter; agent?: FakeAgent; store?: GatewayStore; redriveMs?: number } = {}) {
  const adapter = o.adapter ?? new FakeAdapter();
  const agent = o.agent ?? new FakeAgent();
  const store = o.store ?? new MemoryGatewayStore();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent,
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 5 },
    ...(o.redriveMs ? { redriveMs: o.redriveMs } : {}),
  });
  return { adapter, agent, store, gw };
}

/** The real delivery log (and conversations) on memory files that fail with ENOSPC while `disk.full`. */
function fullableStore(state: MemoryFilesState = createMemoryState()) {
  const disk = { full: false, refused: 0 };
  const enospc = () => (
    disk.refused++, Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
  );
  const base = createMemoryFiles(state, { now: Date.now });
  const files: Files = {
    ...base,
    async write(path, text) {
      if (disk.full) throw enospc();
      return base.write(path, text);
    },
    async openLog(path) {
      const log = await base.openLog(path);
      return {
        async append(text) {
          if (disk.full) throw enospc();
          await log.append(text);
        },
        close: () => log.close(),
      };
    },
  };
  const docs = createDocuments(files, { logger: silentLogger });
  const { close, ...delivery } = createDeliveryLog(docs, {
    now: Date.now,
    seq: createSequence(Date.now),
    logger: silentLogger,
    maxAgeMs: 1e9,
    maxCount: 1000,
    failed: DEFAULT_FAILED_OUTBOX,
  });
  const conversations = createConversations(docs, Date.now);
  const store: GatewayStore = validatedDelivery({
    ...delivery,
    answered: async (key) => !!(await conversations.get(key))?.messages.some((m) => m.role === 'assistant'),
  });
  // The whole store as the agent runner sees it (it reads and saves conversations).
  const raw = { delivery: store, conversations, usage: createUsage(docs), kv: createKv(docs) } as unknown as Store;
  return { disk, store, raw, close };
}

test('a 429 storm longer than any retry budget: every answer arrives, in order, without a restart', async () => {
  const adapter = new FakeAdapter();
  adapter.rateLimits = 40;
  adapter.rateLimitMs = 1;
  const { gw } = setup({ adapter });
  await gw.start();
  for (const t of ['a', 'b', 'c']) await adapter.say(t);
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: a', 'echo: b', 'echo: c']);
  assert.equal(gw.metrics.rateLimited.get({ platform: 'telegram' }), 40);
  await gw.stop();
});

test('the platform down for a while (5xx): answers wait, then arrive in order, without a restart', async () => {
  const adapter = new FakeAdapter();
  adapter.fail503 = 30;
  const { gw, store } = setup({ adapter });
  await gw.start();
  for (const t of ['a', 'b', 'c']) await adapter.say(t);
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: a', 'echo: b', 'echo: c']);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
});

test('an answer whose send failed unexpectedly is delivered again while the gateway runs', async () => {
  const adapter = new FakeAdapter();
  let once = true;
  adapter.beforeSend = () => {
    if (once) {
      once = false;
      throw new Error('socket hang up in a client library');
    }
  };
  const { gw, store } = setup({ adapter, redriveMs: 10 });
  await gw.start();
  await adapter.say('hello');
  await until(() => adapter.texts().length === 1, 'the answer delivered without a restart');
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: hello']);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
});

/** A user message to the fake platform's chat 100, as the platform would deliver it (again). */
const message = (text: string, id: string): InboundMessage => inboundMessage(text, { id, messageId: `u-${id}` });

const diskFullMessageTitle =
  'disk full when a message arrives: held unacknowledged, the user told once, answered once the disk has room';
test(diskFullMessageTitle, async () => {
  const { disk, store, close } = fullableStore();
  const { adapter, gw } = setup({ store });
  await gw.start();
  const msg = message('hello', 'telegram:evt:full');
  disk.full = true;
  let acknowledged = false;
  const first = adapter.sink!(msg).then(() => (acknowledged = true));
  await until(() => adapter.texts().length === 1, 'the user is told');
  const again = adapter.sink!(msg); // the platform's redelivery while the disk is still full
  await until(() => disk.refused >= 3, 'the save was tried again');
  assert.equal(acknowledged, false, 'not acknowledged while it is not saved');
  disk.full = false;
  await Promise.all([first, again]);
  await gw.idle();
  // Told once; the answer then replaced the notice (it does not stay beside the answer).
  assert.deepEqual(
    adapter.calls.filter((c) => c.startsWith('send:')),
    ['send:Sorry, I could not s'],
  );
  assert.deepEqual(adapter.texts(), ['echo: hello']);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
  await close();
});

test('disk full when a message arrives, a newer one after the disk has room: answered in the order sent', async () => {
  // Slack-like: a message not acknowledged comes again only after the ack timeout, by which
  // time the user's next message has been delivered.
  const { disk, store, close } = fullableStore();
  const { adapter, gw } = setup({ store });
  await gw.start();
  const one = message('one', 'slack:evt:1');
  disk.full = true;
  const first = adapter.sink!(one).catch(() => 'refused');
  await until(() => adapter.texts().length === 1, 'the user is told the message is not saved yet');
  disk.full = false;
  const second = adapter.sink!(message('two', 'slack:evt:2'));
  if ((await first) === 'refused') await adapter.sink!(one); // the platform's redelivery, after the newer message
  await second;
  await gw.idle();
  // The notice became the first answer.
  assert.deepEqual(adapter.texts(), ['echo: one', 'echo: two']);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
  await close();
});

const diskFullOnceTitle =
  'disk full once the answer is ready: the user is told, and the answer follows when the disk has room, without a ' +
  'restart';
test(diskFullOnceTitle, async () => {
  const { disk, store, close } = fullableStore();
  const agent = new FakeAgent((r) => {
    disk.full = true; // fills up while the model works: the answer cannot be written to the outbox
    return `echo: ${r.message.text}`;
  });
  const { adapter, gw } = setup({ store, agent });
  await gw.start();
  await adapter.sink!(message('hello', 'telegram:evt:1'));
  await until(() => adapter.texts().length === 1, 'the user is told the answer is late');
  assert.match(adapter.texts()[0]!, /answer is delayed/);
  disk.full = false;
  await gw.idle();
  // The answer replaced the notice (it does not stay beside the answer).
  assert.deepEqual(adapter.texts(), ['echo: hello']);
  assert.deepEqual(await store.pending(), [], 'answered: a restart does not answer it again');
  assert.deepEqual(await store.pendingOutbox(), []);
  await gw.stop();
  await close();
});

const diskFullWhileTitle =
  'disk full while the run saves the history: the answer arrives once the disk has room, not an apology';
test(diskFullWhileTitle, async (t) => {
  const { disk, store, raw, close } = fullableStore();
  // The model answers, then the disk fills before the run saves the conversation's history.
  const provider = scriptedModel(t, [
    () =>
      (async function* () {
        yield* reply('Paris.');
        disk.full = true;
      })(),
  ]);
  const deps = scriptedDeps(provider);
  const agent = createAgentRunner({
    store: raw,
    deps,
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
  });
  const adapter = new FakeAdapter();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent,
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 5 },
  });
  await gw.start();
  await adapter.sink!(message('capital of France?', 'telegram:evt:h1'));
  await until(() => disk.refused >= 2, 'the history save was refused (and tried again)');
  disk.full = false;
  await gw.idle();
  assert.deepEqual(
    adapter.calls.filter((c) => c.startsWith('send:')),
    ['send:Your answer is delay'],
    'told once why the answer is late',
  );
  assert.deepEqual(adapter.texts(), ['Paris.'], 'the answer replaced the notice');
  assert.deepEqual(await store.pending(), [], 'answered: a restart does not answer it again');
  const history = (await raw.conversations.get('telegram:100'))!.messages;
  assert.equal(history.length, 2, 'the turn is saved once');
  await gw.stop();
  await close();
});

test('a chunk the platform calls too long (its count differs from ours) is split again and delivered', async () => {
  // Capabilities say 100, but the platform's own count makes it refuse anything over 60.
  class Stricter extends FakeAdapter {
    override async send(target: Parameters<FakeAdapter['send']>[0], text: string) {
      if (text.length > 60) throw new AdapterApiError('telegram', 400, 'Bad Request: message is too long');
      return super.send(target, text);
    }
  }
  const adapter = new Stricter();
  const answer = 'The quick brown fox jumps over the lazy dog, again and again, until the dog finally wakes.';
  const { gw, store } = setup({ adapter, agent: new FakeAgent(() => answer) });
  await gw.start();
  await adapter.say('tell me a story');
  await gw.idle();
  const texts = adapter.texts();
  assert.ok(texts.length >= 2, JSON.stringify(texts));
  assert.equal(texts.join(' ').replace(/\s+/g, ' '), answer);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
});

test('a chat the platform keeps failing (5xx) does not hold up answers in other chats', async () => {
  class OneBadChat extends FakeAdapter {
    failures = 0;
    override async send(target: Parameters<FakeAdapter['send']>[0], text: string) {
      if (target.chatId === 'bad') {
        this.failures++;
        throw new AdapterApiError('telegram', 500, 'Internal Server Error');
      }
      return super.send(target, text);
    }
  }
  const adapter = new OneBadChat();
  // A long backoff: if the failing chat's wait paused the whole bot, the other answer would wait too.
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent: new FakeAgent(),
    store: new MemoryGatewayStore(),
    outbound: { backoffMs: 60_000 },
  });
  await gw.start();
  await adapter.say('broken', { chatId: 'bad', conversationKey: 'telegram:bad' });
  await until(() => adapter.failures >= 1, 'the failing send was tried');
  await adapter.say('fine', { chatId: 'good', conversationKey: 'telegram:good' });
  await until(() => adapter.texts('good').length === 1, 'the other chat answered');
  assert.deepEqual(adapter.texts('good'), ['echo: fine']);
  await gw.stop();
});

test('killed mid-stream on the real store: after the restart the preview the user saw becomes the answer', async () => {
  const state = createMemoryState();
  const adapter = new FakeAdapter(); // the platform outlives the process
  const first = setup({
    adapter,
    store: createMemoryStore({ state }).delivery,
    agent: new FakeAgent(async (r) => {
      r.onEvent({ type: 'status', text: 'fetching…' });
      return new Promise<string>(() => undefined); // SIGKILL before it answers
    }),
  });
  await first.gw.start();
  await adapter.say('news?');
  await until(
    () => adapter.posted.length === 1 && /"op":"preview"/.test(state.get('delivery.log') ?? ''),
    'the preview is shown and journaled',
  );
  const store = createMemoryStore({ state }); // the restart reads the same files
  const second = setup({ adapter, store: store.delivery, agent: new FakeAgent(() => 'Nothing new today.') });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['Nothing new today.']);
  assert.deepEqual(await store.delivery.pending(), []);
  await second.gw.stop();
  await store.close();
});

const diskFullPreviewTitle =
  'disk full when the preview is shown, killed after the disk has room: the restart edits that preview, no second ' +
  'message';
test(diskFullPreviewTitle, async () => {
  const state = createMemoryState();
  const adapter = new FakeAdapter(); // the platform outlives the process
  const before = fullableStore(state);
  const first = setup({
    adapter,
    store: before.store,
    agent: new FakeAgent(async (r) => {
      before.disk.full = true; // fills while the model works: the preview's id cannot be journaled
      r.onEvent({ type: 'status', text: 'fetching…' });
      return new Promise<string>(() => undefined); // SIGKILL before it answers
    }),
  });
  await first.gw.start();
  await adapter.say('news?');
  await until(
    () => adapter.posted.length === 1 && before.disk.refused >= 1,
    'the preview is shown, its journal write refused',
  );
  before.disk.full = false;
  // Journaled as its own line, or inside the message's record when the log is rewritten after the failure.
  await until(
    () => /"op":"preview"|"previewMessageId"/.test(state.get('delivery.log') ?? ''),
    'the preview is journaled once the disk has room',
  );
  const after = fullableStore(state); // the restart reads the same files
  const second = setup({ adapter, store: after.store, agent: new FakeAgent(() => 'Nothing new today.') });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['Nothing new today.']);
  assert.deepEqual(await after.store.pending(), []);
  await second.gw.stop();
  await after.close();
});

const killedWhileDiskTitle =
  'killed while the disk is full: a preview whose id was not journaled never shows the whole answer, and no new ' +
  'preview starts meanwhile';
test(killedWhileDiskTitle, async () => {
  const state = createMemoryState();
  const adapter = new FakeAdapter(); // the platform outlives the process
  const before = fullableStore(state);
  let parked = 0; // runs waiting for the kill
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const first = setup({
    adapter,
    store: before.store,
    agent: new FakeAgent(async (r) => {
      await released; // both runs are under way when the disk fills
      if (r.message.chatId === 'x') {
        r.onEvent({ type: 'text-delta', text: 'Nothing ' });
        await until(
          () => adapter.texts('x').length === 1 && before.disk.refused >= 1,
          'the preview is shown, its id refused',
        );
        r.onEvent({ type: 'text-delta', text: 'new today.' });
      } else {
        await until(() => adapter.texts('x').length === 1 && before.disk.refused >= 1, 'the store fails');
        r.onEvent({ type: 'text-delta', text: 'All quiet.' });
      }
      // Killed before it answers (the stop below, while the disk is still full, writes nothing).
      const killed = new Promise<string>((_, reject) =>
        r.signal.addEventListener('abort', () => reject(r.signal.reason as Error)),
      );
      parked++;
      return killed;
    }),
  });
  await first.gw.start();
  await adapter.say('news?', { chatId: 'x', conversationKey: 'telegram:x' });
  await adapter.say('status?', { chatId: 'y', conversationKey: 'telegram:y' });
  before.disk.full = true;
  release();
  await until(
    () => parked === 2 && before.disk.refused >= 4,
    'both runs went as far as they could while the store failed',
  );
  await first.gw.stop();
  // The restart on the same files, the disk with room again.
  const after = fullableStore(state);
  const answers: Record<string, string> = { x: 'Nothing new today.', y: 'All quiet.' };
  const second = setup({ adapter, store: after.store, agent: new FakeAgent((r) => answers[r.message.chatId]!) });
  await second.gw.start();
  await second.gw.idle();
  // The preview shown before the disk filled is left behind (its id never reached the disk),
  // but it shows only what it first showed: the answer itself is seen once.
  assert.deepEqual(adapter.texts('x'), ['Nothing', 'Nothing new today.']);
  assert.deepEqual(adapter.texts('y'), ['All quiet.'], 'no preview was started while the store was failing');
  await second.gw.stop();
  await after.close();
});

const startedFullDiskTitle =
  'started on a full disk (the delivery log cannot be repaired yet): the gateway waits for room, then resumes';
test(startedFullDiskTitle, async () => {
  class FullAtStart extends MemoryGatewayStore {
    refusals = 3;
    override async pendingOutbox() {
      if (this.refusals > 0) {
        this.refusals--;
        throw new StoreError('io', 'store I/O failed on delivery.log: ENOSPC: no space left on device');
      }
      return super.pendingOutbox();
    }
  }
  const store = new FullAtStart();
  await store.accept(message('hello', 'telegram:evt:before'));
  const { adapter, gw } = setup({ store });
  await gw.start(); // does not exit: it waits for the store
  await gw.idle();
  assert.equal(store.refusals, 0);
  assert.deepEqual(adapter.texts(), ['echo: hello'], 'the message accepted before the restart is answered');
  await gw.stop();
});
