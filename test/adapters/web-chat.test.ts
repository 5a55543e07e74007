// The web chat adapter over HTTP: its page token, its access token and its session rules.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { createWebAdapter } from '../../src/adapters/web/index.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { startHttpServer } from '../../src/gateway/http-server.ts';

async function serve(t: TestContext, opts: Parameters<typeof createWebAdapter>[0] = {}) {
  const adapter = createWebAdapter(opts);
  const received: InboundMessage[] = [];
  await adapter.start(async (m) => void received.push(m));
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, metrics: createMetrics(), routes: [], attach: [(app) => adapter.attach(app)] });
  t.after(async () => {
    await adapter.stop();
    await server.close();
  });
  return { adapter, server, received };
}

test('web chat: a non-ASCII page or access token is refused with 401, not a 500', async (t) => {
  const s = await serve(t, { accessToken: 'access-token-123' });
  const token = s.adapter.apiToken;
  const wrongPage = `${token.slice(0, -1)}\u00e9`;
  const post = await fetch(`${s.server.url}/chat/messages?access=access-token-123`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-boxbot-token': wrongPage },
    body: JSON.stringify({ session: 'session-1234', text: 'hi', id: 'message-1234' }),
  });
  assert.equal(post.status, 401);
  const events = await fetch(`${s.server.url}/chat/events?session=session-1234&access=access-token-123&token=${encodeURIComponent(wrongPage)}`);
  assert.equal(events.status, 401);
  const page = await fetch(`${s.server.url}/?access=${encodeURIComponent('access-token-12\u00e9')}`);
  assert.equal(page.status, 401);
  assert.equal(s.received.length, 0);
});
