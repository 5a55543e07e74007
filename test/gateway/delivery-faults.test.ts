// The gateway under faults a user would feel as a lost or late answer: the platform rate
// limiting or down for longer than any retry budget, a send failing unexpectedly, and a full
// disk under the real delivery log. Every answer arrives once, in order, without a restart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { silentLogger } from '../../src/log.ts';
import { createConversations } from '../../src/store/conversations.ts';
import { createDeliveryLog } from '../../src/store/delivery-log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createSequence } from '../../src/store/sequence.ts';
import type { GatewayStore } from '../../src/gateway/ports.ts';
import { AdapterApiError, type InboundMessage } from '../../src/adapters/index.ts';
import { FakeAdapter, FakeAgent, MemoryGatewayStore, until } from './fakes.ts';

function setup(o: { adapter?: FakeAdapter; agent?: FakeAgent; store?: GatewayStore; redriveMs?: number } = {}) {
  const adapter = o.adapter ?? new FakeAdapter();
  const agent = o.agent ?? new FakeAgent();
  const store = o.store ?? new MemoryGatewayStore();
  const gw = createGateway({ config: configSchema.parse({}), adapters: [adapter], agent, store, outbound: { backoffMs: 1, maxBackoffMs: 5 }, ...(o.redriveMs ? { redriveMs: o.redriveMs } : {}) });
  return { adapter, agent, store, gw };
}

/** The real delivery log (and conversations) on memory files that fail with ENOSPC while `disk.full`. */
function fullableStore() {
  const disk = { full: false };
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  const base = createMemoryFiles(new Map(), { now: Date.now });
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
  const { close, ...delivery } = createDeliveryLog(docs, { now: Date.now, seq: createSequence(Date.now), logger: silentLogger, maxAgeMs: 1e9, maxCount: 1000 });
  const conversations = createConversations(docs, Date.now);
  const store: GatewayStore = { ...delivery, answered: async (key) => !!(await conversations.get(key))?.messages.some((m) => m.role === 'assistant') };
  return { disk, store, close };
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
const message = (text: string, id: string): InboundMessage => ({
  id,
  platform: 'telegram',
  conversationKey: 'telegram:100',
  chatId: '100',
  messageId: `u-${id}`,
  userId: '42',
  userName: 'ada',
  text,
  isDirect: true,
  mentionsBot: false,
  attachments: [],
  receivedAt: new Date().toISOString(),
  raw: {},
});

test('disk full when a message arrives: not acknowledged, the user told once, answered once it comes again', async () => {
  const { disk, store, close } = fullableStore();
  const { adapter, gw } = setup({ store });
  await gw.start();
  const msg = message('hello', 'telegram:evt:full');
  disk.full = true;
  await assert.rejects(adapter.sink!(msg), /ENOSPC/, 'not acknowledged: the platform delivers it again');
  await assert.rejects(adapter.sink!(msg), /ENOSPC/, 'the redelivery while the disk is still full');
  disk.full = false;
  await adapter.sink!(msg);
  await gw.idle();
  const texts = adapter.texts();
  assert.equal(texts.length, 2, JSON.stringify(texts));
  assert.match(texts[0]!, /could not save your message/);
  assert.equal(texts[1], 'echo: hello');
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
  await close();
});

test('disk full once the answer is ready: the user is told, and the answer follows when the disk has room, without a restart', async () => {
  const { disk, store, close } = fullableStore();
  const agent = new FakeAgent((r) => {
    disk.full = true; // fills up while the model works: the answer cannot be written to the outbox
    return `echo: ${r.message.text}`;
  });
  const { adapter, gw } = setup({ store, agent });
  await gw.start();
  await adapter.sink!(message('hello', 'telegram:evt:1'));
  await until(() => adapter.texts().length === 1, 'the user is told the answer is late');
  assert.match(adapter.texts()[0]!, /could not be saved/);
  disk.full = false;
  await gw.idle();
  assert.deepEqual(adapter.texts().slice(1), ['echo: hello']);
  assert.deepEqual(await store.pending(), [], 'answered: a restart does not answer it again');
  assert.deepEqual(await store.pendingOutbox(), []);
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
  const gw = createGateway({ config: configSchema.parse({}), adapters: [adapter], agent: new FakeAgent(), store: new MemoryGatewayStore(), outbound: { backoffMs: 60_000 } });
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
  await until(() => adapter.posted.length === 1 && /"op":"preview"/.test(state.get('delivery.log') ?? ''), 'the preview is shown and journaled');
  const store = createMemoryStore({ state }); // the restart reads the same files
  const second = setup({ adapter, store: store.delivery, agent: new FakeAgent(() => 'Nothing new today.') });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['Nothing new today.']);
  assert.deepEqual(await store.delivery.pending(), []);
  await second.gw.stop();
  await store.close();
});
