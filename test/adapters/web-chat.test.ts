// The web chat adapter over HTTP: its page token, its access token and its session rules.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createWebAdapter } from '../../src/adapters/web/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { tempDir, waitUntil } from '../helpers.ts';
import { serveWeb } from './web-server.ts';

test('web chat: a non-ASCII page or access token is refused with 401, not a 500', async (t) => {
  const s = await serveWeb(t, { accessToken: 'access-token-123' });
  const token = s.adapter.apiToken;
  const wrongPage = `${token.slice(0, -1)}\u00e9`;
  const post = await fetch(`${s.server.url}/chat/messages?access=access-token-123`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-boxbot-token': wrongPage },
    body: JSON.stringify({ session: 'session-1234', text: 'hi', id: 'message-1234' }),
  });
  assert.equal(post.status, 401);
  const events = await fetch(
    `${s.server.url}/chat/events?session=session-1234&access=access-token-123&token=${encodeURIComponent(wrongPage)}`,
  );
  assert.equal(events.status, 401);
  const page = await fetch(`${s.server.url}/?access=${encodeURIComponent('access-token-12\u00e9')}`);
  assert.equal(page.status, 401);
  assert.equal(s.received.length, 0);
});

/** Loads the page as a browser would: its cookie and the owner prefix of its sessions. */
async function browser(url: string, cookie?: string) {
  const res = await fetch(`${url}/`, cookie ? { headers: { cookie } } : {});
  const page = await res.text();
  const set = res.headers.getSetCookie();
  return {
    page,
    set,
    cookie: cookie ?? set.map((c) => c.split(';')[0]!).join('; '),
    owner: /"OWNER":"([^"]+)"/.exec(page)![1]!,
  };
}

const webChatSessionsTitle =
  'web chat sessions belong to the browser whose cookie created them: another cookie or none is refused 403';
test(webChatSessionsTitle, async (t) => {
  const s = await serveWeb(t);
  const token = s.adapter.apiToken;
  const alice = await browser(s.server.url);
  assert.equal(alice.set.length, 1);
  // Max-Age: the browser keeps it across a restart (30 days by default), so its conversations stay reachable.
  assert.match(
    alice.set[0]!,
    /^boxbot_browser=[A-Za-z0-9_-]{32,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=2592000$/,
  );
  const again = await browser(s.server.url, alice.cookie);
  assert.deepEqual(
    again.set.map((c) => c.split(';')[0]),
    [alice.cookie],
    'a reload keeps the same secret (its Max-Age renewed)',
  );
  assert.equal(again.owner, alice.owner);
  const session = `${alice.owner}-tab0123456789`;
  const post = (cookie: string | undefined, text: string) =>
    fetch(`${s.server.url}/chat/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-boxbot-token': token, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ session, text, id: `m${Math.random().toString(36).slice(2, 12)}` }),
    });
  const events = (cookie: string | undefined, signal?: AbortSignal) =>
    fetch(`${s.server.url}/chat/events?session=${session}&token=${encodeURIComponent(token)}`, {
      headers: cookie ? { cookie } : {},
      ...(signal ? { signal } : {}),
    });

  const stream = new AbortController();
  t.after(() => stream.abort());
  assert.equal((await events(alice.cookie, stream.signal)).status, 200);
  assert.equal((await post(alice.cookie, 'hello from alice')).status, 202);
  assert.deepEqual(
    s.received.map((m) => [m.conversationKey, m.text]),
    [[`web:${session}`, 'hello from alice']],
  );

  const mallory = await browser(s.server.url);
  assert.notEqual(mallory.owner, alice.owner);
  for (const cookie of [mallory.cookie, undefined, 'boxbot_browser=forged']) {
    const read = await events(cookie);
    assert.equal(read.status, 403, `reading with ${cookie}`);
    await read.text();
    const write = await post(cookie, 'injected');
    assert.equal(write.status, 403, `posting with ${cookie}`);
    await write.text();
  }
  assert.equal(s.received.length, 1, 'nothing reached the conversation from another browser');
});

test('web chat: the page keeps its session per tab (sessionStorage), so a new tab starts its own', async (t) => {
  const s = await serveWeb(t);
  const { page } = await browser(s.server.url);
  const script = await (await fetch(`${s.server.url}/chat/assets/chat.js`)).text();
  // sessionStorage is per tab and survives a reload; localStorage would make every tab share one.
  assert.match(script, /sessionStorage\.getItem\('boxbot\.session'\)/);
  assert.doesNotMatch(page + script, /localStorage/);
});

test('web chat: two tabs of one browser are two conversations, each seeing only its own answers', async (t) => {
  const s = await serveWeb(t);
  const token = s.adapter.apiToken;
  const { cookie, owner } = await browser(s.server.url);
  const [tabA, tabB] = [`${owner}-tabaaaaaaaa`, `${owner}-tabbbbbbbbb`];
  const stream = new AbortController();
  t.after(() => stream.abort());
  const open = async (session: string) => {
    const res = await fetch(`${s.server.url}/chat/events?session=${session}&token=${encodeURIComponent(token)}`, {
      headers: { cookie },
      signal: stream.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    // The next `data:` event of the stream.
    return async (): Promise<{ type: string; text: string }> => {
      for (;;) {
        const m = /^data: (.*)$/m.exec(buffered);
        if (m) {
          buffered = buffered.slice(m.index + m[0].length);
          return JSON.parse(m[1]!);
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        buffered += value;
      }
    };
  };
  const nextA = await open(tabA);
  const nextB = await open(tabB);
  const post = (session: string, text: string) =>
    fetch(`${s.server.url}/chat/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-boxbot-token': token, cookie },
      body: JSON.stringify({ session, text, id: `m${Math.random().toString(36).slice(2, 12)}` }),
    });
  assert.equal((await post(tabA, 'from tab a')).status, 202);
  await s.adapter.send({ chatId: tabA, conversationKey: `web:${tabA}` }, 'answer for tab a');
  assert.equal((await post(tabB, 'from tab b')).status, 202);
  assert.deepEqual(
    s.received.map((m) => m.conversationKey),
    [`web:${tabA}`, `web:${tabB}`],
  );
  assert.equal((await nextA()).text, 'from tab a');
  assert.equal((await nextA()).text, 'answer for tab a');
  // Had tab A's events reached tab B, they would come before tab B's own message.
  assert.equal((await nextB()).text, 'from tab b');
});

