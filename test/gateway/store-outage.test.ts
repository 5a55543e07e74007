// The gateway while its store (a database) is down, through the real Telegram adapter and
// emulator: webhook requests are refused at once (Telegram redelivers), a conversation gets one
// storage-failure notice per outage however many copies of its messages meet the failure, its
// answer replaces that notice, and its messages are answered in Telegram's order whatever order
// they were saved in.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createMemoryStore, type DeliveryStore, StoreError } from '../../src/store/index.ts';
import { ADA, telegramHarness } from '../emulators/telegram/harness.ts';
import { FakeAdapter, FakeAgent, inboundMessage, memoryLeases, until } from './fakes.ts';

const NOTICE = /could not save your message/;

/** The real delivery journal (in memory), failing every call like an unreachable database while `down`. */
function switchableStore() {
  const inner = createMemoryStore().delivery;
  const sw = { down: false, refused: 0 };
  const store = new Proxy(inner, {
    get(target, name) {
      const v = Reflect.get(target, name) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (!sw.down) return (v as (...a: unknown[]) => unknown).apply(target, args);
        sw.refused++;
        return Promise.reject(new StoreError('io', 'connect ECONNREFUSED 127.0.0.1:5432'));
      };
    },
  }) as DeliveryStore;
  return { store, sw };
}

async function telegramGateway(t: TestContext, mode: 'webhook' | 'polling') {
  const h = await telegramHarness({ mode });
  const { store, sw } = switchableStore();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.adapter],
    agent: new FakeAgent(),
    store,
    outbound: { backoffMs: 5, maxBackoffMs: 20 },
  });
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  await gw.start();
  const chat = String(ADA.id);
  const texts = () => h.emulator.botMessages(chat).map((m) => m.text);
  return { h, gw, sw, texts };
}

test('webhook while the store is down: refused at once, one notice, and the answer replaces it', async (t) => {
  const { h, sw, texts } = await telegramGateway(t, 'webhook');
  sw.down = true;
  await h.userSays({ text: 'first', direct: true });
  // Telegram retries a refused update; each try is answered (5xx) instead of held open.
  await until(
    () => h.emulator.webhookAttempts.filter((a) => a.status >= 500).length >= 4,
    'several refused webhook requests',
  );
  await h.userSays({ text: 'second', direct: true });
  assert.equal(texts().filter((x) => NOTICE.test(x)).length, 1, `one notice, not ${JSON.stringify(texts())}`);
  sw.down = false;
  await until(() => texts().includes('echo: second'), 'both answers');
  assert.deepEqual(texts(), ['echo: first', 'echo: second'], 'the notice became the first answer');
  assert.equal(h.emulator.botMessages(String(ADA.id))[0]!.edits > 0, true);
});

test('polling while the store is down: the held message is answered over its notice', async (t) => {
  const { h, sw, texts } = await telegramGateway(t, 'polling');
  sw.down = true;
  await h.userSays({ text: 'held', direct: true });
  await until(() => texts().some((x) => NOTICE.test(x)), 'the notice');
  const refused = sw.refused;
  await until(() => sw.refused >= refused + 3, 'the save retried');
  sw.down = false;
  await until(() => texts().includes('echo: held'), 'the answer');
  assert.deepEqual(texts(), ['echo: held'], 'no notice left beside the answer');
});

test('messages saved out of order are answered in the platform’s order', async (t) => {
  const adapter = new FakeAdapter();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const agent = new FakeAgent(async (r) => {
    if (r.message.text === 'm8') await held; // the conversation is busy while m10 and m9 arrive
    return `echo: ${r.message.text}`;
  });
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent,
    store: createMemoryStore().delivery,
  });
  t.after(() => gw.stop());
  await gw.start();
  const tg = (n: number): InboundMessage =>
    inboundMessage(`m${n}`, { id: `telegram:1:${n}`, messageId: String(n), order: String(n) });
  await adapter.sink!(tg(8));
  await until(() => agent.seen.length === 1, 'm8 running');
  // Replicas (or Telegram's parallel redeliveries) saved the newer one first.
  await adapter.sink!(tg(10));
  await adapter.sink!(tg(9));
  release();
  await until(() => adapter.posted.length === 3, 'three answers');
  assert.deepEqual(
    adapter.posted.map((p) => p.text),
    ['echo: m8', 'echo: m9', 'echo: m10'],
  );
});

test('a redelivered message is not accepted while an earlier one of its conversation is known unsaved', async (t) => {
  const adapter = new FakeAdapter();
  const { store, sw } = switchableStore();
  const gw = createGateway({ config: configSchema.parse({}), adapters: [adapter], agent: new FakeAgent(), store });
  t.after(() => gw.stop());
  await gw.start();
  const tg = (n: number): InboundMessage =>
    inboundMessage(`m${n}`, { id: `telegram:1:${n}`, messageId: String(n), order: String(n) });
  const webhook = { redelivers: true };
  sw.down = true;
  let refused: unknown;
  adapter.sink!(tg(9), webhook).catch((e: unknown) => (refused = e));
  await until(() => refused !== undefined, 'm9 refused at once');
  assert.match(String(refused), /ECONNREFUSED/);
  sw.down = false;
  // The store is back, but m9 is not saved: m10 waits for the platform to deliver both again.
  await assert.rejects(adapter.sink!(tg(10), webhook), /earlier message/);
  await adapter.sink!(tg(9), webhook);
  await adapter.sink!(tg(10), webhook);
  await until(() => adapter.posted.filter((p) => p.text.startsWith('echo')).length === 2, 'two answers');
  assert.deepEqual(
    adapter.posted.map((p) => p.text),
    ['echo: m9', 'echo: m10'],
    'the notice became m9’s answer',
  );
});

test('replicas: messages saved out of order by another replica are answered in the platform’s order', async (t) => {
  const store = createMemoryStore().delivery;
  let reads = 0;
  const pending = store.pending.bind(store);
  store.pending = (key?: string) => {
    reads++;
    return pending(key);
  };
  const leases = memoryLeases();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const agent = () =>
    new FakeAgent(async (r) => {
      if (r.message.text === 'm8') await held; // the owner is busy while the others arrive
      return `echo: ${r.message.text}`;
    });
  const adapters = [new FakeAdapter(), new FakeAdapter()];
  const gws = adapters.map((adapter, i) =>
    createGateway({
      config: configSchema.parse({}),
      adapters: [adapter],
      agent: agent(),
      store,
      cluster: { leases, holder: `replica-${i}`, sweepMs: 10 },
    }),
  );
  t.after(async () => {
    for (const gw of gws) await gw.stop();
  });
  for (const gw of gws) await gw.start();
  const tg = (n: number): InboundMessage =>
    inboundMessage(`m${n}`, { id: `telegram:1:${n}`, messageId: String(n), order: String(n) });
  await adapters[0]!.sink!(tg(8));
  await until(() => leases.leaders().includes('replica-0'), 'replica-0 owns the conversation');
  // Held through an outage, the newer update was saved first, by the other replica.
  await adapters[1]!.sink!(tg(10));
  await adapters[1]!.sink!(tg(9));
  const from = reads;
  await until(() => reads >= from + 6, 'sweeps after both were saved');
  release();
  const answers = () => adapters.flatMap((a) => a.posted.map((p) => p.text));
  await until(() => answers().length === 3, 'three answers');
  assert.deepEqual(
    adapters[0]!.posted.map((p) => p.text),
    ['echo: m8', 'echo: m9', 'echo: m10'],
  );
});
