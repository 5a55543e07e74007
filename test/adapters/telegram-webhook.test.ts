// Webhook mode: start registers the webhook (URL and secret) with Telegram; the route accepts only
// requests carrying the secret header; a sink failure makes Telegram redeliver; polling mode
// removes a webhook left behind.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { AdapterError, type InboundMessage } from '../../src/adapters/index.ts';
import { createTelegramAdapter, TELEGRAM_WEBHOOK_PATH } from '../../src/adapters/telegram/index.ts';
import { ADA, memoryState, telegramHarness, WEBHOOK_SECRET } from '../emulators/telegram/harness.ts';
import { until } from './contract.ts';

const DM = { id: ADA.id, type: 'private' as const, first_name: 'Ada' };

async function webhookHarness(t: TestContext) {
  const h = await telegramHarness({ mode: 'webhook' });
  t.after(() => h.close());
  return h;
}

/** A Telegram-shaped update as an attacker (or a misconfigured proxy) would post it. */
function forgedUpdate(text: string): string {
  return JSON.stringify({
    update_id: 990001,
    message: { message_id: 90, from: ADA, chat: DM, date: 1717171717, text },
  });
}

test('start sets the webhook with the configured URL, the secret and the update kinds', async (t) => {
  const h = await webhookHarness(t);
  await h.adapter.start(async () => undefined);
  assert.deepEqual(h.emulator.hook, { url: h.webhookUrl, secret: WEBHOOK_SECRET });
  const call = h.emulator.calls.find((c) => c.method === 'setWebhook');
  assert.deepEqual(call?.params.allowed_updates, ['message', 'callback_query']);
  assert.deepEqual(
    h.adapter.routes().map((r) => `${r.method} ${r.path}`),
    [`POST ${TELEGRAM_WEBHOOK_PATH}`],
  );
  assert.equal(
    h.emulator.calls.some((c) => c.method === 'getUpdates'),
    false,
    'no polling in webhook mode',
  );
});

test('updates posted by Telegram with the secret reach the sink', async (t) => {
  const h = await webhookHarness(t);
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  const update = h.emulator.userMessage({ chat: DM, from: ADA, text: 'via webhook' });
  await until(() => got.length === 1, 'the webhook update');
  assert.equal(got[0]!.text, 'via webhook');
  assert.equal(got[0]!.id, `telegram:${h.emulator.bot.id}:${update.update_id as number}`);
  await until(() => h.emulator.webhookAttempts.length === 1, 'the answer to reach Telegram');
  assert.deepEqual(
    h.emulator.webhookAttempts.map((a) => a.status),
    [200],
  );
});

test('a wrong or missing secret gets 401 and nothing reaches the sink', async (t) => {
  const h = await webhookHarness(t);
  const got: InboundMessage[] = [];
  await h.adapter.start(async (m) => {
    got.push(m);
  });
  const post = (headers: Record<string, string>) =>
    fetch(h.webhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: forgedUpdate('forged'),
    });
  const missing = await post({});
  const wrong = await post({ 'X-Telegram-Bot-Api-Secret-Token': 'not-the-secret' });
  const prefix = await post({ 'X-Telegram-Bot-Api-Secret-Token': WEBHOOK_SECRET.slice(0, -1) });
  const longer = await post({ 'X-Telegram-Bot-Api-Secret-Token': `${WEBHOOK_SECRET}x` });
  assert.deepEqual([missing.status, wrong.status, prefix.status, longer.status], [401, 401, 401, 401]);
  // The same request with the right secret goes through: the 401s were about the secret alone.
  const right = await post({ 'X-Telegram-Bot-Api-Secret-Token': WEBHOOK_SECRET });
  assert.equal(right.status, 200);
  assert.deepEqual(
    got.map((m) => m.text),
    ['forged'],
  );
});

test('a rejected update is answered 500 and Telegram delivers it again', async (t) => {
  const h = await webhookHarness(t);
  const seen: string[] = [];
  let failOnce = true;
  await h.adapter.start(async (m) => {
    seen.push(m.text);
    if (failOnce) {
      failOnce = false;
      throw new Error('store unavailable');
    }
  });
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'again' });
  await until(() => seen.length === 2, 'the redelivery');
  assert.deepEqual(seen, ['again', 'again']);
  await until(() => h.emulator.webhookAttempts.length === 2, 'the answers to reach Telegram');
  assert.deepEqual(
    h.emulator.webhookAttempts.map((a) => a.status),
    [500, 200],
  );
});

test('a stopped adapter answers 503, and the update arrives after the next start', async (t) => {
  const h = await webhookHarness(t);
  const got: string[] = [];
  await h.adapter.start(async (m) => {
    got.push(m.text);
  });
  await h.adapter.stop();
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'while down' });
  await until(() => h.emulator.webhookAttempts.some((a) => a.status === 503), 'a refused delivery');
  assert.equal(got.length, 0);
  await h.adapter.start(async (m) => {
    got.push(m.text);
  });
  await until(() => got.length === 1, 'the delivery after restart');
  assert.deepEqual(got, ['while down']);
});

test('a bad JSON body is refused with 400 and the adapter keeps working', async (t) => {
  const h = await webhookHarness(t);
  const got: string[] = [];
  await h.adapter.start(async (m) => {
    got.push(m.text);
  });
  const bad = await fetch(h.webhookUrl!, {
    method: 'POST',
    headers: { 'X-Telegram-Bot-Api-Secret-Token': WEBHOOK_SECRET },
    body: '{"update_id": 1, "mess',
  });
  assert.equal(bad.status, 400);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'fine' });
  await until(() => got.length === 1, 'the next update');
});

test('webhook mode refuses to start without a URL or with an invalid secret', () => {
  const base = { token: '1:x', state: memoryState(), mode: 'webhook' as const };
  assert.throws(
    () => createTelegramAdapter({ ...base, webhook: { url: 'https://bot.example.com/webhooks/telegram', secret: '' } }),
    AdapterError,
  );
  assert.throws(
    () =>
      createTelegramAdapter({
        ...base,
        webhook: { url: 'https://bot.example.com/webhooks/telegram', secret: 'has spaces' },
      }),
    AdapterError,
  );
  assert.throws(() => createTelegramAdapter({ ...base, webhook: { url: '', secret: 'ok' } }), AdapterError);
  assert.throws(() => createTelegramAdapter(base), AdapterError);
});

test('polling mode deletes a webhook left behind, so updates flow again', async (t) => {
  const h = await telegramHarness({ mode: 'polling' });
  t.after(() => h.close());
  h.emulator.setHook({ url: 'http://127.0.0.1:9/old-hook', secret: 'old' }, false);
  const got: string[] = [];
  await h.adapter.start(async (m) => {
    got.push(m.text);
  });
  assert.equal(h.emulator.hook, undefined);
  h.emulator.userMessage({ chat: DM, from: ADA, text: 'polled' });
  await until(() => got.length === 1, 'the polled update');
});