test("web chat history, chat list, uploads and downloads answer only the session owner's cookie", async (t) => {
  const stored = new Map<string, { key: string; updatedAt: string; messages: never[] }>();
  const s = await serveWeb(t, {
    filesDir: tempDir('boxbot-web-files-'),
    conversations: { keys: async () => [...stored.keys()], get: async (k) => stored.get(k) },
  });
  const token = s.adapter.apiToken;
  const alice = await browser(s.server.url);
  const mallory = await browser(s.server.url);
  const session = `${alice.owner}-tab0123456789`;
  stored.set(`web:${session}`, {
    key: `web:${session}`,
    updatedAt: '2026-01-01T00:00:00Z',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'secret plans' }] }] as never[],
  });
  const get = (path: string, cookie: string) =>
    fetch(`${s.server.url}${path}`, { headers: { cookie, 'x-boxbot-token': token } });
  const history = await get(`/chat/history?session=${session}`, alice.cookie);
  assert.equal(history.status, 200);
  assert.deepEqual((await history.json()).entries, [{ role: 'user', text: 'secret plans' }]);
  const list = await (await get('/chat/sessions', alice.cookie)).json();
  assert.deepEqual(list.sessions, [{ session, title: 'secret plans', updatedAt: '2026-01-01T00:00:00Z' }]);
  assert.deepEqual((await (await get('/chat/sessions', mallory.cookie)).json()).sessions, []);

  const upload = (cookie: string) =>
    fetch(`${s.server.url}/chat/upload?session=${session}&name=a.txt`, {
      method: 'POST',
      headers: { cookie, 'x-boxbot-token': token, 'content-type': 'text/plain' },
      body: 'alice file',
    });
  const up = await upload(alice.cookie);
  assert.equal(up.status, 201);
  const file = (await up.json()) as { id: string };
  await s.adapter.sendFile!(
    { chatId: session, conversationKey: `web:${session}` },
    { name: 'r.txt', mimeType: 'text/plain', bytes: new TextEncoder().encode('for alice') },
  );
  const download = await get(`/chat/files/${file.id}?session=${session}`, alice.cookie);
  assert.equal(await download.text(), 'alice file');
  assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename\*=UTF-8''a\.txt$/);

  for (const [what, res] of [
    ['history', await get(`/chat/history?session=${session}`, mallory.cookie)],
    ['upload', await upload(mallory.cookie)],
    ['download', await get(`/chat/files/${file.id}?session=${session}`, mallory.cookie)],
  ] as const) {
    assert.equal(res.status, 403, what);
    assert.doesNotMatch(await res.text(), /secret plans|alice file/, what);
  }
  // A file id of another session is not found through one's own session either.
  const own = `${mallory.owner}-tab0123456789`;
  assert.equal((await get(`/chat/files/${file.id}?session=${own}`, mallory.cookie)).status, 404);
});

