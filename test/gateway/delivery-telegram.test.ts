// The gateway's delivery guarantees with the real Telegram adapter (grammY) against the Bot API
// emulator: a platform that cannot be reached or fails for a while still gets every answer once
// and in order, without a restart; answers that render too long or empty still arrive; one the
// platform refuses for good is reported once and never retried.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { telegramHarness } from '../emulators/telegram/harness.ts';
import { waitUntil } from '../helpers.ts';
import { FakeAgent, MemoryGatewayStore, until } from './fakes.ts';

async function setup() {
  const h = await telegramHarness();
  const store = new MemoryGatewayStore();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.adapter],
    agent: new FakeAgent(),
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
  await gw.start();
  return { h, gw, store };
}

test('telegram unreachable for many sends (connections cut): every answer arrives once, in order', async (t) => {
  const { h, gw, store } = await setup();
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  h.emulator.failNext({
    methods: ['sendMessage'],
    count: 12,
    network: true,
    error_code: 0,
    description: 'connection cut',
  });
  for (const text of ['first', 'second', 'third']) await h.userSays({ text, direct: true });
  await until(() => h.botMessages().length === 3, 'three answers');
  await gw.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['echo: first', 'echo: second', 'echo: third'],
  );
  assert.deepEqual(await store.pending(), []);
});

test('telegram answering 5xx for many sends: every answer arrives once', async (t) => {
  const { h, gw } = await setup();
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  h.emulator.failNext({ methods: ['sendMessage'], count: 10, error_code: 502, description: 'Bad Gateway' });
  await h.userSays({ text: 'hello', direct: true });
  await until(() => h.botMessages().length === 1, 'the answer');
  await gw.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['echo: hello'],
  );
});

const answerRendersLongerTitle =
  'an answer that renders longer than Telegram allows (rules) arrives whole, split by rendered length';
test(answerRendersLongerTitle, async (t) => {
  // ~4,400 raw; rules render to 10 characters
  const rules = Array.from({ length: 500 }, (_, i) => `item ${i}\n---`).join('\n');
  const h = await telegramHarness();
  const store = new MemoryGatewayStore();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.adapter],
    agent: new FakeAgent(() => rules),
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  await gw.start();
  await h.userSays({ text: 'a long list please', direct: true });
  await until(() => h.botMessages().some((m) => m.text.includes('item 499')), 'the end of the answer');
  await gw.idle();
  const shown = h.botMessages().map((m) => m.text);
  assert.ok(shown.length >= 3, `split into several messages, got ${shown.length}`);
  for (const text of shown) assert.ok(text.length <= 4096, `a message of ${text.length} characters`);
  for (const i of [0, 250, 499])
    assert.equal(shown.filter((m) => m.includes(`item ${i}\n`) || m.endsWith(`item ${i}`)).length, 1, `item ${i} once`);
  assert.deepEqual(await store.pending(), []);
  assert.deepEqual(await store.pendingOutbox(), []);
});

test('an answer that renders to nothing is sent as a placeholder, not refused at every start', async (t) => {
  const h = await telegramHarness();
  const store = new MemoryGatewayStore();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.adapter],
    agent: new FakeAgent(() => '```\n```'),
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  await gw.start();
  await h.userSays({ text: 'say nothing', direct: true });
  await until(() => h.botMessages().length === 1, 'an answer');
  await gw.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['(empty answer)'],
  );
  assert.deepEqual(await store.pendingOutbox(), []);
});

const answerTelegramRefusesTitle =
  'an answer Telegram refuses for good is marked failed, the user told once, and not retried after a restart';
test(answerTelegramRefusesTitle, async (t) => {
  const h = await telegramHarness();
  const store = new MemoryGatewayStore();
  let gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.adapter],
    agent: new FakeAgent(),
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  await gw.start();
  h.emulator.failNext({
    methods: ['sendMessage'],
    when: (p) => /echo/.test(String(p.text)),
    count: 1,
    error_code: 400,
    description: 'Bad Request: TOPIC_CLOSED',
  });
  await h.userSays({ text: 'hello', direct: true });
  await until(() => h.botMessages().length === 1, 'the notice');
  await gw.idle();
  assert.match(h.botMessages()[0]!.text, /could not deliver my answer.*TOPIC_CLOSED/);
  assert.deepEqual(await store.pending(), [], 'the message is answered (by the notice)');
  assert.deepEqual(await store.pendingOutbox(), [], 'the entry is not resumed');
  assert.equal(store.failed.size, 1);
  await gw.stop();
  gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.newAdapter()],
    agent: new FakeAgent(),
    store,
    outbound: { backoffMs: 1 },
  });
  await gw.start();
  await gw.idle();
  assert.equal(h.botMessages().length, 1, 'nothing sent again at the next start');
});

test('429s with retry_after beyond any retry budget: the answer waits them out and arrives once', async (t) => {
  const { h, gw, store } = await setup();
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  // Seven 429s of 0.2 s each (Telegram says whole seconds): the test checks that each is waited out and the
  // answer arrives once, not how long the waits are.
  h.emulator.rateLimitNext(7, 0.2, ['sendMessage']);
  await h.userSays({ text: 'hello', direct: true });
  await waitUntil(() => h.botMessages().length === 1, 'the answer', 20_000);
  await gw.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['echo: hello'],
  );
  assert.equal(gw.metrics.rateLimited.get({ platform: 'telegram' }), 7);
  assert.deepEqual(await store.pending(), []);
});

test('a streamed preview of an answer that renders long is trimmed to fit: Telegram refuses no edit', async (t) => {
  const lines = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `item ${from + i}\n---\n`).join('');
  const answered = (method: string) => h.emulator.calls.filter((c) => c.method === method && c.status === 200).length;
  const agent = new FakeAgent(async (r) => {
    r.onEvent({ type: 'text-delta', text: lines(0, 100) });
    await until(() => answered('sendMessage') === 1, 'the preview');
    r.onEvent({ type: 'text-delta', text: lines(100, 450) });
    // Telegram previews are edited at most once a second: the long one goes out before the answer ends.
    await until(() => answered('editMessageText') === 1, 'the preview edited to the long text');
    return lines(0, 450);
  });
  const h = await telegramHarness();
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [h.adapter],
    agent,
    store: new MemoryGatewayStore(),
    outbound: { backoffMs: 1 },
  });
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  await gw.start();
  await h.userSays({ text: 'a long list please', direct: true });
  await until(() => h.botMessages().some((m) => m.text.includes('item 449')), 'the end of the answer');
  await gw.idle();
  const edits = h.emulator.calls.filter((c) => c.method === 'editMessageText');
  assert.ok(edits.length >= 2, 'the preview was edited as text arrived');
  assert.deepEqual(
    h.emulator.calls.filter((c) => c.status !== 200 && c.method !== 'getUpdates').map((c) => `${c.method} ${c.status}`),
    [],
    'no call refused',
  );
});
