// The channel log's retention: each recorded channel's messages are kept its `history.days`, then
// deleted; swept at start (what expired while boxbot was down) and then every hour. Replicas on
// one database may each sweep: the deletion is one statement, and a second finds nothing.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ChannelLogStore } from './channel-log-types.ts';

const DAY_MS = 24 * 3600_000;

/** Deletes every channel's entries older than its retention; returns how many went. */
export async function sweepChannelLog(
  log: Pick<ChannelLogStore, 'channels' | 'prune'>,
  daysOf: (channel: string) => number,
  now: number,
): Promise<number> {
  let removed = 0;
  for (const channel of await log.channels())
    removed += await log.prune(channel, new Date(now - daysOf(channel) * DAY_MS).toISOString());
  return removed;
}

/** Starts sweeping; the returned function stops it (and waits for a sweep under way). */
export function startChannelLogSweep(
  channelLog: Pick<ChannelLogStore, 'channels' | 'prune'>,
  o: { daysOf: (channel: string) => number; everyMs?: number; log: Logger; now?: () => number },
): () => Promise<void> {
  const now = o.now ?? Date.now;
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= sweepChannelLog(channelLog, o.daysOf, now())
      .then((n) => void (n && o.log.info({ removed: n }, 'channel log messages past their retention deleted')))
      .catch((e: unknown) => o.log.warn({ err: errorMessage(e) }, 'channel log not swept'))
      .finally(() => (running = undefined));
  };
  sweep();
  const timer = setInterval(sweep, o.everyMs ?? 3600_000).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