test('web chat previews a sent raster image inline; an SVG or any other file only downloads', async (t) => {
  const s = await serveWeb(t, { filesDir: tempDir('boxbot-web-files-') });
  const alice = await browser(s.server.url);
  const session = `${alice.owner}-tab0123456789`;
  const target = { chatId: session, conversationKey: `web:${session}` };
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  const shown: Record<string, string> = {};
  for (const [name, mimeType, bytes] of [
    ['chart.png', 'image/png', png],
    ['logo.svg', 'image/svg+xml', Buffer.from(svg)],
    ['page.html', 'text/html', Buffer.from('<b>hi</b>')],
  ] as const) {
    await s.adapter.sendFile!(target, { name, mimeType, bytes });
  }
  // The links the tab is given, read from its event stream (the three sends wait in its backlog).
  const stream = new AbortController();
  t.after(() => stream.abort());
  const events = await fetch(`${s.server.url}/chat/events?session=${session}&token=${s.adapter.apiToken}`, {
    headers: { cookie: alice.cookie },
    signal: stream.signal,
  });
  const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('page.html')) text += (await reader.read()).value ?? '';
  for (const m of text.matchAll(/"file":\{"id":"([0-9a-f]+)","name":"([^"]+)"/g)) {
    const res = await fetch(`${s.server.url}/chat/files/${m[1]}?session=${session}&inline=1`, {
      headers: { cookie: alice.cookie },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    shown[m[2]!] =
      `${res.headers.get('content-type')?.split(';')[0]} ${res.headers.get('content-disposition')?.split(';')[0]}`;
  }
  assert.deepEqual(shown, {
    'chart.png': 'image/png inline',
    'logo.svg': 'application/octet-stream attachment',
    'page.html': 'application/octet-stream attachment',
  });
});

test('web chat message ids are not reused by the next process (a resumed answer edits its own preview)', async () => {
  const target = { chatId: 'owner-tab0123456789', conversationKey: 'web:owner-tab0123456789' };
  const before = createWebAdapter();
  const old = [];
  for (let i = 0; i < 3; i++) old.push((await before.send(target, `old ${i}`)).messageId);
  const startedAt = Date.now();
  await waitUntil(() => Date.now() > startedAt, 'the clock to move on', 1000);
  const after = createWebAdapter();
  const fresh = (await after.send(target, 'new')).messageId;
  assert.ok(!old.includes(fresh), `new id ${fresh} is not one of ${old.join(', ')}`);
});

test('web chat: a session id the page would not make is refused 400 on every route that takes one', async (t) => {
  const s = await serveWeb(t, { filesDir: tempDir() });
  const { cookie } = await browser(s.server.url);
  const headers = { cookie, 'x-boxbot-token': s.adapter.apiToken };
  const token = encodeURIComponent(s.adapter.apiToken);
  const bad = encodeURIComponent('../x');
  const answers = await Promise.all([
    fetch(`${s.server.url}/chat/events?session=${bad}&token=${token}`, { headers }),
    fetch(`${s.server.url}/chat/history?session=${bad}`, { headers }),
    fetch(`${s.server.url}/chat/upload?session=${bad}&name=a.txt`, { method: 'POST', headers, body: 'hi' }),
    fetch(`${s.server.url}/chat/files/${'0'.repeat(24)}?session=${bad}`, { headers }),
  ]);
  for (const r of answers) {
    assert.equal(r.status, 400, r.url);
    assert.deepEqual(await r.json(), { error: 'session must be 8-64 letters, digits, _ or -' });
  }
});

test('web chat: a press is taken only for a button shown under a message of the pressing session', async (t) => {
  const s = await serveWeb(t);
  const { cookie, owner } = await browser(s.server.url);
  const [mine, other] = [`${owner}-tabaaaaaaaa`, `${owner}-tabbbbbbbbb`];
  const target = { conversationKey: `web:${mine}`, chatId: mine };
  const sent = await s.adapter.send(target, 'Deploy?', { buttons: [{ id: 'yes', label: 'Yes' }] });
  const press = async (session: string, button: string) => {
    const r = await fetch(`${s.server.url}/chat/press`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-boxbot-token': s.adapter.apiToken, cookie },
      body: JSON.stringify({ session, messageId: sent.messageId, button }),
    });
    return r.status;
  };
  assert.equal(await press(mine, 'no'), 404, 'a button not offered');
  assert.equal(await press(other, 'yes'), 404, 'another session, knowing the ids');
  assert.equal(s.received.length, 0);
  assert.equal(await press(mine, 'yes'), 202);
  assert.deepEqual(s.received[0]?.action, { id: 'yes', messageId: sent.messageId });
  await s.adapter.edit(target, sent.messageId, 'Deployed.', { buttons: [] });
  assert.equal(await press(mine, 'yes'), 404, 'an edit took the buttons away');
});

