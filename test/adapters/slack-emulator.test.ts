// The Slack emulator speaks Slack's wire protocol (other tests and the benchmark rely on it):
// tokens in a header or the body, form and JSON bodies, Slack's error shapes, 429 with
// Retry-After, and single-use Socket Mode tickets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';

describe('slack emulator wire protocol', () => {
  let emu: SlackEmulator;
  before(async () => {
    emu = await startSlackEmulator();
  });
  after(() => emu.close());

  const call = async (
    method: string,
    init: RequestInit,
  ): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> => {
    const res = await fetch(emu.apiUrl + method, { method: 'POST', ...init });
    return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
  };

  test('JSON bodies with a Bearer token and form bodies with a token parameter both post', async () => {
    const a = await call('chat.postMessage', {
      headers: { authorization: `Bearer ${emu.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C1', text: 'json' }),
    });
    const b = await call('chat.postMessage', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: emu.botToken, channel: 'C1', text: 'form' }).toString(),
    });
    assert.deepEqual([a.json.ok, b.json.ok], [true, true]);
    assert.deepEqual(
      emu
        .botMessages()
        .slice(-2)
        .map((m) => m.text),
      ['json', 'form'],
    );
  });

  const slackRefusalsAuthedTitle =
    "Slack's refusals: not_authed, invalid_auth, not_allowed_token_type, no_text, msg_too_long, unknown_method";
  test(slackRefusalsAuthedTitle, async () => {
    const json = { 'content-type': 'application/json' };
    const bot = { ...json, authorization: `Bearer ${emu.botToken}` };
    const errors = await Promise.all([
      call('auth.test', { headers: json, body: '{}' }),
      call('auth.test', { headers: { ...json, authorization: 'Bearer xoxb-nope' }, body: '{}' }),
      call('apps.connections.open', { headers: bot, body: '{}' }),
      call('chat.postMessage', { headers: bot, body: JSON.stringify({ channel: 'C1' }) }),
      call('chat.postMessage', { headers: bot, body: JSON.stringify({ channel: 'C1', text: 'x'.repeat(40_001) }) }),
      call('chat.explode', { headers: bot, body: '{}' }),
    ]);
    assert.deepEqual(
      errors.map((e) => [e.status, e.json.ok, e.json.error]),
      [
        [200, false, 'not_authed'],
        [200, false, 'invalid_auth'],
        [200, false, 'not_allowed_token_type'],
        [200, false, 'no_text'],
        [200, false, 'msg_too_long'],
        [200, false, 'unknown_method'],
      ],
    );
  });

  test('a rate-limited call is HTTP 429 with Retry-After seconds and {ok:false,error:"ratelimited"}', async () => {
    emu.rateLimitNext(1, 3);
    const r = await call('chat.postMessage', {
      headers: { authorization: `Bearer ${emu.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C1', text: 'x' }),
    });
    assert.deepEqual([r.status, r.headers.get('retry-after'), r.json], [429, '3', { ok: false, error: 'ratelimited' }]);
  });

  test('apps.connections.open gives a single-use ticket; the socket says hello', async () => {
    const open = await call('apps.connections.open', { headers: { authorization: `Bearer ${emu.appToken}` } });
    const url = open.json.url as string;
    const ws = new WebSocket(url);
    const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
      ws.once('message', (d) => resolve(JSON.parse(String(d)) as Record<string, unknown>));
      ws.once('error', reject);
    });
    assert.equal(hello.type, 'hello');
    ws.close();
    const again = new WebSocket(url);
    const refused = await new Promise<string>((resolve) => {
      again.once('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      again.once('error', (e) => resolve(e.message));
    });
    assert.match(refused, /401/);
  });
});
