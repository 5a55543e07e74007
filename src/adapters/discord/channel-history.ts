// Reading a channel's history: `GET /channels/{id}/messages?after=`, page by page, oldest first;
// for the channel log's backfill, its threads' too (active, and archived since the period began).
// Catching up after a session that could not be resumed reads it; digests of a channel will too.
// A 429 is waited out as Discord asks and a failing request retried a few times: a reader runs
// in the background, with no user waiting on each call. Given a pacer (a backfill through the
// gateway's outbound queue), each request goes through it instead, and the queue retries.
import { sleep } from '../../core/sleep.ts';
import { type ChannelObserver, type RequestPacer, snowflakeAt } from '../channel-event.ts';
import { AdapterApiError, AdapterError } from '../errors.ts';
import { type DiscordRestOptions, discordRequest } from './api.ts';
import { parseMessageCreate } from './normalize.ts';
import { discordMessageEvent } from './observe.ts';
import { laterSnowflake } from './session.ts';

/** Options of readChannelAfter. */
export interface HistoryReadOptions {
  /** Stop after this many messages (default 1,000): an old mark is not read back without end. */
  maxMessages?: number;
  /** Messages per request (1-100, default 100). */
  pageSize?: number;
  /** Attempts per page for a network error or a 5xx (default 4). */
  attempts?: number;
  signal?: AbortSignal;
  /** Runs each request (the outbound queue's pacing and retries instead of this reader's own). */
  pace?: RequestPacer;
}

/** A raw message as the REST API returns it (parsed by normalize.ts, like a MESSAGE_CREATE). */
export type RawMessage = Record<string, unknown> & { id: string };

/**
 * Yields the messages of `channelId` posted after message `after`, oldest first.
 * @example
 *   for await (const m of readChannelAfter(rest, channelId, lastSeenId)) handle(m);
 */
export async function* readChannelAfter(
  rest: DiscordRestOptions,
  channelId: string,
  after: string,
  opts: HistoryReadOptions = {},
): AsyncGenerator<RawMessage> {
  const max = opts.maxMessages ?? 1000;
  const pageSize = Math.min(100, Math.max(1, opts.pageSize ?? 100));
  let cursor = after;
  let read = 0;
  while (read < max) {
    const limit = Math.min(pageSize, max - read);
    const get = () =>
      discordRequest<unknown>(rest, 'GET', `/channels/${channelId}/messages?after=${cursor}&limit=${limit}`);
    opts.signal?.throwIfAborted();
    const page = await (opts.pace ? opts.pace(get) : withRetries(get, opts.attempts ?? 4, opts.signal));
    if (!Array.isArray(page)) throw new AdapterError('discord', 'bad-history', 'channel history was not a list');
    // Discord answers newest first; the order is rebuilt from the ids (snowflakes order by time).
    const messages = page
      .filter((m): m is RawMessage => typeof m === 'object' && m !== null && typeof m.id === 'string')
      .filter((m) => /^\d{1,20}$/.test(m.id) && laterSnowflake(m.id, cursor))
      .sort((a, b) => (a.id === b.id ? 0 : laterSnowflake(a.id, b.id) ? 1 : -1));
    for (const m of messages) yield m;
    read += messages.length;
    if (messages.length < limit || messages.length === 0) return;
    cursor = messages.at(-1)!.id;
  }
}

/** Calls `call`, waiting out 429s and retrying network failures and 5xx up to `attempts` times. */
async function withRetries<T>(call: () => Promise<T>, attempts: number, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof AdapterError) || !e.retryable) throw e;
      // A 429 says how long to wait and does not count as a failure; other retries back off.
      if (e.retryAfterMs === undefined && attempt >= attempts) throw e;
      await sleep(e.retryAfterMs ?? 500 * 2 ** (attempt - 1), signal);
    }
  }
}

/**
 * The ids of `parentId`'s threads in an answer of GET /guilds/{id}/threads/active
 * (`{ threads: [{ id, parent_id }] }`); a malformed answer is an AdapterError.
 */
function activeThreadsOf(answer: unknown, parentId: string): string[] {
  const threads = (answer as { threads?: unknown } | null)?.threads;
  if (!Array.isArray(threads)) throw new AdapterError('discord', 'bad-history', 'active threads were not a list');
  return threads.flatMap((t: unknown) => {
    const { id, parent_id: parent } = (t ?? {}) as { id?: unknown; parent_id?: unknown };
    return typeof id === 'string' && /^\d{1,20}$/.test(id) && parent === parentId ? [id] : [];
  });
}

/** One page of GET /channels/{id}/threads/archived/public: its threads, newest archived first. */
interface ArchivedPage {
  threads: { id: string; archivedAt: string }[];
  hasMore: boolean;
}

/**
 * Reads an answer of GET /channels/{id}/threads/archived/public (`{ threads: [{ id, parent_id,
 * thread_metadata: { archive_timestamp } }], has_more }`); a malformed answer is an AdapterError.
 */
