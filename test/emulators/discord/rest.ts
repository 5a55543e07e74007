// The emulator's REST API under /api/v10: what discord.js calls at login (GET /gateway/bot), the
// bot identity, channels, message create/edit (JSON, or multipart with `payload_json` and
// `files[n]` uploads; `nonce` with `enforce_nonce` returns the message a repeated nonce made),
// channel history (`GET /channels/{id}/messages?after=`), active and archived threads, guilds
// (`GET /guilds/{id}`), typing;
// `Authorization: Bot <token>` checked, errors and 429s in Discord's JSON shapes and headers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { boundaryOf, parseMultipart, type UploadedFile } from '../multipart.ts';
import type { Interactions } from './interactions.ts';
import { type DiscordWorld, type EmuMessage, type EmuUser, wireMessage } from './store.ts';

/** Which REST writes an injected rate limit applies to. */
export type RateLimitedRoute = 'send' | 'edit' | 'typing' | 'history';

/** A failure the emulator answers one REST write with. */
export type InjectedFault =
  | { kind: 'rate-limit'; retryAfterMs: number; global: boolean }
  | { kind: 'status'; status: number };

/** One REST request the emulator answered (for assertions). */
export interface RestRequestRecord {
  method: string;
  path: string;
  body: unknown;
  status: number;
  /** The files of a multipart request. */
  files?: { filename: string; size: number }[];
}

/** What the REST handler needs from the emulator. */
export interface RestContext {
  token: string;
  world: DiscordWorld;
  /** Application commands and interaction webhooks. */
  interactions: Interactions;
  gatewayUrl(): string;
  /** Consumes one injected fault (429 or an error status) for `route`, if any. */
  takeFault(route: RateLimitedRoute): InjectedFault | undefined;
  /** The bot created or edited a message (the emulator dispatches it and tells listeners). */
  botMessage(message: EmuMessage, kind: 'create' | 'update'): void;
  typing(channelId: string): void;
  /** The guild object of GET /guilds/{id} (undefined: unknown guild). */
  guild(id: string): Record<string, unknown> | undefined;
  record(entry: RestRequestRecord): void;
}

type Json = Record<string, unknown>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message));
  }
}

const MAX_CONTENT = 2000;
const MENTION = /<@!?(\d+)>/g;

/** Makes the request handler of the REST API. */
export function createRestHandler(ctx: RestContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const method = req.method ?? 'GET';
      let body: unknown;
      let status = 500;
      let uploads: UploadedFile[] = [];
      try {
        const raw = Buffer.concat(chunks);
        const boundary = boundaryOf(req.headers);
        let text = raw.toString('utf8');
        if (boundary) {
          const form = parseMultipart(raw, boundary);
          text = form.fields.payload_json ?? '{}';
          uploads = form.files;
        }
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          throw new HttpError(400, { message: '400: Bad Request', code: 50109 });
        }
        const hit = interactionRoute(ctx, req, method, path, body);
        if (hit && hit.status >= 400) throw new HttpError(hit.status, hit.body as Json);
        const out = hit ? hit.body : route(ctx, req, method, path, body, uploads, url.searchParams);
        status = out === null ? 204 : 200;
        res.writeHead(status, out === null ? {} : { 'content-type': 'application/json' });
        res.end(out === null ? undefined : JSON.stringify(out));
      } catch (e) {
        const err = e instanceof HttpError ? e : new HttpError(500, { message: '500: Internal Server Error', code: 0 });
        status = err.status;
        res.writeHead(err.status, { 'content-type': 'application/json', ...err.headers });
        res.end(JSON.stringify(err.body));
      }
      ctx.record({
        method,
        path,
        body,
        status,
        ...(uploads.length ? { files: uploads.map((f) => ({ filename: f.filename, size: f.bytes.byteLength })) } : {}),
      });
    });
  };
}

// Interaction callbacks and webhooks take the interaction token instead of the bot token.
function interactionRoute(
  ctx: RestContext,
  req: IncomingMessage,
  method: string,
  path: string,
  body: unknown,
): { status: number; body: unknown } | undefined {
  const m = /^\/api\/v\d+(\/.*)$/.exec(path);
  if (!m) return undefined;
  const hit = ctx.interactions.route(method, m[1]!, body);
  if (hit) return hit;
  if (!/^\/applications\/\d+\/commands$/.test(m[1]!)) return undefined;
  if (req.headers.authorization !== `Bot ${ctx.token}`)
    return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
  return ctx.interactions.commandsRoute(method, body);
}

