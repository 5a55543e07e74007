// The HTTP server's rules: loopback unless an admin token exists, admin routes need the bearer
// token (compared whole), webhook routes get the raw body, bad JSON is a clear 400.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { test } from 'node:test';
import { Router } from 'express';
import { HttpServerError, startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';

const base = { port: 0, metrics: createMetrics(), routes: [] };

test('refuses to listen beyond loopback without an admin token, naming the fix', async () => {
  await assert.rejects(
    startHttpServer({ ...base, host: '0.0.0.0' }),
    (e: unknown) => e instanceof HttpServerError && /set BOXBOT_ADMIN_TOKEN/.test(e.message),
  );
});

test('admin routes: off without a token, 401 on a wrong or partial token, open with the right one', async () => {
  const admin = Router();
  admin.get('/ping', (_req, res) => void res.json({ pong: true }));
  admin.post('/echo', (req, res) => void res.json(req.body));
  const off = await startHttpServer({ ...base, host: '127.0.0.1', admin });
  assert.equal((await fetch(`${off.url}/admin/api/ping`)).status, 403);
  await off.close();

  const s = await startHttpServer({ ...base, host: '127.0.0.1', adminToken: 'correct-horse-battery', admin });
  const call = (token: string, path = '/admin/api/ping', init: RequestInit = {}) =>
    fetch(`${s.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
  assert.equal((await call('wrong')).status, 401);
  assert.equal((await call('correct-horse')).status, 401);
  assert.equal((await fetch(`${s.url}/admin/api/ping`)).status, 401);
  assert.deepEqual(await (await call('correct-horse-battery')).json(), { pong: true });
  const bad = await call('correct-horse-battery', '/admin/api/echo', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"oops',
  });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /bad request/);
  assert.equal((await call('correct-horse-battery', '/admin/api/nope')).status, 404);
  // Metrics need the token when one is set.
  assert.equal((await fetch(`${s.url}/metrics`)).status, 401);
  await s.close();
});

test('a non-ASCII admin token of the right length is refused with 401, not a 500', async () => {
  const admin = Router();
  admin.get('/ping', (_req, res) => void res.json({ pong: true }));
  const s = await startHttpServer({ ...base, host: '127.0.0.1', adminToken: 'correct-horse-battery', admin });
  // Same number of characters as the token, more bytes: a plain timingSafeEqual threw here.
  const res = await fetch(`${s.url}/admin/api/ping`, {
    headers: { authorization: 'Bearer correct-horse-batter\u00e9' },
  });
  assert.equal(res.status, 401);
  assert.equal(
    (await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer \u00e9\u00e9\u00e9' } })).status,
    401,
  );
  await s.close();
});

test('/healthz and /metrics refuse a foreign Host header on loopback (DNS rebinding)', async (t) => {
  const s = await startHttpServer({ ...base, host: '127.0.0.1' });
  t.after(() => s.close());
  const status = (path: string, host: string) =>
    new Promise<number>((resolve, reject) => {
      get(`${s.url}${path}`, { headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
  for (const path of ['/healthz', '/metrics']) {
    assert.equal(await status(path, 'attacker.example'), 403, path);
    assert.equal(await status(path, `attacker.example:${s.port}`), 403, path);
    assert.equal(await status(path, `127.0.0.1:${s.port}`), 200, path);
    assert.equal(await status(path, `localhost:${s.port}`), 200, path);
  }
});

test('a webhook route receives the exact raw body and headers', async () => {
  let seen: { body: string; sig: unknown } | undefined;
  const s = await startHttpServer({
    ...base,
    host: '127.0.0.1',
    routes: [
      {
        method: 'POST',
        path: '/webhooks/x',
        handle: async (req) => {
          seen = { body: req.rawBody.toString('utf8'), sig: req.headers['x-signature'] };
          return { status: 200, body: 'ok' };
        },
      },
    ],
  });
  const body = '{"b":1,  "a":"spaces kept"}';
  const res = await fetch(`${s.url}/webhooks/x`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': 'v0=abc' },
    body,
  });
  assert.equal(res.status, 200);
  assert.deepEqual(seen, { body, sig: 'v0=abc' });
  await s.close();
});

test('a port in use is refused naming the port, not a crash', async () => {
  const first = await startHttpServer({ ...base, host: '127.0.0.1' });
  await assert.rejects(
    startHttpServer({ ...base, host: '127.0.0.1', port: first.port }),
    (e: unknown) =>
      e instanceof HttpServerError && new RegExp(`port ${first.port} on 127\\.0\\.0\\.1 is in use`).test(e.message),
  );
  await first.close();
});
