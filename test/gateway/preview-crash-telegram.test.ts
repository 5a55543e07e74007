// The moment between a preview being sent and its id being journaled, with the real Telegram
// adapter (grammY) against the Bot API emulator: Telegram has no idempotency and no way to find
// the bot's own message again, so a process gone in that moment leaves the preview beside the
// answer. The note journaled before the send makes the restart know it: logged and counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChannelAdapter } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { GatewayStore } from '../../src/runner/ports.ts';
import { createMemoryState, createMemoryStore, StoreError } from '../../src/store/index.ts';
import { telegramHarness } from '../emulators/telegram/harness.ts';
import { FakeAgent, type FakeAnswer, until } from './fakes.ts';

function gateway(adapter: ChannelAdapter, store: GatewayStore, answer: ConstructorParameters<typeof FakeAgent>[0]) {
  return createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent: new FakeAgent(answer),
    store,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
}

const title =
  'gone after Telegram took the preview, before its id was journaled: the restart answers once more and ' +
  'counts the preview left behind';
test(title, async (t) => {
  const h = await telegramHarness();
  t.after(() => h.close());
  const state = createMemoryState();
  const firstStore = createMemoryStore({ state });
  // The id's write never happens: the process is gone once sendMessage has answered.
  const dying: GatewayStore = {
    ...firstStore.delivery,
    notePreview: async () => {
      throw new StoreError('closed', 'the process is gone');
    },
  };
  let parked = false;
  const first = gateway(h.adapter, dying, async (r): Promise<FakeAnswer> => {
    r.onEvent({ type: 'text-delta', text: 'Looking it up' });
    parked = true;
    return new Promise<FakeAnswer>((_, reject) =>
      r.signal.addEventListener('abort', () => reject(r.signal.reason as Error)),
    );
  });
  await first.start();
  await h.userSays({ text: 'news?', direct: true });
  await until(() => parked && h.botMessages().length === 1, 'the preview in the chat');
  await first.stop();
  await firstStore.close();

  const store = createMemoryStore({ state });
  const second = gateway(h.newAdapter(), store.delivery, () => 'Nothing new today.');
  t.after(() => second.stop());
  await second.start();
  await until(() => h.botMessages().some((m) => m.text === 'Nothing new today.'), 'the answer');
  await second.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['Looking it up', 'Nothing new today.'],
    'what the README says a crash in this moment can cause on Telegram: the preview stays beside the answer',
  );
  assert.equal(second.metrics.uncertain.get({ platform: 'telegram', kind: 'preview' }), 1);
  assert.deepEqual(await store.delivery.pending(), []);
  await store.close();
});