function route(
  ctx: RestContext,
  req: IncomingMessage,
  method: string,
  path: string,
  body: unknown,
  uploads: UploadedFile[] = [],
  query = new URLSearchParams(),
): unknown {
  const m = /^\/api\/v(\d+)(\/.*)$/.exec(path);
  if (!m) throw new HttpError(404, { message: '404: Not Found', code: 0 });
  const p = m[2]!;
  if (p === '/gateway' && method === 'GET') return { url: ctx.gatewayUrl() };
  if (req.headers.authorization !== `Bot ${ctx.token}`)
    throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
  if (p === '/gateway/bot' && method === 'GET') {
    return {
      url: ctx.gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
    };
  }
  if (p === '/users/@me' && method === 'GET') return ctx.world.bot;
  if (p === '/applications/@me' && method === 'GET')
    return { id: ctx.world.bot.id, name: ctx.world.bot.username, bot_public: true, flags: 0, bot: ctx.world.bot };
  if (p === '/users/@me/channels' && method === 'POST') {
    const recipient = (body as Json | undefined)?.recipient_id;
    if (typeof recipient !== 'string') throw formError('recipient_id', 'BASE_TYPE_REQUIRED', 'This field is required');
    return ctx.world.dmChannel(ctx.world.user(recipient));
  }
  const inChannel = /^\/channels\/(\d+)/.exec(p);
  if (inChannel && ctx.world.hidden.has(inChannel[1]!))
    throw new HttpError(403, { message: 'Missing Access', code: 50001 });
  let r = /^\/guilds\/(\d+)$/.exec(p);
  if (r && method === 'GET') {
    const g = ctx.guild(r[1]!);
    if (!g) throw new HttpError(404, { message: 'Unknown Guild', code: 10004 });
    return g;
  }
  r = /^\/guilds\/(\d+)\/threads\/active$/.exec(p);
  if (r && method === 'GET') return activeThreads(ctx, r[1]!);
  r = /^\/channels\/(\d+)\/threads\/archived\/public$/.exec(p);
  if (r && method === 'GET') return archivedThreads(ctx, r[1]!, query);
  r = /^\/channels\/(\d+)$/.exec(p);
  if (r && method === 'GET') return channel(ctx, r[1]!);
  r = /^\/channels\/(\d+)\/typing$/.exec(p);
  if (r && method === 'POST') {
    channel(ctx, r[1]!);
    injectedFault(ctx, 'typing');
    ctx.typing(r[1]!);
    return null;
  }
  r = /^\/channels\/(\d+)\/messages$/.exec(p);
  if (r && method === 'POST') return createMessage(ctx, r[1]!, body, uploads);
  if (r && method === 'GET') return history(ctx, r[1]!, query);
  r = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(p);
  if (r && method === 'GET') return wireMessage(message(ctx, r[1]!, r[2]!));
  if (r && method === 'PATCH') return editMessage(ctx, r[1]!, r[2]!, body);
  throw new HttpError(404, { message: '404: Not Found', code: 0 });
}

function channel(ctx: RestContext, id: string) {
  const c = ctx.world.channels.get(id);
  if (!c) throw new HttpError(404, { message: 'Unknown Channel', code: 10003 });
  return c;
}

function message(ctx: RestContext, channelId: string, id: string): EmuMessage {
  channel(ctx, channelId);
  const msg = ctx.world.messages.get(id);
  if (!msg || msg.channel_id !== channelId) throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
  return msg;
}

function formError(field: string, code: string, message: string): HttpError {
  return new HttpError(400, {
    message: 'Invalid Form Body',
    code: 50035,
    errors: { [field]: { _errors: [{ code, message }] } },
  });
}