test('web chat: a button id over 64 bytes is refused at the send (its press would be), naming it', async (t) => {
  const s = await serveWeb(t);
  const target = { conversationKey: 'web:session-1234', chatId: 'session-1234' };
  const id = 'x'.repeat(65);
  await assert.rejects(s.adapter.send(target, 'pick', { buttons: [{ id, label: 'X' }] }), (e: unknown) => {
    assert.match((e as Error).message, /button id "x{65}" is 65 bytes; ids are 1-64 bytes/);
    return true;
  });
});

test("web chat uploads: one browser's uploads share a quota; a second browser has its own", async (t) => {
  const s = await serveWeb(t, { filesDir: tempDir('boxbot-web-quota-'), fileRetention: { ownerQuotaBytes: 2500 } });
  const token = s.adapter.apiToken;
  const upload = (b: { cookie: string; owner: string }, tab: string, size: number) =>
    fetch(`${s.server.url}/chat/upload?session=${b.owner}-${tab}&name=a.bin`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-boxbot-token': token, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(size),
    });
  const alice = await browser(s.server.url);
  const bob = await browser(s.server.url);
  assert.equal((await upload(alice, 'tab0123456789', 1000)).status, 201);
  // Another tab of the same browser draws on the same quota.
  assert.equal((await upload(alice, 'tababcdefghij', 1000)).status, 201);
  const refused = await upload(alice, 'tab0123456789', 1000);
  assert.equal(refused.status, 413);
  assert.match((await refused.json()).error, /^Upload refused: your uploads here already hold 0 MB of 0 MB\./);
  assert.equal((await upload(bob, 'tab0123456789', 1000)).status, 201, "another browser's quota is its own");
  // Two at once cannot both take the 500 bytes left.
  const both = await Promise.all([upload(alice, 'tab0123456789', 400), upload(alice, 'tab0123456789', 400)]);
  assert.deepEqual(both.map((r) => r.status).sort(), [201, 413]);
});

