// The archive's retention: sessions archived by /new are kept `keepMs` (90 days by default), then
// deleted; swept at start (what expired while boxbot was down) and then daily. Replicas sharing a
// database may each sweep: the deletion is one statement, and a second finds nothing.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ConversationStore } from './types.ts';

/** Archived sessions are kept this long by default. */
export const DEFAULT_ARCHIVE_RETENTION_MS = 90 * 24 * 3600_000;

/** Starts sweeping; the returned function stops it (and waits for a sweep under way). */
export function startArchiveSweep(
  conversations: Pick<ConversationStore, 'pruneArchives'>,
  o: { keepMs?: number; everyMs?: number; log: Logger; now?: () => number },
): () => Promise<void> {
  const keepMs = o.keepMs ?? DEFAULT_ARCHIVE_RETENTION_MS;
  const now = o.now ?? Date.now;
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= conversations
      .pruneArchives(now() - keepMs)
      .then((n) => void (n && o.log.info({ removed: n }, 'archived sessions past their retention deleted')))
      .catch((e: unknown) => o.log.warn({ err: errorMessage(e) }, 'archived sessions not swept'))
      .finally(() => (running = undefined));
  };
  sweep();
  const timer = setInterval(sweep, o.everyMs ?? 24 * 3600_000).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
