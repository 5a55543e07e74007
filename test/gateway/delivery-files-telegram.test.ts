// Files through the gateway with the real Telegram adapter (grammY multipart) against the Bot API
// emulator: uploads rate limited or cut keep their place and arrive once; a restart while the
// platform cannot take the file (the text already delivered) sends the file once and the text
// never again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterNetworkError, type ChannelAdapter, type OutboundFile } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import { PNG_1X1 } from '../adapters/contract.ts';
import { ADA, type TelegramHarness, telegramHarness } from '../emulators/telegram/harness.ts';
import { FakeAgent, until } from './fakes.ts';

const chart: OutboundFile = { name: 'chart.png', mimeType: 'image/png', bytes: new Uint8Array(PNG_1X1) };
const csv: OutboundFile = { name: 'data.csv', mimeType: 'text/plain', bytes: new Uint8Array(Buffer.from('a,b\n')) };
const agent = () => new FakeAgent(() => ({ text: 'Chart and data attached.', files: [chart, csv] }));

function gateway(h: TelegramHarness, store = createMemoryStore(), adapter: ChannelAdapter = h.adapter) {
  return createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent: agent(),
    store: store.delivery,
    outbound: { backoffMs: 1, maxBackoffMs: 20 },
  });
}

const dm = String(ADA.id);

test('uploads rate limited (429) and cut (network) are retried: the text, then each file, once', async (t) => {
  const h = await telegramHarness();
  const gw = gateway(h);
  t.after(async () => {
    await gw.stop();
    await h.close();
  });
  h.emulator.rateLimitNext(1, 1, ['sendPhoto']);
  h.emulator.failNext({ methods: ['sendDocument'], count: 3, network: true, error_code: 0, description: 'cut' });
  await gw.start();
  await h.userSays({ text: 'chart?', direct: true });
  await until(() => h.emulator.botFiles(dm).length === 2, 'both files');
  await gw.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['Chart and data attached.', '', ''],
  );
  assert.deepEqual(
    h.emulator.botFiles(dm).map((f) => [f.kind, f.name]),
    [
      ['photo', 'chart.png'],
      ['document', 'data.csv'],
    ],
  );
  assert.equal(Buffer.from(h.emulator.botFiles(dm)[1]!.bytes).toString(), 'a,b\n');
});

const restartTitle =
  'a restart while Telegram cannot take the second file: after it, that file arrives once, nothing else again';
test(restartTitle, async (t) => {
  const h = await telegramHarness();
  const state = createMemoryState();
  t.after(() => h.close());
  // The first process never reaches Telegram with the document (cut before the request leaves,
  // so no upload is still on its way when the process is gone).
  let documentTries = 0;
  const real = h.adapter;
  const cut: ChannelAdapter = {
    ...real,
    async sendFile(target, file) {
      if (file.mimeType === 'image/png') return real.sendFile!(target, file);
      documentTries++;
      throw new AdapterNetworkError('telegram', 'connection cut');
    },
  };
  const firstStore = createMemoryStore({ state });
  const first = gateway(h, firstStore, cut);
  await first.start();
  await h.userSays({ text: 'chart?', direct: true });
  await until(() => h.emulator.botFiles(dm).length === 1 && documentTries > 0, 'the photo sent, the document failing');
  await first.stop(); // the process goes down with the document unsent
  await firstStore.close();

  const store = createMemoryStore({ state });
  const second = gateway(h, store, h.newAdapter());
  t.after(() => second.stop());
  await second.start();
  await until(() => h.emulator.botFiles(dm).length === 2, 'the document after the restart');
  await second.idle();
  assert.deepEqual(
    h.botMessages().map((m) => m.text),
    ['Chart and data attached.', '', ''],
    'the text and the photo once each',
  );
  assert.deepEqual(
    h.emulator.botFiles(dm).map((f) => f.name),
    ['chart.png', 'data.csv'],
  );
  assert.deepEqual(await store.delivery.pendingOutbox(), []);
  await store.close();
});

const uncertainTitle =
  'a restart after Telegram took a file whose answer was lost: sent again (Telegram has no idempotency), ' +
  'logged and counted as uncertain';
test(uncertainTitle, async (t) => {
  const h = await telegramHarness();
  const state = createMemoryState();
  t.after(() => h.close());
  // The first process gets the document to Telegram, then is gone before it reads the answer.
  let documentTries = 0;
  const real = h.adapter;
  const dying: ChannelAdapter = {
    ...real,
    async sendFile(target, file) {
      if (file.mimeType === 'image/png') return real.sendFile!(target, file);
      if (documentTries++ === 0) await real.sendFile!(target, file);
      throw new AdapterNetworkError('telegram', 'connection cut');
    },
  };
  const firstStore = createMemoryStore({ state });
  const first = gateway(h, firstStore, dying);
  await first.start();
  await h.userSays({ text: 'chart?', direct: true });
  await until(() => documentTries > 1, 'the document taken, its answer lost');
  await first.stop();
  await firstStore.close();
  assert.equal(first.metrics.uncertain.get({ platform: 'telegram', kind: 'file' }), 0, 'no restart yet');

  const store = createMemoryStore({ state });
  const second = gateway(h, store, h.newAdapter());
  t.after(() => second.stop());
  await second.start();
  await until(() => h.emulator.botFiles(dm).length === 3, 'the document sent again after the restart');
  await second.idle();
  assert.deepEqual(
    h.emulator.botFiles(dm).map((f) => f.name),
    ['chart.png', 'data.csv', 'data.csv'],
    'what the README says a crash in this window can cause on Telegram',
  );
  assert.equal(second.metrics.uncertain.get({ platform: 'telegram', kind: 'file' }), 1);
  assert.match(
    await second.metrics.render(),
    /^boxbot_delivery_uncertain_total\{kind="file",platform="telegram"\} 1$/m,
  );
  assert.deepEqual(await store.delivery.pendingOutbox(), []);
  await store.close();
});
