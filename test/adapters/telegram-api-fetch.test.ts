// grammY's HTTP client (src/adapters/telegram/api-fetch.ts) against a real HTTP server on
// loopback: what it sends, gzip answers, redirects not followed, answers cut off, aborts, and
// that no failure's text holds the request URL (it carries the bot token).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Bot } from 'grammy';
import { toAdapterError } from '../../src/adapters/telegram/api.ts';
import { apiFetch } from '../../src/adapters/telegram/api-fetch.ts';

const TOKEN = '123:SECRET-token';

async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    handle(req, body, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return { root, close };
}

const botOn = (root: string) => new Bot(TOKEN, { client: { apiRoot: root, fetch: apiFetch as never } });

test('a call sends its JSON with its length and reads a plain or a gzip answer', async () => {
  const seen: { length?: string; type?: string; body: string; url?: string }[] = [];
  const s = await serve((req, body, res) => {
    seen.push({ length: req.headers['content-length'], type: req.headers['content-type'], body, url: req.url });
    const answer = JSON.stringify({ ok: true, result: { message_id: 7, date: 1, chat: { id: 5, type: 'private' } } });
    if (req.headers['accept-encoding']?.includes('gzip') && seen.length === 2) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(answer));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    }
  });
  try {
    const sent = await botOn(s.root).api.sendMessage(5, 'héllo');
    assert.equal(sent.message_id, 7);
    assert.equal(seen[0]!.url, `/bot${TOKEN}/sendMessage`);
    assert.equal(seen[0]!.type, 'application/json');
    assert.equal(Number(seen[0]!.length), Buffer.byteLength(seen[0]!.body));
    assert.deepEqual(JSON.parse(seen[0]!.body), { chat_id: 5, text: 'héllo' });
    // grammY asks for compression on https roots; the client then takes a gzip answer.
    const answer = await apiFetch(`${s.root}/bot${TOKEN}/getMe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      compress: true,
    });
    assert.equal(((await answer.json()) as { result: { message_id: number } }).result.message_id, 7);
  } finally {
    await s.close();
  }
});

test("Telegram's refusal reaches grammY as its error code and description", async () => {
  const s = await serve((_req, _body, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }));
  });
  try {
    const e = await botOn(s.root)
      .api.sendMessage(5, 'x')
      .catch((err: unknown) => toAdapterError(err, TOKEN));
    assert.equal((e as { status?: number }).status, 400);
    assert.match((e as Error).message, /chat not found/);
  } finally {
    await s.close();
  }
});

test('a redirect, an answer cut off, or no JSON fail the call without naming the URL', async () => {
  let mode = 'redirect';
  const s = await serve((_req, _body, res) => {
    if (mode === 'redirect') {
      res.writeHead(302, { location: `http://elsewhere.invalid/bot${TOKEN}/sendMessage` });
      res.end();
    } else if (mode === 'cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"ok":true,');
      setImmediate(() => res.socket?.destroy());
    } else {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    }
  });
  try {
    for (const [m, why] of [
      ['redirect', /redirect/],
      ['cut', /\(system\)|ECONNRESET|cut off/],
      ['html', /invalid-json/],
    ] as const) {
      mode = m;
      const e = await botOn(s.root)
        .api.sendMessage(5, 'x')
        .then(
          () => undefined,
          (err: unknown) => toAdapterError(err, TOKEN),
        );
      assert.ok(e, `${m}: the call failed`);
      assert.equal(e.code, 'network-error', m);
      assert.match(e.message, why, m);
      assert.doesNotMatch(e.message, /SECRET|elsewhere/, m);
    }
  } finally {
    await s.close();
  }
});

test('an abort ends a call waiting on its answer', async () => {
  const s = await serve(() => undefined); // never answers
  try {
    const controller = new AbortController();
    const call = apiFetch(`${s.root}/bot${TOKEN}/getUpdates`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(call, (e: Error & { type?: string }) => e.name === 'AbortError' && e.type === 'aborted');
    await assert.rejects(
      apiFetch(`${s.root}/bot${TOKEN}/getUpdates`, { method: 'POST', body: '{}', signal: controller.signal }),
      { name: 'AbortError' },
    );
  } finally {
    await s.close();
  }
});
