// The web chat adapter mounted on a real express server on 127.0.0.1:0, with one browser tab
// as the contract's AdapterHarness: messages posted the way the page posts them, and the bot's
// side read from the tab's Server-Sent Events stream.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createWebAdapter, type WebAdapter } from '../../src/adapters/web/index.ts';
import { readEventStream, waitUntil } from '../helpers.ts';
import type { AdapterHarness, EmulatedBotMessage } from './contract.ts';

/** A harness plus the adapter's own handle and the base URL. */
export interface WebHarness extends AdapterHarness {
  adapter: WebAdapter;
  base: string;
}

type WebEvent = { type: string; id?: string; text?: string };

/** Starts the server, loads the page as a browser would (for its cookie) and opens one tab's event stream. */
export async function webHarness(): Promise<WebHarness> {
  const adapter = createWebAdapter();
  const app = express();
  adapter.attach(app);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Like a browser: the page sets the cookie that owns this browser's sessions (`<owner>-<tab>`).
  const pageRes = await fetch(`${base}/`);
  const owner = /"OWNER":"([^"]+)"/.exec(await pageRes.text())?.[1];
  const cookie = pageRes.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  if (!owner || !cookie) throw new Error('the page carries no owner or cookie');
  const session = `${owner}-tab${Math.random().toString(36).slice(2, 12)}`;
  const events: WebEvent[] = [];
  const stream = new AbortController();
  let connected = false;

  const listen = async () => {
    const res = await fetch(`${base}/chat/events?session=${session}&token=${encodeURIComponent(adapter.apiToken)}`, {
      signal: stream.signal,
      headers: { cookie },
    });
    if (!res.ok || !res.body) throw new Error(`event stream: HTTP ${res.status}`);
    readEventStream(
      res.body,
      (data) => events.push(data as WebEvent),
      (comment) => {
        if (comment.startsWith('connected')) connected = true;
      },
    );
    await waitUntil(() => connected, 'the event stream', 5000);
  };
  await listen();

  let n = 0;
  const post = (body: unknown) =>
    fetch(`${base}/chat/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-boxbot-token': adapter.apiToken, cookie },
      body: JSON.stringify(body),
    }).then(async (r) => {
      await r.text();
      return r.status;
    });
  const target = { chatId: session, conversationKey: `web:${session}` };
  const noGroups = () => {
    throw new Error('the web chat has no groups');
  };

  return {
    adapter,
    base,
    async userSays(o) {
      if (!o.direct || o.fromBot || o.threadId)
        throw new Error('the web chat has only direct messages from its one user');
      const status = await post({ session, text: o.text, id: `msg-${Date.now()}-${++n}` });
      if (status !== 202) throw new Error(`the web chat answered ${status}`);
    },
    async sendMalformed() {
      await post({ session, text: 42, id: 'x' });
    },
    directTarget: () => target,
    groupTarget: noGroups,
    botMessages(): EmulatedBotMessage[] {
      const byId = new Map<string, EmulatedBotMessage>();
      for (const e of events) {
        if (e.type === 'message' && e.id)
          byId.set(e.id, { chatId: session, messageId: e.id, text: e.text ?? '', edits: 0 });
        if (e.type === 'edit' && e.id) {
          const m = byId.get(e.id);
          if (m) byId.set(e.id, { ...m, text: e.text ?? '', edits: m.edits + 1 });
        }
      }
      return [...byId.values()];
    },
    typingCount: () => events.filter((e) => e.type === 'typing').length,
    rateLimitNext() {
      throw new Error('the web chat has no rate limits');
    },
    async close() {
      stream.abort();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
