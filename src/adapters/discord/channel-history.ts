// Reading a channel's history: `GET /channels/{id}/messages?after=`, page by page, oldest first.
// Catching up after a session that could not be resumed reads it; digests of a channel will too.
// A 429 is waited out as Discord asks and a failing request retried a few times: a reader runs
// in the background, with no user waiting on each call.
import { sleep } from '../../core/sleep.ts';
import { AdapterError } from '../errors.ts';
import { type DiscordRestOptions, discordRequest } from './api.ts';
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
    const page = await withRetries(
      () => discordRequest<unknown>(rest, 'GET', `/channels/${channelId}/messages?after=${cursor}&limit=${limit}`),
      opts.attempts ?? 4,
      opts.signal,
    );
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
