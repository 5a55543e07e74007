// A Telegram Bot API server on 127.0.0.1 for tests and benchmarks: `/bot<token>/<method>` with
// JSON, urlencoded or multipart bodies, long-poll getUpdates with offset confirmation, webhook
// delivery with the secret header, sent messages, edits and chat actions, and injectable faults.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Params, readParams } from './body.ts';
import { EmulatedFiles, type UserFileOptions, userFileMessage } from './files.ts';
import type { MessageEntity } from './html.ts';
import { BotApiError, callMethod } from './methods.ts';
import type {
  ChatAction,
  ChatState,
  EmulatedMessage,
  Fault,
  RecordedCall,
  SentFile,
  TelegramEmulatorOptions,
  UserMessageOptions,
} from './types.ts';
import { autoEntities, type ChatInfo, type UserInfo } from './updates.ts';
import { postUpdate } from './webhook-post.ts';

interface Queued {
  update_id: number;
  kind: string;
  update: Record<string, unknown>;
}

interface Waiter {
  res: ServerResponse;
  limit: number;
  timer: NodeJS.Timeout;
}

const DEFAULT_KINDS_EXCLUDED = ['chat_member', 'message_reaction', 'message_reaction_count'];

/** The emulator; see startTelegramEmulator. */
export class TelegramEmulator {
  readonly token: string;
  readonly bot: UserInfo & { username: string };
  apiRoot = '';
  /** Every call answered, in order. */
  readonly calls: RecordedCall[] = [];
  /** Webhook POSTs made: update id and the HTTP status the receiver answered (0: no answer). */
  readonly webhookAttempts: { updateId: number; status: number }[] = [];
  readonly chats = new Map<string, ChatState>();
  readonly sent: EmulatedMessage[] = [];
  readonly actions: ChatAction[] = [];
  readonly faults: Fault[] = [];
  /** Files users sent, served by getFile and the download URL. */
  readonly files = new EmulatedFiles();
  hook: { url: string; secret?: string } | undefined;
  allowedUpdates: string[] | undefined;
  private queue: Queued[] = [];
  private nextUpdateId = 1;
  private waiter: Waiter | undefined;
  private server: Server;
  private delivering = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: TelegramEmulatorOptions) {
    this.token = opts.token ?? '123456:TEST-token_emulator';
    const b = opts.bot ?? { id: 123456, username: 'boxbot_test_bot' };
    this.bot = { id: b.id, is_bot: true, first_name: b.first_name ?? 'Boxbot', username: b.username };
    this.server = createServer((req, res) => void this.serve(req, res));
  }

  /** Listens on 127.0.0.1, a free port. */
  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.apiRoot = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  // ---- inbound: what users do ------------------------------------------------------------

  /** Registers a chat (user messages register theirs by themselves). */
  addChat(chat: ChatInfo): ChatState {
    const key = String(chat.id);
    let state = this.chats.get(key);
    if (!state) {
      state = { chat, nextMessageId: 1, messages: new Map(), topics: new Map() };
      this.chats.set(key, state);
    }
    return state;
  }

  /** A user writes (or edits, or posts in a channel); queues the update and returns it. */
  userMessage(o: UserMessageOptions): Record<string, unknown> {
    const state = this.addChat(o.chat);
    if (o.threadId !== undefined && !state.topics.has(o.threadId))
      this.createTopic(o.chat, `topic ${o.threadId}`, o.from, o.threadId);
    const message = this.storeMessage(o.chat, o.from, {
      text: o.text,
      entities: o.entities ?? autoEntities(o.text),
      ...(o.threadId !== undefined ? { threadId: o.threadId } : {}),
      ...(o.replyTo !== undefined ? { replyTo: o.replyTo } : {}),
    });
    if (o.kind === 'channel_post') delete message.from;
    if (o.kind === 'edited_message') message.edit_date = message.date;
    const update = { update_id: this.nextUpdateId, [o.kind ?? 'message']: message };
    this.pushUpdate(update);
    return update;
  }

  /** A user sends a photo, document, voice note, audio or video note; returns the update. */
  userFile(o: UserFileOptions): Record<string, unknown> {
    return userFileMessage(this, o);
  }

  /** Creates a forum topic (its id is the id of its creation message) and returns the id. */
  createTopic(chat: ChatInfo, name: string, creator: UserInfo, id?: number): number {
    const state = this.addChat({ ...chat, is_forum: true });
    state.chat.is_forum = true;
    const topicId = id ?? state.nextMessageId;
    state.nextMessageId = Math.max(state.nextMessageId, topicId + 1);
    state.topics.set(topicId, { name, creator });
    return topicId;
  }

  /** Queues a raw update (any shape; `update_id` is assigned when missing) and returns its id. */
  pushUpdate(raw: Record<string, unknown>): number {
    const id = typeof raw.update_id === 'number' ? raw.update_id : this.nextUpdateId;
    this.nextUpdateId = Math.max(this.nextUpdateId, id + 1);
    const update = { ...raw, update_id: id };
    const kind = Object.keys(update).find((k) => k !== 'update_id') ?? 'unknown';
    if (this.kindAllowed(kind)) this.queue.push({ update_id: id, kind, update });
    this.flush();
    return id;
  }

  /** Stores a message in its chat and returns the Message object Telegram would send. */
  storeMessage(
    chat: ChatInfo,
    from: UserInfo,
    fields: {
      text: string;
      entities: MessageEntity[];
      threadId?: number;
      replyTo?: number;
      sentText?: string;
      parseMode?: string;
      date?: number;
      file?: SentFile;
    },
  ): Record<string, unknown> {
    const state = this.addChat(chat);
    const id = state.nextMessageId++;
    const stored: EmulatedMessage = {
      chatId: String(chat.id),
      ...(fields.threadId !== undefined ? { threadId: String(fields.threadId) } : {}),
      messageId: String(id),
      text: fields.text,
      entities: fields.entities,
      sentText: fields.sentText ?? fields.text,
      ...(fields.parseMode ? { parseMode: fields.parseMode } : {}),
      edits: 0,
      fromBot: from.id === this.bot.id,
      ...(fields.replyTo !== undefined ? { replyTo: String(fields.replyTo) } : {}),
      date: fields.date ?? Math.floor(Date.now() / 1000),
      ...(fields.file ? { file: fields.file } : {}),
    };
    state.messages.set(id, stored);
    if (stored.fromBot) this.sent.push(stored);
    return this.messageObject(state, stored, from);
  }

  /** The Bot API Message object of a stored message. */
  messageObject(state: ChatState, m: EmulatedMessage, from?: UserInfo, nested = true): Record<string, unknown> {
    const sender = from ?? (m.fromBot ? this.bot : undefined);
    const threadId = m.threadId !== undefined ? Number(m.threadId) : undefined;
    const replyTo = m.replyTo !== undefined ? state.messages.get(Number(m.replyTo)) : undefined;
    const topic = threadId !== undefined ? state.topics.get(threadId) : undefined;
    let reply: Record<string, unknown> | undefined;
    if (nested && replyTo) reply = this.messageObject(state, replyTo, undefined, false);
    else if (nested && topic && threadId !== undefined) {
      // Messages in a topic that reply to nothing "reply" to the topic's creation message.
      reply = {
        message_id: threadId,
        from: topic.creator,
        chat: state.chat,
        date: m.date,
        message_thread_id: threadId,
        forum_topic_created: { name: topic.name, icon_color: 7322096 },
        is_topic_message: true,
      };
    }
    return {
      message_id: Number(m.messageId),
      ...(sender ? { from: sender } : {}),
      chat: state.chat,
      date: m.date,
      ...(threadId !== undefined ? { message_thread_id: threadId, is_topic_message: true } : {}),
      ...(reply ? { reply_to_message: reply } : {}),
      ...(m.file ? fileFields(m) : { text: m.text }),
      ...(m.entities.length > 0 && !m.file ? { entities: m.entities } : {}),
      ...(m.edits > 0 ? { edit_date: Math.floor(Date.now() / 1000) } : {}),
    };
  }

  // ---- outbound observations -------------------------------------------------------------

  /** Messages the bot sent (optionally in one chat), in order, with their latest text. */
  botMessages(chatId?: string): EmulatedMessage[] {
    return chatId === undefined ? [...this.sent] : this.sent.filter((m) => m.chatId === chatId);
  }

  /** Files (photos and documents) the bot sent, optionally in one chat, in order. */
  botFiles(chatId?: string): (SentFile & { chatId: string; messageId: string; caption: string })[] {
    return this.botMessages(chatId).flatMap((m) =>
      m.file ? [{ ...m.file, chatId: m.chatId, messageId: m.messageId, caption: m.text }] : [],
    );
  }

  /** 1 while a getUpdates call is being held open (long poll), else 0. */
  heldPolls(): number {
    return this.waiter ? 1 : 0;
  }

  /** Updates queued and not yet confirmed (polling) or delivered (webhook). */
  pendingUpdates(): number {
    return this.queue.length;
  }

  /** The next `n` calls of `methods` (default: sendMessage, editMessageText, sendChatAction) get Telegram's 429. */
  rateLimitNext(
    n: number,
    retryAfterSeconds: number,
    methods = ['sendMessage', 'editMessageText', 'sendChatAction'],
  ): void {
    this.faults.push({
      methods,
      count: n,
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfterSeconds}`,
      retry_after: retryAfterSeconds,
    });
  }

  /**
   * Injects a failure (e.g. `{ methods: ['getUpdates'], count: 1, error_code: 409, description: 'Conflict: ...' }`).
   */
  failNext(fault: Fault): void {
    this.faults.push(fault);
  }

  // ---- getUpdates and webhooks -----------------------------------------------------------

  private kindAllowed(kind: string): boolean {
    const allowed = this.allowedUpdates;
    if (
      kind === 'unknown' ||
      ![
        'message',
        'edited_message',
        'channel_post',
        'edited_channel_post',
        'callback_query',
        'inline_query',
        'my_chat_member',
        'chat_member',
        'message_reaction',
        'message_reaction_count',
      ].includes(kind)
    )
      return true;
    return allowed && allowed.length > 0 ? allowed.includes(kind) : !DEFAULT_KINDS_EXCLUDED.includes(kind);
  }

  /** getUpdates: confirms below `offset`, answers at once when updates wait, else holds up to `timeout` s. */
  getUpdates(res: ServerResponse, offset: number | undefined, limit: number, timeout: number, allowed: unknown): void {
    if (this.hook)
      throw new BotApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    if (Array.isArray(allowed)) {
      this.allowedUpdates = allowed.map(String);
      this.queue = this.queue.filter((q) => this.kindAllowed(q.kind));
    }
    if (offset !== undefined && offset < 0) this.queue = this.queue.slice(offset);
    else if (offset !== undefined) this.queue = this.queue.filter((q) => q.update_id >= offset);
    if (this.waiter) {
      const old = this.waiter;
      this.waiter = undefined;
      clearTimeout(old.timer);
      this.answer(old.res, 409, {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      });
    }
    if (this.queue.length > 0 || timeout <= 0) {
      this.answer(res, 200, { ok: true, result: this.queue.slice(0, limit).map((q) => q.update) });
      return;
    }
    const waiter: Waiter = {
      res,
      limit,
      timer: setTimeout(() => {
        if (this.waiter === waiter) this.waiter = undefined;
        this.answer(res, 200, { ok: true, result: [] });
      }, timeout * 1000),
    };
    this.waiter = waiter;
    res.on('close', () => {
      if (this.waiter === waiter) {
        clearTimeout(waiter.timer);
        this.waiter = undefined;
      }
    });
  }

  /** Sets or removes the webhook; pending updates then go to it. */
  setHook(hook: { url: string; secret?: string } | undefined, dropPending: boolean): void {
    this.hook = hook;
    if (dropPending) this.queue = [];
    this.flush();
  }

  private flush(): void {
    if (this.closed || this.queue.length === 0) return;
    if (this.hook) {
      void this.deliver();
      return;
    }
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      clearTimeout(w.timer);
      this.answer(w.res, 200, { ok: true, result: this.queue.slice(0, w.limit).map((q) => q.update) });
    }
  }

  // Webhook delivery: one update at a time, in order; a non-2xx answer is retried later.
  private async deliver(): Promise<void> {
    if (this.delivering) return;
    this.delivering = true;
    try {
      while (!this.closed && this.hook && this.queue.length > 0) {
        const next = this.queue[0]!;
        const status = await postUpdate(this.hook, next.update);
        this.webhookAttempts.push({ updateId: next.update_id, status });
        if (status >= 200 && status < 300) {
          if (this.queue[0] === next) this.queue.shift();
          continue;
        }
        await new Promise<void>((r) => (this.retryTimer = setTimeout(r, this.opts.webhookRetryMs ?? 50)));
      }
    } finally {
      this.delivering = false;
    }
  }

  // ---- HTTP --------------------------------------------------------------------------------

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download && req.method === 'GET') {
      const tokenOk = decodeURIComponent(download[1]!) === this.token;
      return this.files.serve(res, tokenOk, decodeURIComponent(download[2]!));
    }
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!m) return this.answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const method = m[2]!;
    let params: Params = {};
    try {
      params = await readParams(req, url);
      if (decodeURIComponent(m[1]!) !== this.token) throw new BotApiError(401, 'Unauthorized');
      const fault = this.takeFault(method, params);
      if (fault?.network) {
        this.calls.push({ method, params, status: 0 });
        res.socket?.destroy();
        return;
      }
      if (fault) throw new BotApiError(fault.error_code, fault.description, fault.retry_after);
      if (method === 'getUpdates') {
        this.calls.push({ method, params, status: 200 });
        return this.getUpdatesCall(res, params);
      }
      const result = callMethod(this, method, params);
      this.calls.push({ method, params, status: 200 });
      this.answer(res, 200, { ok: true, result });
    } catch (e) {
      const err =
        e instanceof BotApiError
          ? e
          : new BotApiError(400, `Bad Request: ${e instanceof Error ? e.message : String(e)}`);
      this.calls.push({ method, params, status: err.code });
      this.answer(res, err.code, {
        ok: false,
        error_code: err.code,
        description: err.description,
        ...(err.retryAfter !== undefined ? { parameters: { retry_after: err.retryAfter } } : {}),
      });
    }
  }

  private getUpdatesCall(res: ServerResponse, p: Params): void {
    const num = (v: unknown): number | undefined =>
      typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : undefined;
    const limit = Math.min(Math.max(num(p.limit) ?? 100, 1), 100);
    this.getUpdates(res, num(p.offset), limit, num(p.timeout) ?? 0, p.allowed_updates);
  }

  private takeFault(method: string, params: Params): Fault | undefined {
    const i = this.faults.findIndex(
      (f) => f.count > 0 && (!f.methods || f.methods.includes(method)) && (!f.when || f.when(params)),
    );
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    if (--f.count <= 0) this.faults.splice(i, 1);
    return f;
  }

  private answer(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** Stops serving and delivering; open long polls are cut. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    if (this.waiter) clearTimeout(this.waiter.timer);
    this.waiter = undefined;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Starts an emulator on 127.0.0.1 (port 0). Point grammY's `apiRoot` at `emulator.apiRoot`. */
export async function startTelegramEmulator(opts: TelegramEmulatorOptions = {}): Promise<TelegramEmulator> {
  const emulator = new TelegramEmulator(opts);
  await emulator.listen();
  return emulator;
}

/** The Bot API fields of a photo or document message (the caption in place of text). */
function fileFields(m: EmulatedMessage): Record<string, unknown> {
  const f = m.file!;
  const id = `file-${m.chatId}-${m.messageId}`;
  const media =
    f.kind === 'photo'
      ? { photo: [{ file_id: id, file_unique_id: id, width: 1, height: 1, file_size: f.bytes.byteLength }] }
      : {
          document: {
            file_id: id,
            file_unique_id: id,
            file_name: f.name,
            mime_type: f.contentType,
            file_size: f.bytes.byteLength,
          },
        };
  return { ...media, ...(m.text ? { caption: m.text } : {}) };
}
