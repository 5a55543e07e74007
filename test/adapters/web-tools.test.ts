// The web chat's tool entries: each call's input and the start of its output, redacted as log
// lines are and capped with a note, matched by call id when calls run side by side, and the same
// in the live stream as in the replayed history.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerSecrets } from '../../src/core/redact.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { readEventStream, waitUntil } from '../helpers.ts';
import { serveWeb } from './web-server.ts';

type Shown = { type: string; kind?: string; text?: string; detail?: string; call?: string; for?: string };

test('tool entries carry redacted, capped input and output by call id, live and replayed alike', async (t) => {
  registerSecrets(['hunter2-web-tool-secret']);
  const { adapter, server } = await serveWeb(t, { display: createMemoryStore().webDisplay }, async () => {});
  const stream = new AbortController();
  t.after(() => stream.abort());
  // A browser's first visit: the cookie that owns its sessions (`<owner>-<tab>`).
  const res = await fetch(`${server.url}/`);
  const me = /"OWNER":"([^"]+)"/.exec(await res.text())![1]!;
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const session = `${me}-tab0123456789`;
  const headers = { cookie, 'x-boxbot-token': adapter.apiToken };
  const live: Shown[] = [];
  const sse = await fetch(`${server.url}/chat/events?session=${session}&token=${adapter.apiToken}`, {
    headers,
    signal: stream.signal,
  });
  assert.equal(sse.status, 200);
  readEventStream(sse.body!, (e) => void live.push(e as Shown));

  const target = { chatId: session, conversationKey: `web:${session}`, replyToMessageId: 'm0001' };
  const long = `${'y'.repeat(20_000)}`;
  adapter.showActivity!(target, { kind: 'tool-start', text: 'fetching a page…', callId: 'c1', detail: '{"url":1}' });
  adapter.showActivity!(target, {
    kind: 'tool-start',
    text: 'running a command…',
    callId: 'c2',
    detail: '{"command": "echo hunter2-web-tool-secret"}',
  });
  // The second call ends first; its output names a secret and a key-shaped string.
  adapter.showActivity!(target, {
    kind: 'tool-end',
    text: 'bash done',
    callId: 'c2',
    detail: 'token hunter2-web-tool-secret and sk-abcdef1234567890 <img src=x onerror=alert(1)>',
    detailChars: 80,
  });
  // The first one's output was cut before it got here (20,000 of 50,000 characters).
  adapter.showActivity!(target, {
    kind: 'tool-end',
    text: 'fetch done',
    callId: 'c1',
    detail: long,
    detailChars: 50_000,
  });
  await waitUntil(() => live.filter((e) => e.type === 'activity').length === 4, 'the four live events', 5000);

  const ends = live.filter((e) => e.kind === 'tool-end');
  assert.equal(ends[0]!.call, 'c2', 'each end names its call');
  assert.equal(ends[0]!.detail, 'token [redacted] and [redacted] <img src=x onerror=alert(1)>');
  assert.equal(ends[0]!.for, 'm0001');
  const starts = live.filter((e) => e.kind === 'tool-start');
  assert.doesNotMatch(starts[1]!.detail!, /hunter2/, 'the input is redacted too');
  const cut = ends[1]!.detail!;
  assert.equal(cut.split('\n…')[0], 'y'.repeat(4000), 'the output is capped at 4000 characters');
  assert.match(cut, /\n… \[truncated: 50000 characters in all\]$/, 'with a note giving the whole length');

  const history = await (await fetch(`${server.url}/chat/history?session=${session}`, { headers })).json();
  assert.deepEqual(
    history.events,
    live.filter((e) => e.type === 'activity'),
    'the replayed history holds exactly what was shown live',
  );
});
