// The web chat adapter mounted on a real express server on 127.0.0.1:0, with one browser tab
// as the contract's AdapterHarness: messages posted the way the page posts them, and the bot's
// side read from the tab's Server-Sent Events stream. Files go the page's way too: uploaded,
// then named by id in the message; the bot's files are fetched through their download links.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createWebAdapter, type WebAdapter } from '../../src/adapters/web/index.ts';
import { readEventStream, tempDir, waitUntil } from '../helpers.ts';
import type { AdapterHarness, EmulatedBotFile, EmulatedBotMessage } from './contract.ts';

/** A harness plus the adapter's own handle and the base URL. */
export interface WebHarness extends AdapterHarness {
  adapter: WebAdapter;
  base: string;
}

type FileRef = { id: string; name: string; size: number; mimeType: string };
type WebEvent = { type: string; id?: string; text?: string; file?: FileRef };

/** Starts the server, loads the page as a browser would (for its cookie) and opens one tab's event stream. */
export async function webHarness(): Promise<WebHarness> {
  const adapter = createWebAdapter({ filesDir: tempDir('boxbot-web-files-') });
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
  // The bot's files as the user gets them: each link followed with the browser's cookie, in the
  // order the messages came (one download at a time keeps that order).
  const files: EmulatedBotFile[] = [];
  let downloads = Promise.resolve();
  const download = (id: string, f: FileRef, caption: string) => {
    downloads = downloads.then(async () => {
      const res = await fetch(`${base}/chat/files/${f.id}?session=${session}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`download of ${f.name}: HTTP ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      // The page shows an image inline when its link answers with an image type, else a link.
      const preview = await fetch(`${base}/chat/files/${f.id}?session=${session}&inline=1`, { headers: { cookie } });
      await preview.arrayBuffer();
      const shownAs = preview.ok && preview.headers.get('content-type')?.startsWith('image/') ? 'image' : 'file';
      files.push({ chatId: session, messageId: id, name: f.name, bytes, shownAs, ...(caption ? { caption } : {}) });
    });
  };
  const onEvent = (e: WebEvent) => {
    events.push(e);
    if (e.type === 'message' && e.id && e.file) download(e.id, e.file, e.text ?? '');
  };

  const listen = async () => {
    const res = await fetch(`${base}/chat/events?session=${session}&token=${encodeURIComponent(adapter.apiToken)}`, {
      signal: stream.signal,
      headers: { cookie },
    });
    if (!res.ok || !res.body) throw new Error(`event stream: HTTP ${res.status}`);
    readEventStream(
      res.body,
      (data) => onEvent(data as WebEvent),
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
    async userSendsFile(f) {
      const up = await fetch(`${base}/chat/upload?session=${session}&name=${encodeURIComponent(f.name)}`, {
        method: 'POST',
        headers: { 'content-type': f.mimeType, 'x-boxbot-token': adapter.apiToken, cookie },
        body: Buffer.from(f.bytes),
      });
      if (up.status !== 201) throw new Error(`the upload answered ${up.status}: ${await up.text()}`);
      const ref = (await up.json()) as FileRef;
      const status = await post({
        session,
        text: f.caption ?? '',
        id: `msg-${Date.now()}-${++n}`,
        attachments: [ref.id],
      });
      if (status !== 202) throw new Error(`the web chat answered ${status}`);
    },
    botFiles: () => [...files],
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