function checkContent(content: unknown, required: boolean): string | undefined {
  if (content === undefined || content === null) {
    if (required) throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
    return undefined;
  }
  if (typeof content !== 'string')
    throw formError('content', 'STRING_TYPE_CONVERT', 'Could not interpret value as string.');
  if (required && content.trim() === '')
    throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
  // Discord counts characters (code points), not UTF-16 units.
  if ([...content].length > MAX_CONTENT)
    throw formError('content', 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_CONTENT} or fewer in length.`);
  return content;
}

function mentionsIn(ctx: RestContext, content: string): EmuUser[] {
  const out: EmuUser[] = [];
  for (const [, id] of content.matchAll(MENTION)) {
    const u = ctx.world.users.get(id!);
    if (u && !out.includes(u)) out.push(u);
  }
  return out;
}

/** Discord's upload limit per file for a bot without boosts (25 MiB). */
const MAX_UPLOAD = 25 * 1024 * 1024;

/** The attachment objects of uploaded files: `payload_json.attachments[].id` names the part `files[id]`. */
function attachmentsOf(ctx: RestContext, body: Json, uploads: UploadedFile[]) {
  const declared = Array.isArray(body.attachments) ? (body.attachments as Json[]) : [];
  return uploads.map((f) => {
    const index = /^files\[(\d+)\]$/.exec(f.field)?.[1];
    if (index === undefined) throw formError('files', 'BASE_TYPE_BAD', `Unexpected form field ${f.field}`);
    if (f.bytes.byteLength > MAX_UPLOAD) throw new HttpError(413, { message: 'Request entity too large', code: 40005 });
    const meta = declared.find((a) => String(a.id) === index) ?? {};
    const filename = typeof meta.filename === 'string' ? meta.filename : f.filename;
    const id = ctx.world.nextId();
    return {
      wire: {
        id,
        filename,
        size: f.bytes.byteLength,
        url: `https://cdn.discordapp.com/attachments/${id}/${filename}`,
        proxy_url: `https://media.discordapp.net/attachments/${id}/${filename}`,
        content_type: f.contentType,
      },
      upload: { filename, contentType: f.contentType, bytes: f.bytes },
    };
  });
}

/** How long a nonce with `enforce_nonce` is remembered (Discord: "a few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

/**
 * `GET /channels/{id}/messages` with `after` (or none: the newest), `limit` 1-100 (default 50):
 * like Discord, the messages right after `after`, newest first.
 */
function history(ctx: RestContext, channelId: string, query: URLSearchParams): unknown {
  channel(ctx, channelId);
  const limitText = query.get('limit') ?? '50';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100)
    throw formError('limit', 'NUMBER_TYPE_MAX', 'int value should be between 1 and 100.');
  const after = query.get('after');
  if (after !== null && !/^\d{1,20}$/.test(after))
    throw formError('after', 'NUMBER_TYPE_COERCE', `Value "${after}" is not snowflake.`);
  if (query.has('before') || query.has('around'))
    throw new HttpError(400, { message: 'the emulator reads history with after only', code: 0 });
  injectedFault(ctx, 'history');
  const all = [...ctx.world.messages.values()]
    .filter((m) => m.channel_id === channelId)
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const page = after === null ? all.slice(-limit) : all.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit);
  // Messages read from REST carry no guild_id (MESSAGE_CREATE does).
  return page.reverse().map((m) => {
    const { guild_id: _g, ...wire } = wireMessage(m);
    return wire;
  });
}

/** GET /guilds/{id}/threads/active: the guild's threads not archived, and the bot's memberships. */
function activeThreads(ctx: RestContext, guildId: string): unknown {
  if (!ctx.guild(guildId)) throw new HttpError(404, { message: 'Unknown Guild', code: 10004 });
  injectedFault(ctx, 'history');
  const threads = ctx.world.guildChannels(guildId).threads.filter((t) => !t.thread_metadata?.archived);
  return { threads, members: threads.map((t) => ({ id: t.id, user_id: ctx.world.bot.id, flags: 0 })) };
}

/**
 * GET /channels/{id}/threads/archived/public: the channel's archived public threads, newest
 * archived first, those archived before `before` (ISO 8601) when given, `limit` of them (default
 * 50), with `has_more` when more are left and the bot's memberships as `members`.
 */
function archivedThreads(ctx: RestContext, channelId: string, query: URLSearchParams): unknown {
  const parent = channel(ctx, channelId);
  const limitText = query.get('limit') ?? '50';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100)
    throw formError('limit', 'NUMBER_TYPE_MAX', 'int value should be between 1 and 100.');
  const beforeText = query.get('before');
  const before = beforeText === null ? Number.POSITIVE_INFINITY : Date.parse(beforeText);
  if (Number.isNaN(before)) throw formError('before', 'DATE_TYPE_PARSE', `Could not parse ${beforeText}.`);
  injectedFault(ctx, 'history');
  const archived = ctx.world
    .guildChannels(parent.guild_id ?? '')
    .threads.filter((t) => t.parent_id === channelId && t.thread_metadata?.archived)
    .filter((t) => Date.parse(t.thread_metadata!.archive_timestamp) < before)
    .sort(
      (a, b) => Date.parse(b.thread_metadata!.archive_timestamp) - Date.parse(a.thread_metadata!.archive_timestamp),
    );
  const threads = archived.slice(0, limit);
  return {
    threads,
    members: threads.map((t) => ({ id: t.id, user_id: ctx.world.bot.id, flags: 0 })),
    has_more: archived.length > limit,
  };
}

