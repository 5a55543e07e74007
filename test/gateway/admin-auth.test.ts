// Who gets into /admin and its API: the token signs a browser in to a server-side session whose
// cookie never holds the token; cookie requests that change things need the same origin and the
// CSRF token; sessions expire; sign-in failures are rate-limited; admins named in the config get
// in through an injected identity; the shell is served under a CSP with no inline script.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { Router } from 'express';
import type { UserKey } from '../../src/adapters/index.ts';
import { type AdminAuthOptions, createAdminAuth, storedCsrfKey } from '../../src/gateway/admin-auth.ts';
import { DASHBOARD_CSP } from '../../src/gateway/dashboard.ts';
import { startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';

const TOKEN = 'correct-horse-battery-staple';

async function serve(t: { after(fn: () => unknown): void }, opts: Partial<AdminAuthOptions> = {}, dir?: string) {
  const admin = Router();
  admin.get('/ping', (_req, res) => void res.json({ pong: true }));
  admin.post('/poke', (_req, res) => void res.json({ poked: true }));
  const s = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(),
    routes: [],
    adminToken: TOKEN,
    admin,
    adminAuth: createAdminAuth({ token: TOKEN, admins: [], ...opts }),
    dashboard: dir ? { dir } : {},
  });
  t.after(() => s.close());
  const origin = s.url;
  const signIn = async (token: string) => {
    const res = await fetch(`${s.url}/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ token }),
    });
    const body = (await res.json()) as { csrf?: string; error?: string };
    const cookie = res.headers.getSetCookie()[0] ?? '';
    return { status: res.status, body, setCookie: cookie, cookie: cookie.split(';')[0]! };
  };
  return { s, origin, signIn };
}

test('the token signs a browser in: an HttpOnly SameSite=Strict cookie of a random id, not the token', async (t) => {
  const { s, signIn } = await serve(t);
  const wrong = await signIn('wrong');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.setCookie, '', 'no cookie for a wrong token');
  const ok = await signIn(TOKEN);
  assert.equal(ok.status, 200);
  assert.match(ok.setCookie, /^boxbot_admin=[\w-]{40,}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=28800$/);
  assert.ok(!ok.setCookie.includes(TOKEN), 'the token is never in the cookie');
  assert.ok(ok.body.csrf && ok.body.csrf.length >= 20);
  const me = await fetch(`${s.url}/admin/api/me`, { headers: { cookie: ok.cookie } });
  assert.deepEqual(await me.json(), { name: 'admin token (session)', via: 'session', csrf: ok.body.csrf });
  assert.equal((await fetch(`${s.url}/admin/api/ping`, { headers: { cookie: ok.cookie } })).status, 200);
  assert.equal((await fetch(`${s.url}/admin/api/ping`, { headers: { cookie: 'boxbot_admin=forged' } })).status, 401);
  // Signing out ends the session on the server, whatever the browser keeps.
  const out = await fetch(`${s.url}/admin/logout`, { method: 'POST', headers: { cookie: ok.cookie, origin: s.url } });
  assert.match(out.headers.getSetCookie()[0] ?? '', /Max-Age=0/);
  assert.equal((await fetch(`${s.url}/admin/api/ping`, { headers: { cookie: ok.cookie } })).status, 401);
});

test('a cookie request that changes things needs the same origin and the CSRF token; a bearer does not', async (t) => {
  const { s, origin, signIn } = await serve(t);
  const { cookie, body } = await signIn(TOKEN);
  const poke = (headers: Record<string, string>) =>
    fetch(`${s.url}/admin/api/poke`, { method: 'POST', headers: { cookie, ...headers } });
  const noCsrf = await poke({ origin });
  assert.equal(noCsrf.status, 403);
  assert.match(((await noCsrf.json()) as { error: string }).error, /x-boxbot-csrf/);
  assert.equal((await poke({ origin, 'x-boxbot-csrf': 'guess' })).status, 403);
  const crossSite = await poke({ origin: 'https://evil.example', 'x-boxbot-csrf': body.csrf! });
  assert.equal(crossSite.status, 403);
  assert.match(((await crossSite.json()) as { error: string }).error, /not from the dashboard origin/);
  assert.equal((await poke({ 'x-boxbot-csrf': body.csrf! })).status, 403, 'no Origin and no Sec-Fetch-Site: refused');
  assert.equal((await poke({ 'sec-fetch-site': 'same-origin', 'x-boxbot-csrf': body.csrf! })).status, 200);
  assert.equal((await poke({ origin, 'x-boxbot-csrf': body.csrf! })).status, 200);
  const bearer = await fetch(`${s.url}/admin/api/poke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(bearer.status, 200);
  // Signing in from another site is refused too (login CSRF).
  const foreign = await fetch(`${s.url}/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: JSON.stringify({ token: TOKEN }),
  });
  assert.equal(foreign.status, 403);
});

test('a session ends after its idle time, and after its maximum age however busy', async (t) => {
  let now = 1_000_000;
  const { s, signIn } = await serve(t, { now: () => now, idleMs: 60_000, maxAgeMs: 150_000 });
  const { cookie } = await signIn(TOKEN);
  const ping = async () => (await fetch(`${s.url}/admin/api/ping`, { headers: { cookie } })).status;
  now += 50_000;
  assert.equal(await ping(), 200);
  now += 50_000;
  assert.equal(await ping(), 200, 'used within the idle time: still on');
  now += 55_000;
  assert.equal(await ping(), 401, 'past the maximum age');
  const again = await signIn(TOKEN);
  now += 61_000;
  assert.equal((await fetch(`${s.url}/admin/api/ping`, { headers: { cookie: again.cookie } })).status, 401, 'idle');
});

test('failed sign-ins are limited per address: even the right token gets 429 until a minute passes', async (t) => {
  let now = 5_000_000;
  const { signIn } = await serve(t, { now: () => now, maxFailuresPerMinute: 3 });
  for (let i = 0; i < 3; i++) assert.equal((await signIn(`guess-${i}`)).status, 401);
  const limited = await signIn(TOKEN);
  assert.equal(limited.status, 429);
  assert.match(limited.body.error ?? '', /too many failed sign-ins/);
  now += 61_000;
  assert.equal((await signIn(TOKEN)).status, 200);
});

test('sessions and the sign-in limit live in the store: a replica honours them, a restart keeps them', async (t) => {
  // Two gateways on one store (replicas on one database), each with its own process state.
  const state = createMemoryState();
  const on = () => createMemoryStore({ state }).adminSessions;
  const a = await serve(t, { sessions: on(), maxFailuresPerMinute: 3 });
  const b = await serve(t, { sessions: on(), maxFailuresPerMinute: 3 });
  const { cookie, body } = await a.signIn(TOKEN);
  const me = await fetch(`${b.s.url}/admin/api/me`, { headers: { cookie } });
  assert.equal(me.status, 200, 'signed in on one replica, known on the other');
  assert.equal(((await me.json()) as { csrf: string }).csrf, body.csrf, 'with the same CSRF token');
  const poke = await fetch(`${b.s.url}/admin/api/poke`, {
    method: 'POST',
    headers: { cookie, origin: b.origin, 'x-boxbot-csrf': body.csrf! },
  });
  assert.equal(poke.status, 200);
  // A restart: a new gateway on the same store still knows the session.
  const c = await serve(t, { sessions: on() });
  assert.equal((await fetch(`${c.s.url}/admin/api/ping`, { headers: { cookie } })).status, 200, 'kept');
  await fetch(`${b.s.url}/admin/logout`, { method: 'POST', headers: { cookie, origin: b.origin } });
  assert.equal((await fetch(`${a.s.url}/admin/api/ping`, { headers: { cookie } })).status, 401, 'ended everywhere');
  // Failed sign-ins from one address add up across replicas.
  assert.equal((await a.signIn('guess-1')).status, 401);
  assert.equal((await b.signIn('guess-2')).status, 401);
  assert.equal((await a.signIn('guess-3')).status, 401);
  assert.equal((await b.signIn(TOKEN)).status, 429, 'the limit counts the other replica’s failures');
});

test('an identity named in admins gets in through identityOf; another identity does not', async (t) => {
  const who = new Map<string, UserKey>([
    ['alice', 'telegram:4242'],
    ['bob', 'slack:T1:U9'],
  ]);
  const { s, origin } = await serve(t, {
    admins: ['telegram:4242', 'slack:T1:U1'],
    identityOf: async (req) => who.get(String(req.headers['x-test-user'])),
  });
  const me = await fetch(`${s.url}/admin/api/me`, { headers: { 'x-test-user': 'alice' } });
  assert.equal(me.status, 200);
  const body = (await me.json()) as { name: string; csrf: string };
  assert.equal(body.name, 'telegram:4242');
  assert.equal((await fetch(`${s.url}/admin/api/ping`, { headers: { 'x-test-user': 'bob' } })).status, 401);
  const poke = (csrf?: string) =>
    fetch(`${s.url}/admin/api/poke`, {
      method: 'POST',
      headers: { 'x-test-user': 'alice', origin, ...(csrf ? { 'x-boxbot-csrf': csrf } : {}) },
    });
  assert.equal((await poke()).status, 403, 'an identity sign-in needs the CSRF token too');
  assert.equal((await poke(body.csrf)).status, 200);
});

test('an identity sign-in gets one CSRF token from every replica on a store, and after a restart', async (t) => {
  const state = createMemoryState();
  const replica = () => {
    const store = createMemoryStore({ state });
    return serve(t, {
      admins: ['telegram:4242'],
      identityOf: async () => 'telegram:4242',
      sessions: store.adminSessions,
      csrfKey: storedCsrfKey(store.kv),
    });
  };
  const a = await replica();
  const b = await replica();
  const csrfOn = async (url: string) => ((await (await fetch(`${url}/admin/api/me`)).json()) as { csrf: string }).csrf;
  const token = await csrfOn(a.s.url);
  assert.equal(await csrfOn(b.s.url), token, 'the page read it from one replica; the other takes it');
  const poke = await fetch(`${b.s.url}/admin/api/poke`, {
    method: 'POST',
    headers: { origin: b.origin, 'x-boxbot-csrf': token },
  });
  assert.equal(poke.status, 200);
  const restarted = await replica();
  assert.equal(await csrfOn(restarted.s.url), token, 'kept across a restart');
  // Without the shared key each process makes its own: what replicas did before.
  const alone = await serve(t, { admins: ['telegram:4242'], identityOf: async () => 'telegram:4242' });
  assert.notEqual(await csrfOn(alone.s.url), token);
});

test('/admin serves a shell with no inline script under the CSP, and says how to build a missing bundle', async (t) => {
  const dir = join(tempDir('boxbot-dash-'), 'admin');
  const { s } = await serve(t, {}, dir);
  const page = await fetch(`${s.url}/admin`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-security-policy'), DASHBOARD_CSP);
  assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval/);
  const html = await page.text();
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1);
  assert.match(scripts[0]![1]!, /src="\/admin\/assets\/app\.js"/);
  assert.equal(scripts[0]![2], '', 'no inline script');
  assert.doesNotMatch(html, /style=/);
  const missing = await fetch(`${s.url}/admin/assets/app.js`);
  assert.equal(missing.status, 503);
  assert.match(await missing.text(), /npm run build/);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'app.js'), 'console.log(1)');
  const js = await fetch(`${s.url}/admin/assets/app.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /text\/javascript/);
  assert.equal((await fetch(`${s.url}/admin/assets/..%2F..%2Fetc%2Fpasswd`)).status, 404);
  const rebound = await new Promise<number>((resolve, reject) =>
    get(`${s.url}/admin`, { headers: { host: 'attacker.example' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject),
  );
  assert.equal(rebound, 403, 'a rebinding page is refused on loopback');
});
