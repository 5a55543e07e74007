// The gateway's delivery guarantees with the real Telegram adapter (grammY) against the Bot API
// emulator: a platform that cannot be reached for a while, and one that rate limits, still get
// every answer once and in order, without a restart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { telegramHarness } from '../emulators/telegram/harness.ts';
import { FakeAgent, MemoryGatewayStore, until } from './fakes.ts';

async function setup() {
  const h = await telegramHarness();
  const store = new MemoryGatewayStore();
  const gw = createGateway({ config: configSchema.parse({}), adapters: [h.adapter], agent: new FakeAgent(), store, outbound: { backoffMs: 1, maxBackoffMs: 20 } });
  await gw.start();
  return { h, gw, store };
}

test('telegram unreachable for many sends (connections cut): every answer arrives once, in order', async (t) => {
  const { h, gw, store } = await setup();
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  h.emulator.failNext({ methods: ['sendMessage'], count: 12, network: true, error_code: 0, description: 'connection cut' });
  for (const text of ['first', 'second', 'third']) await h.userSays({ text, direct: true });
  await until(() => h.botMessages().length === 3, 'three answers');
  await gw.idle();
  assert.deepEqual(h.botMessages().map((m) => m.text), ['echo: first', 'echo: second', 'echo: third']);
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
  assert.deepEqual(h.botMessages().map((m) => m.text), ['echo: hello']);
});