test('web chat files: unsent uploads expire in a day, sent ones after their retention, across restarts', async (t) => {
  const dir = tempDir('boxbot-web-expiry-');
  let clock = Date.parse('2026-03-01T00:00:00Z');
  const now = () => clock;
  const first = await serveWeb(t, { filesDir: dir, now });
  const token = first.adapter.apiToken;
  const alice = await browser(first.server.url);
  const session = `${alice.owner}-tab0123456789`;
  const upload = async (url: string, name: string) => {
    const r = await fetch(`${url}/chat/upload?session=${session}&name=${name}`, {
      method: 'POST',
      headers: { cookie: alice.cookie, 'x-boxbot-token': token, 'content-type': 'text/plain' },
      body: name,
    });
    assert.equal(r.status, 201);
    return ((await r.json()) as { id: string }).id;
  };
  const unsent = await upload(first.server.url, 'unsent.txt');
  const carried = await upload(first.server.url, 'carried.txt');
  const posted = await fetch(`${first.server.url}/chat/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-boxbot-token': token, cookie: alice.cookie },
    body: JSON.stringify({ session, text: 'see file', id: 'message-0001', attachments: [carried] }),
  });
  assert.equal(posted.status, 202);
  await first.adapter.sendFile!(
    { chatId: session, conversationKey: `web:${session}` },
    { name: 'answer.txt', mimeType: 'text/plain', bytes: new TextEncoder().encode('from the bot') },
  );
  await first.adapter.stop();

  // A day and a bit later a new process starts: the upload no message carried is gone, the rest stay.
  clock += 25 * 3600_000;
  const second = await serveWeb(t, { filesDir: dir, now, fileRetention: { keepMs: 3 * 24 * 3600_000 } });
  const files = () =>
    readdirSync(join(dir, session))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5));
  await waitUntil(() => !files().includes(unsent), 'the unsent upload swept at start', 5000);
  assert.equal(files().length, 2);
  assert.ok(files().includes(carried));
  const gone = await fetch(`${second.server.url}/chat/files/${unsent}?session=${session}`, {
    headers: { cookie: alice.cookie },
  });
  assert.equal(gone.status, 404);
  await second.adapter.stop();

  // Past the retention everything goes, and the empty session folder with it.
  clock += 3 * 24 * 3600_000;
  await serveWeb(t, { filesDir: dir, now, fileRetention: { keepMs: 3 * 24 * 3600_000 } });
  await waitUntil(() => !existsSync(join(dir, session)), 'the whole session folder swept', 5000);
});

test('web chat: a message the gateway did not take is recorded with a note saying so, not as sent', async (t) => {
  const { adapter, server } = await serveWeb(t, { display: createMemoryStore().webDisplay }, async () => {
    throw new Error('queue full');
  });
  const me = await browser(server.url);
  const session = `${me.owner}-tab0123456789`;
  const headers = { cookie: me.cookie, 'x-boxbot-token': adapter.apiToken, 'content-type': 'application/json' };
  const r = await fetch(`${server.url}/chat/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ session, text: 'hello?', id: 'msg0000001' }),
  });
  assert.equal(r.status, 503);
  assert.deepEqual(await r.json(), { error: 'not accepted, try again', noted: true });
  const h = await (await fetch(`${server.url}/chat/history?session=${session}`, { headers })).json();
  assert.deepEqual(
    h.events.map((e: { type: string; text: string }) => `${e.type}: ${e.text}`),
    ['user: hello?', 'note: Not sent: not accepted, try again'],
  );
});

test('web chat: an Edit the gateway did not take leaves the turn it would replace in place', async (t) => {
  let refuse = false;
  const { adapter, server } = await serveWeb(t, { display: createMemoryStore().webDisplay }, async () => {
    if (refuse) throw new Error('queue full');
  });
  const me = await browser(server.url);
  const session = `${me.owner}-tab0123456789`;
  const headers = { cookie: me.cookie, 'x-boxbot-token': adapter.apiToken, 'content-type': 'application/json' };
  const post = (body: object) =>
    fetch(`${server.url}/chat/messages`, { method: 'POST', headers, body: JSON.stringify({ session, ...body }) });
  assert.equal((await post({ text: 'capital of France?', id: 'msg0000001' })).status, 202);
  await adapter.send({ chatId: session, conversationKey: `web:${session}`, replyToMessageId: 'msg0000001' }, 'Lyon.');
  refuse = true;
  assert.equal((await post({ text: 'capital of Spain?', id: 'msg0000002', replaces: 'msg0000001' })).status, 503);
  const h = await (await fetch(`${server.url}/chat/history?session=${session}`, { headers })).json();
  assert.deepEqual(
    h.events.map((e: { type: string; text: string }) => `${e.type}: ${e.text}`),
    [
      'user: capital of France?',
      'message: Lyon.',
      'user: capital of Spain?',
      'note: Not sent: not accepted, try again',
    ],
  );
  refuse = false;
  // Only the last message can be replaced, and the refused one is the last now.
  const stale = await post({ text: 'again', id: 'msg0000003', replaces: 'msg0000001' });
  assert.equal(stale.status, 409);
  assert.deepEqual(await stale.json(), { error: 'only your last message can be edited or regenerated' });
});
