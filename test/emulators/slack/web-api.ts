// The emulated Slack Web API: `POST /api/<method>` with form-encoded or JSON bodies (as Slack
// accepts), the token as `Authorization: Bearer` or a `token` parameter, answers
// `{ok:true,...}` / `{ok:false,error}` with HTTP 200, and HTTP 429 + Retry-After when limited.
// Files go by the external upload flow: getUploadURLExternal answers a one-time URL served by
// the emulator itself (`receiveUpload`), completeUploadExternal shares what arrived there (each
// call shares it once more, so a repeated share shows), files.info tells where it is shared.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredMessage, Workspace } from './workspace.ts';

/** One call the API received (tokens are not kept). */
export interface ApiCall {
  method: string;
  params: Record<string, unknown>;
}

/** Hooks the rest of the emulator provides. */
export interface WebApiHooks {
  /** A single-use WebSocket URL for apps.connections.open. */
  openConnection(): string;
  /** Called after the bot posted or edited (echo as events, if enabled). */
  onBotMessage(m: StoredMessage, kind: 'posted' | 'edited'): void;
  /** The one-time upload URL of a file id. */
  uploadUrl(fileId: string): string;
}

/** An upload started by getUploadURLExternal, and where completeUploadExternal shared it. */
interface PendingUpload {
  filename: string;
  length: number;
  bytes?: Uint8Array;
  shares: { channel: string; ts: string; threadTs?: string }[];
}

/** Slack's limit on `text`. */
export const MAX_TEXT = 40_000;

/** Request handling, rate-limit and failure injection of the Web API. */
export class WebApi {
  /** The most recent calls (the last 10,000, so long benchmark runs stay small). */
  readonly calls: ApiCall[] = [];
  private readonly counts = new Map<string, number>();
  private rateLimits: { methods: Set<string>; retryAfterSec: number }[] = [];
  private failures: { method: string; error?: string; httpStatus?: number }[] = [];
  private lostAnswers: string[] = [];
  private readonly uploads = new Map<string, PendingUpload>();
  private nextFile = 1;
  /** Statuses the next uploads to the one-time URL are answered with (429 and 5xx faults). */
  readonly uploadFaults: number[] = [];

  /** Takes the bytes POSTed to a one-time upload URL; answers the HTTP status Slack would. */
  receiveUpload(fileId: string, bytes: Uint8Array): number {
    const fault = this.uploadFaults.shift();
    if (fault) return fault;
    const upload = this.uploads.get(fileId);
    if (!upload || upload.bytes) return 404; // unknown or already used
    upload.bytes = bytes;
    return 200;
  }

  constructor(
    private readonly ws: Workspace,
    private readonly tokens: { bot: string; app: string },
    private readonly hooks: WebApiHooks,
  ) {}

  /** The next `n` calls of `methods` get HTTP 429 with `Retry-After: retryAfterSec`. */
  rateLimitNext(n: number, retryAfterSec: number, methods: string[]): void {
    for (let i = 0; i < n; i++) this.rateLimits.push({ methods: new Set(methods), retryAfterSec });
  }

  /** Drops the rate limits not used yet (the end of a 429 storm). */
  clearRateLimits(): void {
    this.rateLimits = [];
  }

  /** The next call of `method` fails: `{ok:false,error}` with 200, or a bare HTTP `httpStatus`. */
  failNext(method: string, failure: { error?: string; httpStatus?: number }): void {
    this.failures.push({ method, ...failure });
  }

  /**
   * The next call of `method` is carried out, then its connection is cut before the answer
   * leaves (Slack did it; the client cannot know).
   */
  loseAnswerNext(method: string): void {
    this.lostAnswers.push(method);
  }

  /** How many calls of `method` were received. */
  count(method: string): number {
    return this.counts.get(method) ?? 0;
  }

  /** Handles one HTTP request under `/api/`. */
  async handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const raw = await readBody(req);
    const params = parseParams(req, raw);
    const token = bearer(req.headers.authorization) ?? (typeof params.token === 'string' ? params.token : undefined);
    delete params.token;
    this.calls.push({ method, params });
    if (this.calls.length > 10_000) this.calls.splice(0, this.calls.length - 10_000);
    this.counts.set(method, (this.counts.get(method) ?? 0) + 1);

