// Test wiring for the Telegram adapter: the emulator, the adapter pointed at it (polling or
// webhook), an in-memory AdapterState, and a small HTTP server mounting the adapter's routes
// the way the gateway's server does. Used by the contract run and the Telegram specifics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterRoute, AdapterState } from '../../../src/adapters/index.ts';
import {
  createTelegramAdapter,
  type TelegramAdapter,
  type TelegramAdapterOptions,
} from '../../../src/adapters/telegram/index.ts';
import type { AdapterHarness } from '../../adapters/contract.ts';
import { startTelegramEmulator, type TelegramEmulator } from './server.ts';
import type { ChatInfo, UserInfo } from './updates.ts';

/** The default user (their private chat has the same id). */
export const ADA: UserInfo = { id: 4242, is_bot: false, first_name: 'Ada', username: 'ada' };
/** A supergroup the bot is in. */
export const GROUP: ChatInfo = { id: -1001234567890, type: 'supergroup', title: 'Boxbot testers' };
/** The webhook secret used in tests. */
export const WEBHOOK_SECRET = 'test-secret_0123456789';

/** An AdapterState kept in memory; `data` shows what was persisted. */
export function memoryState(): AdapterState & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: async (key) => data.get(key),
    set: async (key, value) => {
      data.set(key, value);
    },
  };
}

/** An HTTP server on 127.0.0.1 serving whatever `routes()` returns (method + path), with raw bodies. */
export async function serveRoutes(routes: () => AdapterRoute[]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const route = routes().find(
      (r) => r.method === req.method && r.path === new URL(req.url ?? '/', 'http://x').pathname,
    );
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const out = await route.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) });
    res.writeHead(out.status, out.headers).end(out.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The adapter harness plus the pieces the Telegram specifics look at. */
export interface TelegramHarness extends AdapterHarness {
  adapter: TelegramAdapter;
  emulator: TelegramEmulator;
  state: ReturnType<typeof memoryState>;
  /** The webhook URL (webhook mode). */
  webhookUrl?: string;
  /** A fresh adapter on the same emulator and state (a restart). */
  newAdapter(over?: Partial<TelegramAdapterOptions>): TelegramAdapter;
}

/** Starts an emulator and an adapter on it (not started: call adapter.start). */
export async function telegramHarness(
  opts: { mode?: 'polling' | 'webhook'; emulator?: TelegramEmulator } = {},
): Promise<TelegramHarness> {
  const emulator = opts.emulator ?? (await startTelegramEmulator());
  const state = memoryState();
  let current: TelegramAdapter | undefined;
  const all: TelegramAdapter[] = [];
  const routesServer = opts.mode === 'webhook' ? await serveRoutes(() => current?.routes() ?? []) : undefined;
  const webhookUrl = routesServer ? `${routesServer.url}/webhooks/telegram` : undefined;
  const newAdapter = (over: Partial<TelegramAdapterOptions> = {}): TelegramAdapter => {
    current = createTelegramAdapter({
      token: emulator.token,
      apiRoot: emulator.apiRoot,
      state,
      backoff: { initialMs: 20, maxMs: 200 },
      ...(opts.mode === 'webhook' ? { mode: 'webhook', webhook: { url: webhookUrl!, secret: WEBHOOK_SECRET } } : {}),
      ...over,
    });
    all.push(current);
    return current;
  };
  const adapter = newAdapter();
  emulator.addChat({ id: ADA.id, type: 'private', first_name: ADA.first_name });
  emulator.addChat(GROUP);
  return {
    adapter,
    emulator,
    state,
    ...(webhookUrl ? { webhookUrl } : {}),
    newAdapter,
    async userSays(o) {
      const from: UserInfo = {
        id: Number(o.userId ?? ADA.id),
        is_bot: o.fromBot === true,
        first_name: o.userName ?? ADA.first_name,
        username: o.userName ?? ADA.username!,
      };
      const chat: ChatInfo = o.direct ? { id: from.id, type: 'private', first_name: from.first_name } : GROUP;
      const text = o.mention ? `@${emulator.bot.username} ${o.text}` : o.text;
      emulator.userMessage({ chat, from, text, ...(o.threadId ? { threadId: Number(o.threadId) } : {}) });
    },
    async userSendsFile(f) {
      const chat: ChatInfo = { id: ADA.id, type: 'private', first_name: ADA.first_name };
      const kind = {
        image: 'photo',
        voice: 'voice',
        audio: 'audio',
        video: 'video_note',
        document: 'document',
      } as const;
      emulator.userFile({
        chat,
        from: ADA,
        kind: kind[f.kind],
        bytes: f.bytes,
        fileName: f.name,
        mimeType: f.mimeType,
        ...(f.caption ? { caption: f.caption } : {}),
      });
    },
    async sendMalformed() {
      emulator.pushUpdate({ message: { message_id: 'x', chat: 'nope', text: 42 } });
    },
    directTarget: () => ({ chatId: String(ADA.id), conversationKey: `telegram:${ADA.id}` }),
    groupTarget: () => ({ chatId: String(GROUP.id), conversationKey: `telegram:${GROUP.id}` }),
    botMessages: () => emulator.botMessages(),
    typingCount: () => emulator.actions.filter((a) => a.action === 'typing').length,
    rateLimitNext: (n, retryAfterMs) => emulator.rateLimitNext(n, Math.ceil(retryAfterMs / 1000)),
    botFiles: () =>
      emulator.botFiles().map((f) => ({
        chatId: f.chatId,
        messageId: f.messageId,
        name: f.name,
        bytes: f.bytes,
        ...(f.caption ? { caption: f.caption } : {}),
        shownAs: f.kind === 'photo' ? ('image' as const) : ('file' as const),
      })),
    rateLimitFilesNext: (n, retryAfterMs) =>
      emulator.rateLimitNext(n, Math.ceil(retryAfterMs / 1000), ['sendPhoto', 'sendDocument']),
    async close() {
      for (const a of all) await a.stop();
      await routesServer?.close();
      if (!opts.emulator) await emulator.close();
    },
  };
}
