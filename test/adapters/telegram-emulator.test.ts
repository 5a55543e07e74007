// The Telegram emulator speaks the Bot API wire protocol (checked here with plain HTTP, not
// grammY): token in the path, JSON/form/multipart/query parameters, long-poll getUpdates with
// offset confirmation and conflicts, allowed_updates, webhooks with the secret header, and the
// API's error shapes (401, 404, 429 with retry_after, HTML parse errors).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { ADA } from '../emulators/telegram/harness.ts';
import { startTelegramEmulator } from '../emulators/telegram/index.ts';
import { waitUntil } from '../helpers.ts';

const DM = { id: ADA.id, type: 'private' as const, first_name: 'Ada' };

async function emulator(t: TestContext) {
  const e = await startTelegramEmulator();
  t.after(() => e.close());
  e.addChat(DM);
  const call = async (
    method: string,
    params: Record<string, unknown> = {},
    token = e.token,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${e.apiRoot}/bot${token}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { e, call };
}

test('a wrong token is 401 Unauthorized, an unknown method 404', async (t) => {
  const { call } = await emulator(t);
  assert.deepEqual(await call('getMe', {}, '1:wrong'), {
    status: 401,
    body: { ok: false, error_code: 401, description: 'Unauthorized' },
  });
  assert.deepEqual(await call('sendTelepathy'), {
    status: 404,
    body: { ok: false, error_code: 404, description: 'Not Found' },
  });
  const me = await call('getMe');
  assert.equal((me.body.result as { username: string }).username, 'boxbot_test_bot');
});

test('parameters are taken from JSON, urlencoded and multipart bodies and from the query string', async (t) => {
  const { e } = await emulator(t);
  const url = `${e.apiRoot}/bot${e.token}/sendMessage`;
  await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chat_id: ADA.id, text: 'json' }),
  });
  await fetch(url, {
    method: 'POST',
    body: new URLSearchParams({ chat_id: String(ADA.id), text: 'form', reply_parameters: '{"message_id":1}' }),
  });
  const multipart = new FormData();
  multipart.set('chat_id', String(ADA.id));
  multipart.set('text', 'multipart');
  await fetch(url, { method: 'POST', body: multipart });
  await fetch(`${url}?chat_id=${ADA.id}&text=query`);
  assert.deepEqual(
    e.botMessages().map((m) => m.text),
    ['json', 'form', 'multipart', 'query'],
  );
  assert.equal(e.botMessages()[1]!.replyTo, '1');
});

test('getUpdates holds the request until an update arrives, and confirms updates below the offset', async (t) => {
  const { e, call } = await emulator(t);
  assert.deepEqual((await call('getUpdates', { timeout: 0 })).body.result, []);
  const held = call('getUpdates', { timeout: 30 });
  await waitUntil(() => e.heldPolls() === 1, 'the held getUpdates', 5000);
  const u1 = e.userMessage({ chat: DM, from: ADA, text: 'one' });
  const first = (await held).body.result as { update_id: number; message: { text: string } }[];
  assert.deepEqual(
    first.map((u) => u.message.text),
    ['one'],
  );
  e.userMessage({ chat: DM, from: ADA, text: 'two' });
  const again = (await call('getUpdates', { timeout: 0 })).body.result as unknown[];
  assert.equal(again.length, 2, 'nothing is confirmed without an offset');
  const next = (await call('getUpdates', { offset: (u1.update_id as number) + 1, timeout: 0 })).body.result as {
    message: { text: string };
  }[];
  assert.deepEqual(
    next.map((u) => u.message.text),
    ['two'],
  );
  assert.equal(e.pendingUpdates(), 1);
  const limited = (await call('getUpdates', { offset: (u1.update_id as number) + 2, timeout: 1 })).body.result;
  assert.deepEqual(limited, [], 'the timeout passes with nothing new');
  assert.equal(e.pendingUpdates(), 0);
});

test('a second getUpdates ends the held one with 409 Conflict', async (t) => {
  const { e, call } = await emulator(t);
  const first = call('getUpdates', { timeout: 30 });
  await waitUntil(() => e.heldPolls() === 1, 'the first getUpdates held', 5000);
  const second = call('getUpdates', { timeout: 30 });
  const conflict = await first;
  assert.equal(conflict.status, 409);
  assert.match(String(conflict.body.description), /^Conflict: terminated by other getUpdates request/);
  e.userMessage({ chat: DM, from: ADA, text: 'x' });
  assert.equal(((await second).body.result as unknown[]).length, 1);
});

test('allowed_updates filters update kinds', async (t) => {
  const { e, call } = await emulator(t);
  await call('getUpdates', { timeout: 0, allowed_updates: ['message'] });
  e.userMessage({ chat: DM, from: ADA, text: 'edited', kind: 'edited_message' });
  e.userMessage({ chat: DM, from: ADA, text: 'new' });
  const got = (await call('getUpdates', { timeout: 0 })).body.result as Record<string, unknown>[];
  assert.deepEqual(
    got.map((u) => Object.keys(u).filter((k) => k !== 'update_id')),
    [['message']],
  );
});

test('a webhook receives updates with the secret header; getUpdates is refused meanwhile', async (t) => {
  const { e, call } = await emulator(t);
  const received: { secret: unknown; body: Record<string, unknown> }[] = [];
  const hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        secret: req.headers['x-telegram-bot-api-secret-token'],
        body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => hook.close(() => r())));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/webhooks/telegram`;
  assert.equal((await call('setWebhook', { url, secret_token: 's3cret' })).body.result, true);
  assert.equal((await call('getUpdates', {})).status, 409);
  e.userMessage({ chat: DM, from: ADA, text: 'pushed' });
  while (received.length === 0) await new Promise((r) => setTimeout(r, 10));
  assert.equal(received[0]!.secret, 's3cret');
  assert.equal((received[0]!.body.message as { text: string }).text, 'pushed');
  // The update leaves the queue once the hook's 200 reaches the emulator.
  while (e.pendingUpdates() !== 0) await new Promise((r) => setTimeout(r, 10));
  assert.equal(((await call('getWebhookInfo')).body.result as { url: string }).url, url);
  await call('deleteWebhook');
  assert.equal((await call('getUpdates', { timeout: 0 })).status, 200);
});

test("429 has Telegram's shape; HTML that cannot be parsed is refused with the API's description", async (t) => {
  const { e, call } = await emulator(t);
  e.rateLimitNext(1, 3);
  assert.deepEqual(await call('sendMessage', { chat_id: ADA.id, text: 'x' }), {
    status: 429,
    body: {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 3',
      parameters: { retry_after: 3 },
    },
  });
  const bad = await call('sendMessage', { chat_id: ADA.id, text: 'a <foo>b</foo>', parse_mode: 'HTML' });
  assert.equal(bad.status, 400);
  assert.match(String(bad.body.description), /^Bad Request: can't parse entities: Unsupported start tag "foo"/);
  const ok = await call('sendMessage', {
    chat_id: ADA.id,
    text: '<b>bold</b> &amp; <a href="https://x.y">x</a>',
    parse_mode: 'HTML',
  });
  const msg = ok.body.result as { text: string; entities: { type: string }[] };
  assert.equal(msg.text, 'bold & x');
  assert.deepEqual(
    msg.entities.map((en) => en.type),
    ['bold', 'text_link'],
  );
  assert.equal(e.botMessages().length, 1);
});
