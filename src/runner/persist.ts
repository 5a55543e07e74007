// Store writes on the delivery path are retried until they succeed: a full disk or a failing
// volume delays an answer but never drops it, parks it until a restart, or lets a later answer
// of the conversation overtake it. A stopping gateway ends the wait (what was not written is then
// run again or resumed at the next start); a refusal that cannot pass is thrown at once.
import { BoxbotError, errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { sleep } from '../core/sleep.ts';

/** Shared by every write of one gateway: how many are waiting on a failing store right now. */
export interface StoreHealth {
  failing: number;
}

/** How a store write is retried. */
export interface PersistOptions {
  log: Logger;
  /** Counts the writes waiting on a failing store (so the gateway can hold back what it cannot record). */
  health?: StoreHealth;
  /** Aborted when the gateway stops: the write's last error is thrown instead of waiting on. */
  stopping: AbortSignal;
  /** First wait after a failure (doubling up to `maxBackoffMs`). */
  backoffMs: number;
  maxBackoffMs: number;
}

/** Retries a store write; `onFailure` runs once, at the first failure (to tell the user). */
export type Persist = <T>(what: string, write: () => Promise<T>, onFailure?: (e: unknown) => void) => Promise<T>;

/** A `Persist` with these options. */
export function persister(o: PersistOptions): Persist {
  return async (what, write, onFailure) => {
    let waiting = false;
    try {
      for (let failures = 0; ; failures++) {
        try {
          return await write();
        } catch (e) {
          // Only a failure that may pass is waited out (I/O: a full disk); a refusal (no such
          // record, a closed store) would fail the same way for ever.
          if (o.stopping.aborted || (e instanceof BoxbotError && !e.retryable)) throw e;
          if (failures === 0) {
            waiting = true;
            if (o.health) o.health.failing++;
            onFailure?.(e);
          }
          const delay = Math.min(o.maxBackoffMs, o.backoffMs * 2 ** Math.min(failures, 30));
          o.log.error({ err: errorMessage(e), delayMs: delay }, `store write failed (${what}); retrying`);
          await sleep(delay, o.stopping).catch(() => undefined); // stopping cuts the wait short
          if (o.stopping.aborted) throw e;
        }
      }
    } finally {
      if (waiting && o.health) o.health.failing--;
    }
  };
}
