// The web chat's sign-in over HTTP, as a server reachable beyond loopback runs it: a browser
// without a session is told how to sign in (not given the admin token's name); a link's GET
// only shows a button (a link preview uses nothing up); its POST needs this origin; the session
// cookie makes the browser that user; /web logout ends it.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { Request } from 'express';
import { identityOwner, issueLoginLink, webIdentityOf } from '../../src/adapters/web/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { serveWeb } from './web-server.ts';

async function serve(t: TestContext, secureCookies = false) {
  const store = createMemoryStore();
  t.after(() => store.close());
  const opts = { accessToken: 'operator-access-token', anyHost: true, sessions: store.webSessions, secureCookies };
  return { ...(await serveWeb(t, opts)), store };
}

const sessionCookie = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith('boxbot_session='))
    ?.split(';')[0];

test('web sign-in: beyond loopback, a browser without a session is told how to sign in', async (t) => {
  const s = await serve(t);
  const res = await fetch(`${s.server.url}/`);
  assert.equal(res.status, 401);
  const page = await res.text();
  assert.match(page, /send <code>\/web<\/code>/);
  assert.match(page, /boxbot web invite NAME/);
  assert.doesNotMatch(page, /access=|ADMIN_TOKEN/, 'the admin token is not how users get in');
  const api = await fetch(`${s.server.url}/chat/sessions`, { headers: { 'x-boxbot-token': s.adapter.apiToken } });
  assert.equal(api.status, 401);
  assert.match(((await api.json()) as { error: string }).error, /not signed in: send \/web/);
});

test('web sign-in: a link shows a button, signs in once from this origin only; /web logout ends it', async (t) => {
  const s = await serve(t, true);
  const { url } = await issueLoginLink(s.store.webSessions, 'web:ana', s.server.url);
  const path = new URL(url).pathname;
  for (const i of [1, 2]) {
    const shown = await fetch(url);
    assert.equal(shown.status, 200, `GET ${i}: a preview fetching the link uses nothing up`);
    assert.match(await shown.text(), /<form method="post"/);
  }
  const post = (origin?: string) =>
    fetch(url, { method: 'POST', redirect: 'manual', headers: origin ? { origin } : {} });
  assert.equal((await post()).status, 403, 'no Origin');
  assert.equal((await post('https://evil.example')).status, 403, 'another site');
  const done = await post(new URL(s.server.url).origin);
  assert.equal(done.status, 303);
  assert.equal(done.headers.get('location'), '/');
  const set = done.headers.getSetCookie().find((c) => c.startsWith('boxbot_session='))!;
  assert.match(set, /^boxbot_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=2592000; Secure$/);
  const cookie = sessionCookie(done)!;
  assert.equal((await post(new URL(s.server.url).origin)).status, 410, 'used once');
  assert.ok(path.startsWith('/login/'));

  const page = await fetch(`${s.server.url}/`, { headers: { cookie } });
  assert.equal(page.status, 200);
  const owner = identityOwner('web:ana');
  assert.match(await page.text(), new RegExp(`"OWNER":"${owner}".*"IDENTITY":"web:ana"`));
  assert.equal(await webIdentityOf(s.store.webSessions, { headers: { cookie } } as Request), 'web:ana');

  const say = (text: string, id: string) =>
    fetch(`${s.server.url}/chat/messages`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-boxbot-token': s.adapter.apiToken },
      body: JSON.stringify({ session: `${owner}-tab0123456789`, text, id }),
    });
  assert.equal((await say('hello', 'message-0001')).status, 202);
  assert.equal(s.received[0]?.signedInAs, 'web:ana');
  assert.equal(s.received[0]?.userId, owner);

  const out = await say('/web logout', 'message-0002');
  assert.equal(out.status, 200);
  assert.deepEqual(await out.json(), { loggedOut: true });
  assert.match(out.headers.getSetCookie().join('\n'), /boxbot_session=; .*Max-Age=0/);
  assert.equal(s.received.length, 1, 'the logout is not a message to the bot');
  assert.equal((await fetch(`${s.server.url}/`, { headers: { cookie } })).status, 401, 'the old cookie is refused');
  assert.equal(await webIdentityOf(s.store.webSessions, { headers: { cookie } } as Request), undefined);
});