function createMessage(ctx: RestContext, channelId: string, raw: unknown, uploads: UploadedFile[] = []): unknown {
  const ch = channel(ctx, channelId);
  const body = (raw ?? {}) as Json;
  const nonce = body.nonce;
  if (nonce !== undefined && nonce !== null) {
    if ((typeof nonce !== 'string' && typeof nonce !== 'number') || String(nonce).length > 25)
      throw formError('nonce', 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
    if (body.enforce_nonce === true) {
      const earlier = ctx.world.nonces.get(String(nonce));
      const msg = earlier && Date.now() - earlier.at < NONCE_WINDOW_MS && ctx.world.messages.get(earlier.messageId);
      if (msg) {
        ctx.world.nonceRepeats++;
        return wireMessage(msg);
      }
    }
  }
  const files = attachmentsOf(ctx, body, uploads);
  // A message with files may have no text.
  const content = checkContent(body.content, files.length === 0) ?? '';
  const ref = body.message_reference as Json | undefined;
  let reference: EmuMessage['message_reference'];
  let referenced: EmuMessage | undefined;
  if (ref && typeof ref.message_id === 'string') {
    // The form is checked before the lookup: fail_if_not_exists does not excuse a malformed id.
    if (!/^\d{1,20}$/.test(ref.message_id))
      throw formError('message_reference', 'NUMBER_TYPE_COERCE', `Value "${ref.message_id}" is not snowflake.`);
    referenced = ctx.world.messages.get(ref.message_id);
    if (!referenced || referenced.channel_id !== channelId) {
      if (ref.fail_if_not_exists !== false)
        throw formError('message_reference', 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message');
      referenced = undefined;
    } else {
      reference = {
        type: 0,
        message_id: referenced.id,
        channel_id: channelId,
        ...(ch.guild_id ? { guild_id: ch.guild_id } : {}),
      };
    }
  }
  injectedFault(ctx, 'send');
  const msg = ctx.world.addMessage({
    channel_id: channelId,
    author: ctx.world.bot,
    content,
    mentions: mentionsIn(ctx, content),
    ...(reference && referenced
      ? {
          message_reference: reference,
          referenced_message: wireMessage({ ...referenced, referenced_message: null } as EmuMessage),
        }
      : {}),
    ...(body.allowed_mentions !== undefined ? { allowed_mentions: body.allowed_mentions } : {}),
    ...(Array.isArray(body.components) && body.components.length > 0 ? { components: body.components } : {}),
    ...(files.length ? { attachments: files.map((f) => f.wire), uploads: files.map((f) => f.upload) } : {}),
    ...(nonce !== undefined && nonce !== null ? { nonce: String(nonce) } : {}),
  });
  if (body.enforce_nonce === true && nonce !== undefined && nonce !== null)
    ctx.world.nonces.set(String(nonce), { messageId: msg.id, at: Date.now() });
  ctx.botMessage(msg, 'create');
  return wireMessage(msg);
}

function editMessage(ctx: RestContext, channelId: string, id: string, raw: unknown): unknown {
  const msg = message(ctx, channelId, id);
  if (msg.author.id !== ctx.world.bot.id)
    throw new HttpError(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
  const content = checkContent((raw as Json | undefined)?.content, false);
  injectedFault(ctx, 'edit');
  if (content !== undefined) {
    msg.content = content;
    msg.mentions = mentionsIn(ctx, content);
  }
  // Components an edit does not name stay; an empty list removes them.
  const components = (raw as Json | undefined)?.components;
  if (Array.isArray(components)) msg.components = components;
  msg.edited_timestamp = new Date().toISOString();
  msg.edits++;
  ctx.botMessage(msg, 'update');
  return wireMessage(msg);
}

function injectedFault(ctx: RestContext, route: RateLimitedRoute): void {
  const limit = ctx.takeFault(route);
  if (!limit) return;
  if (limit.kind === 'status')
    throw new HttpError(limit.status, { message: `${limit.status}: injected failure`, code: 0 });
  const seconds = limit.retryAfterMs / 1000;
  const headers: Record<string, string> = {
    'retry-after': String(Math.max(1, Math.ceil(seconds))),
    'x-ratelimit-limit': '5',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': ((Date.now() + limit.retryAfterMs) / 1000).toFixed(3),
    'x-ratelimit-reset-after': seconds.toFixed(3),
    'x-ratelimit-bucket': `emu-${route}-bucket`,
    'x-ratelimit-scope': limit.global ? 'global' : 'user',
    ...(limit.global ? { 'x-ratelimit-global': 'true' } : {}),
  };
  throw new HttpError(
    429,
    { message: 'You are being rate limited.', retry_after: seconds, global: limit.global },
    headers,
  );
}