    const limitIdx = this.rateLimits.findIndex((r) => r.methods.has(method));
    if (limitIdx >= 0) {
      const [limit] = this.rateLimits.splice(limitIdx, 1);
      return send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limit!.retryAfterSec) });
    }
    const failIdx = this.failures.findIndex((f) => f.method === method);
    if (failIdx >= 0) {
      const [f] = this.failures.splice(failIdx, 1);
      if (f!.httpStatus) return send(res, f!.httpStatus, { ok: false, error: 'http_error' });
      return send(res, 200, { ok: false, error: f!.error ?? 'internal_error' });
    }

    if (!token) return send(res, 200, { ok: false, error: 'not_authed' });
    const kind = token === this.tokens.bot ? 'bot' : token === this.tokens.app ? 'app' : undefined;
    if (!kind) return send(res, 200, { ok: false, error: 'invalid_auth' });
    if ((method === 'apps.connections.open') !== (kind === 'app'))
      return send(res, 200, { ok: false, error: 'not_allowed_token_type' });
    const answer = this.call(method, params);
    const lost = this.lostAnswers.indexOf(method);
    if (lost >= 0) {
      this.lostAnswers.splice(lost, 1);
      res.socket?.destroy();
      return;
    }
    send(res, 200, answer);
  }

  private call(method: string, p: Record<string, unknown>): Record<string, unknown> {
    const ids = this.ws.ids;
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://emulator.slack.com/',
          team: ids.teamName,
          user: ids.botName,
          team_id: ids.teamId,
          user_id: ids.botUserId,
          bot_id: ids.botId,
          is_enterprise_install: false,
        };
      case 'apps.connections.open':
        return { ok: true, url: this.hooks.openConnection() };
      case 'users.info': {
        const id = str(p.user);
        const u = id ? this.ws.users.get(id) : undefined;
        if (!id || !u) return { ok: false, error: 'user_not_found' };
        return {
          ok: true,
          user: {
            id,
            team_id: ids.teamId,
            name: u.name,
            real_name: u.name,
            is_bot: false,
            profile: { display_name: u.displayName, real_name: u.name },
          },
        };
      }
      // Channel history, as Slack pages it: top-level messages newest first (with reply_count),
      // a thread's parent and replies oldest first; `cursor` is an offset.
      case 'conversations.history':
      case 'conversations.replies': {
        const channel = str(p.channel);
        if (!channel) return { ok: false, error: 'channel_not_found' };
        const oldest = Number(str(p.oldest) ?? p.oldest ?? 0);
        const limit = Math.min(1000, Number(p.limit ?? 100) || 100);
        const offset = Number(str(p.cursor) ?? 0) || 0;
        const inChannel = this.ws.messages.filter((m) => m.channel === channel && Number(m.ts) >= oldest);
        const parent = str(p.ts);
        const list =
          method === 'conversations.history'
            ? inChannel.filter((m) => !m.threadTs || m.threadTs === m.ts).reverse()
            : inChannel.filter((m) => m.ts === parent || m.threadTs === parent);
        const page = list.slice(offset, offset + limit).map((m) => {
          const replies = this.ws.messages.filter((r) => r.channel === channel && r.threadTs === m.ts && r.ts !== m.ts);
          return {
            type: 'message',
            text: m.text,
            ts: m.ts,
            ...(m.user ? { user: m.user } : {}),
            ...(m.botId ? { bot_id: m.botId } : {}),
            ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
            ...(replies.length ? { thread_ts: m.ts, reply_count: replies.length } : {}),
            ...(m.edits ? { edited: { user: m.user, ts: m.ts } } : {}),
          };
        });
        const more = offset + limit < list.length;
        return {
          ok: true,
          messages: page,
          has_more: more,
          response_metadata: { next_cursor: more ? String(offset + limit) : '' },
        };
      }
      case 'chat.postMessage': {
        const channel = str(p.channel);
        const text = str(p.text) ?? '';
        if (!channel) return { ok: false, error: 'channel_not_found' };
        if (!text && !p.blocks && !p.attachments) return { ok: false, error: 'no_text' };
        if (text.length > MAX_TEXT) return { ok: false, error: 'msg_too_long' };
        const threadTs = str(p.thread_ts);
        const blocks = blocksParam(p.blocks);
        if (blocks === null) return { ok: false, error: 'invalid_blocks' };
        const m = this.ws.add({
          channel,
          ts: this.ws.nextTs(),
          ...(threadTs ? { threadTs } : {}),
          user: ids.botUserId,
          botId: ids.botId,
          text,
          edits: 0,
          params: p,
          ...(blocks && blocks.length > 0 ? { blocks } : {}),
        });
        this.hooks.onBotMessage(m, 'posted');
        return { ok: true, channel, ts: m.ts, message: this.view(m) };
      }
      case 'chat.update': {
        const channel = str(p.channel);
        const ts = str(p.ts);
        if (!channel) return { ok: false, error: 'channel_not_found' };
        const m = ts ? this.ws.find(channel, ts) : undefined;
        if (!m) return { ok: false, error: 'message_not_found' };
        if (m.botId !== ids.botId) return { ok: false, error: 'cant_update_message' };
        const text = str(p.text) ?? '';
        if (!text && !p.blocks) return { ok: false, error: 'no_text' };
        if (text.length > MAX_TEXT) return { ok: false, error: 'msg_too_long' };
        // Slack keeps the blocks when an update names none; an empty list removes them.
        const blocks = blocksParam(p.blocks);
        if (blocks === null) return { ok: false, error: 'invalid_blocks' };
        if (blocks && blocks.length > 0) m.blocks = blocks;
        else if (blocks) delete m.blocks;
        m.text = text;
        m.edits += 1;
        this.hooks.onBotMessage(m, 'edited');
        return { ok: true, channel, ts: m.ts, text, message: this.view(m) };
      }
      case 'chat.postEphemeral': {
        const channel = str(p.channel);
        const user = str(p.user);
        const text = str(p.text) ?? '';
        if (!channel) return { ok: false, error: 'channel_not_found' };
        if (!user) return { ok: false, error: 'user_not_found' };
        if (!text && !p.blocks) return { ok: false, error: 'no_text' };
        const threadTs = str(p.thread_ts);
        this.ws.ephemeral.push({ channel, user, text, ...(threadTs ? { threadTs } : {}) });
        return { ok: true, message_ts: this.ws.nextTs() };
      }
      case 'files.getUploadURLExternal': {
        const filename = str(p.filename);
        const length = Number(p.length);
        if (!filename || !Number.isInteger(length) || length < 0) return { ok: false, error: 'invalid_arguments' };
        const id = `F${String(this.nextFile++).padStart(9, '0')}`;
        this.uploads.set(id, { filename, length, shares: [] });
        return { ok: true, upload_url: this.hooks.uploadUrl(id), file_id: id };
      }
      case 'files.completeUploadExternal': {
        const files = typeof p.files === 'string' ? safeJson(p.files) : p.files;
        const channel = str(p.channel_id);
        if (!Array.isArray(files) || files.length === 0) return { ok: false, error: 'invalid_arguments' };
        if (!channel) return { ok: false, error: 'channel_not_found' };
        const shared: { id: string; name: string; title: string; bytes: Uint8Array }[] = [];
        for (const f of files as { id?: unknown; title?: unknown }[]) {
          const id = typeof f.id === 'string' ? f.id : '';
          const upload = this.uploads.get(id);
          if (!upload?.bytes) return { ok: false, error: 'file_not_found' };
          if (upload.bytes.byteLength !== upload.length) return { ok: false, error: 'file_upload_size_mismatch' };
          shared.push({ id, name: upload.filename, title: str(f.title) ?? upload.filename, bytes: upload.bytes });
        }
        const threadTs = str(p.thread_ts);
        const m = this.ws.add({
          channel,
          ts: this.ws.nextTs(),
          ...(threadTs ? { threadTs } : {}),
          user: ids.botUserId,
          botId: ids.botId,
          text: str(p.initial_comment) ?? '',
          edits: 0,
          params: p,
          files: shared,
        });
        for (const f of shared)
          this.uploads.get(f.id)!.shares.push({ channel, ts: m.ts, ...(threadTs ? { threadTs } : {}) });
        this.hooks.onBotMessage(m, 'posted');
        return {
          ok: true,
          files: shared.map((f) => ({ id: f.id, name: f.name, title: f.title, size: f.bytes.length })),
        };
      }
      case 'files.info': {
        // Shares by scope, then channel (C…: public; G…, D…: private), each with the message ts
        // and, in a thread, its thread_ts; a file not shared yet has none.
        const id = str(p.file) ?? '';
        const upload = this.uploads.get(id);
        if (!upload) return { ok: false, error: 'file_not_found' };
        const shares: Record<'public' | 'private', Record<string, unknown[]>> = { public: {}, private: {} };
        for (const sh of upload.shares)
          (shares[sh.channel.startsWith('C') ? 'public' : 'private'][sh.channel] ??= []).push({
            ts: sh.ts,
            ...(sh.threadTs ? { thread_ts: sh.threadTs } : {}),
            team_id: ids.teamId,
          });
        return {
          ok: true,
          file: {
            id,
            name: upload.filename,
            title: upload.filename,
            size: upload.length,
            shares: Object.fromEntries(Object.entries(shares).filter(([, v]) => Object.keys(v).length)),
          },
        };
      }
      case 'assistant.threads.setStatus':
        return str(p.channel_id) && str(p.thread_ts) ? { ok: true } : { ok: false, error: 'invalid_arguments' };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  private view(m: StoredMessage): Record<string, unknown> {
    const ids = this.ws.ids;
    return {
      type: 'message',
      text: m.text,
      user: ids.botUserId,
      bot_id: ids.botId,
      app_id: ids.appId,
      ts: m.ts,
      team: ids.teamId,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      bot_profile: { id: ids.botId, name: ids.botName, app_id: ids.appId, team_id: ids.teamId, deleted: false },
    };
  }
}

// blocks arrive JSON-encoded in form bodies; null when they are not a list.
function blocksParam(v: unknown): unknown[] | undefined | null {
  if (v === undefined) return undefined;
  let blocks: unknown = v;
  if (typeof v === 'string') {
    try {
      blocks = JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }
  return Array.isArray(blocks) ? blocks : null;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// Slack takes query parameters, form bodies (values of objects JSON-encoded) and JSON bodies.
function parseParams(req: IncomingMessage, raw: Buffer): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  for (const [k, v] of query) out[k] = v;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (raw.length === 0) return out;
  if (type.startsWith('application/json')) {
    try {
      const body = JSON.parse(raw.toString('utf8')) as unknown;
      if (body && typeof body === 'object') Object.assign(out, body);
    } catch {
      out.__invalid_json = true;
    }
  } else {
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) out[k] = v;
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function bearer(h: string | undefined): string | undefined {
  const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