function archivedThreadsOf(answer: unknown, parentId: string): ArchivedPage {
  const { threads, has_more: hasMore } = (answer ?? {}) as { threads?: unknown; has_more?: unknown };
  if (!Array.isArray(threads) || typeof hasMore !== 'boolean')
    throw new AdapterError('discord', 'bad-history', 'archived threads were not a list with has_more');
  return {
    hasMore,
    threads: threads.flatMap((t: unknown) => {
      const { id, parent_id: parent, thread_metadata: meta } = (t ?? {}) as Record<string, unknown>;
      const at = (meta as { archive_timestamp?: unknown } | undefined)?.archive_timestamp;
      if (typeof id !== 'string' || !/^\d{1,20}$/.test(id) || parent !== parentId) return [];
      return typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? [{ id, archivedAt: at }] : [];
    }),
  };
}

/** At most this many pages of archived threads are read (100 each) for one backfill. */
const MAX_ARCHIVED_PAGES = 20;

/**
 * The archived public threads of `channelId` that may hold messages since `from` (ISO 8601): a
 * thread's messages are all older than its archiving (a new one unarchives it), so the pages,
 * newest archived first, are read back with `before` while `has_more` until one archived before
 * `from`. Each request goes through `pace` when given, like every other read of a backfill.
 */
async function archivedThreadsSince(
  rest: DiscordRestOptions,
  channelId: string,
  from: string,
  opts: { signal?: AbortSignal; pace?: RequestPacer },
): Promise<string[]> {
  const since = Date.parse(from);
  const ids: string[] = [];
  let before: string | undefined;
  for (let page = 0; page < MAX_ARCHIVED_PAGES; page++) {
    const query = `limit=100${before ? `&before=${encodeURIComponent(before)}` : ''}`;
    const get = () => discordRequest<unknown>(rest, 'GET', `/channels/${channelId}/threads/archived/public?${query}`);
    opts.signal?.throwIfAborted();
    const { threads, hasMore } = archivedThreadsOf(
      await (opts.pace ? opts.pace(get) : withRetries(get, 4, opts.signal)),
      channelId,
    );
    for (const t of threads) if (Date.parse(t.archivedAt) >= since) ids.push(t.id);
    const last = threads.at(-1)?.archivedAt;
    // Done, or the rest were archived before `from`, or the cursor would not move.
    if (!hasMore || last === undefined || Date.parse(last) < since || last === before) break;
    before = last;
  }
  return ids;
}

/**
 * A guild channel's history since `from` (ISO 8601), for the channel log's backfill: the channel's
 * messages, then each of its active threads' (GET /guilds/{id}/threads/active), then each of its
 * archived public threads' that was archived since `from` (archivedThreadsSince), told to
 * `observe`. Other bots' messages are kept, marked as bots (boxbot's own by `botId`); resolves
 * with the count. A thread the bot may not read (403, or 404: deleted meanwhile) and a thread list
 * it may not see are told to `skipped` and left out; the rest is read. The channel's own refusal
 * fails the read.
 */
export async function readGuildHistory(
  rest: DiscordRestOptions,
  botId: string | undefined,
  channel: { chatId: string; scope?: string },
  from: string,
  observe: ChannelObserver,
  opts: { signal?: AbortSignal; pace?: RequestPacer; skipped?: (what: string, reason: string) => void } = {},
): Promise<number> {
  const guildId = channel.scope;
  if (!guildId || guildId === 'dm') return 0;
  const after = snowflakeAt(Date.parse(from) - 1);
  let read = 0;
  const readOne = async (channelId: string, threadParentId?: string) => {
    for await (const raw of readChannelAfter(rest, channelId, after, { maxMessages: 10_000, ...opts })) {
      const parsed = parseMessageCreate({ ...raw, guild_id: guildId });
      if (typeof parsed === 'string') continue;
      const place = { guildId, channelId, ...(threadParentId ? { threadParentId } : {}) };
      const event = discordMessageEvent(parsed, place, botId);
      if (event) {
        observe(event);
        read++;
      }
    }
  };
  /** `f`'s result, or `none` when Discord refuses it (403) or no longer has it (404), told to `skipped`. */
  const unlessRefused = async <T>(what: string, none: T, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if (!(e instanceof AdapterApiError) || (e.status !== 403 && e.status !== 404)) throw e;
      opts.skipped?.(what, e.message);
      return none;
    }
  };
  await readOne(channel.chatId);
  const get = () => discordRequest<unknown>(rest, 'GET', `/guilds/${guildId}/threads/active`);
  const active = await unlessRefused('active threads', undefined, () =>
    opts.pace ? opts.pace(get) : withRetries(get, 4, opts.signal),
  );
  const threads = new Set(active === undefined ? [] : activeThreadsOf(active, channel.chatId));
  const archived = await unlessRefused('archived threads', [], () =>
    archivedThreadsSince(rest, channel.chatId, from, opts),
  );
  for (const threadId of archived) threads.add(threadId);
  for (const threadId of threads)
    await unlessRefused(`thread ${threadId}`, undefined, () => readOne(threadId, channel.chatId));
  return read;
}
