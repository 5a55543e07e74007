// Long polling with an exactly-once offset: getUpdates is driven here (not grammY's bot.start())
// so that an update is acknowledged (offset advanced) only after the sink accepted it. The
// offset is persisted beside the loop, at most once a second and at stop, so a restart resumes
// where the last run stopped: nothing lost, nothing repeated. (After a crash the saved offset may
// lag by a second; Telegram forgets what the next getUpdates confirmed, and the updates it does
// send again were accepted before, so the gateway's persisted dedupe drops them.)
import type { Api } from 'grammy';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { sleep } from '../../core/sleep.ts';
import { AdapterApiError } from '../errors.ts';
import type { AdapterState } from '../types.ts';
import { scrub, toAdapterError } from './api.ts';
import { updateIdOf } from './normalize.ts';

/** The AdapterState key of the next update id to fetch. */
export const TELEGRAM_OFFSET_KEY = 'telegram.offset';

/** How the poller waits after failures (doubling from `initialMs` up to `maxMs`, each wait jittered down to half). */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/**
 * 1 s doubling to 5 s. The cap is what the first poll after an outage may lag behind the
 * recovery (at 30 s it was 11-16 s late); one poller per bot, so a short cap costs little.
 */
export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({ initialMs: 1000, maxMs: 5000 });

/** What the poller needs; `deliver` rejects when the sink did not accept the update. */
export interface PollerOptions {
  api: Api;
  token: string;
  state: AdapterState;
  log: Logger;
  timeoutSeconds: number;
  allowedUpdates: string[];
  backoff: BackoffOptions;
  deliver(update: unknown): Promise<void>;
  /**
   * Test hooks: the wait between polls after a failure (default a timer that `signal` cuts short), and the jitter's
   * source.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** How often, at most, the offset is written while polling. */
const SAVE_INTERVAL_MS = 1000;

/**
 * A running getUpdates loop; `stop()` aborts the pending request, waits for the update in hand and saves the offset.
 */
export interface Poller {
  stop(): Promise<void>;
}

/** Starts polling at the persisted offset. Resolves once the offset is read; polling runs on. */
export async function startPoller(opts: PollerOptions): Promise<Poller> {
  const controller = new AbortController();
  let offset = await readOffset(opts);
  const signal = controller.signal;
  const log = opts.log;
  const saver = offsetSaver(opts);

  const loop = async (): Promise<void> => {
    let delay = opts.backoff.initialMs;
    const wait = opts.sleep ?? sleep;
    const random = opts.random ?? Math.random;
    // Jittered between half and all of the step, so retries from a restart wave do not line up.
    const jittered = (ms: number): number => Math.round(ms / 2 + (random() * ms) / 2);
    const pause = async (ms: number): Promise<void> => {
      try {
        await wait(ms, signal);
      } catch (e) {
        if (!signal.aborted) throw e; // stopping cuts the wait short; the loop then ends
      }
      delay = Math.min(delay * 2, opts.backoff.maxMs);
    };
    while (!signal.aborted) {
      let batch: unknown;
      try {
        const params = {
          timeout: opts.timeoutSeconds,
          allowed_updates: opts.allowedUpdates,
          ...(offset !== undefined ? { offset } : {}),
        };
        // grammY types its signal as abort-controller's; Node's AbortSignal is what it uses at run time.
        batch = await opts.api.getUpdates(
          params as Parameters<Api['getUpdates']>[0],
          signal as unknown as Parameters<Api['getUpdates']>[1],
        );
      } catch (e) {
        if (signal.aborted) break;
        const err = toAdapterError(e, opts.token);
        const ms = err.retryAfterMs ?? jittered(delay); // Telegram's own word is kept as given
        const conflict = err instanceof AdapterApiError && err.status === 409;
        log.warn(
          { code: err.code, retryInMs: ms },
          `getUpdates ` +
            `failed${conflict ? ' (another instance polls this bot, or a webhook is set)' : ''}: ${err.message}`,
        );
        await pause(ms);
        continue;
      }
      if (!Array.isArray(batch)) {
        const ms = jittered(delay);
        log.warn({ retryInMs: ms }, 'getUpdates answered without a list of updates');
        await pause(ms);
        continue;
      }
      let acknowledged = batch.length === 0;
      let rejected = false;
      let advanced = false;
      // The batch's chats are delivered side by side (their accepts then share the store's syncs),
      // each chat's updates in order, one after the other. Once one is rejected, or polling stops,
      // no update not yet begun is delivered; the offset moves past the updates accepted before
      // the first that was not (one of another chat accepted after it comes again and is dropped
      // as a duplicate, as after a crash).
      const lanes = new Map<string, Promise<boolean>>();
      const outcomes: { id: number | undefined; accepted: Promise<boolean> }[] = [];
      for (const update of batch as unknown[]) {
        const id = updateIdOf(update);
        if (id !== undefined && offset !== undefined && id < offset) continue; // already acknowledged
        const lane = laneOf(update);
        const accepted = (lanes.get(lane) ?? Promise.resolve(true)).then(async (before) => {
          if (!before || rejected || signal.aborted) return false;
          try {
            await opts.deliver(update);
            return true;
          } catch (e) {
            // Not acknowledged: the next getUpdates (same offset) redelivers it.
            log.warn(
              { updateId: id, retryInMs: delay, err: scrub(errorMessage(e), opts.token) },
              'the sink did not accept a telegram update; it will come again',
            );
            rejected = true;
            return false;
          }
        });
        lanes.set(lane, accepted);
        outcomes.push({ id, accepted });
      }
      for (const { id, accepted } of outcomes) {
        if (!(await accepted)) break;
        if (id !== undefined && (offset === undefined || id + 1 > offset)) {
          offset = id + 1;
          acknowledged = true;
          advanced = true;
        }
      }
      await Promise.all(outcomes.map((o) => o.accepted)); // none still in hand when the next poll starts
      if (advanced) saver.save(offset!);
      // A sink failure, or a batch of updates without usable ids (which Telegram would send
      // again at once), waits instead of spinning.
      if (rejected || !acknowledged) await pause(jittered(delay));
      else delay = opts.backoff.initialMs;
    }
  };

  const done = loop().catch((e: unknown) => {
    log.error({ err: errorMessage(e) }, 'telegram polling loop ended unexpectedly');
  });
  return {
    async stop() {
      controller.abort();
      await done;
      await saver.flush();
    },
  };
}

/** The chat an update belongs to (its updates are delivered in order); '' for one without a chat. */
function laneOf(update: unknown): string {
  if (typeof update !== 'object' || update === null) return '';
  for (const value of Object.values(update)) {
    if (typeof value !== 'object' || value === null) continue;
    const v = value as { chat?: { id?: unknown }; message?: { chat?: { id?: unknown } } };
    const id = v.chat?.id ?? v.message?.chat?.id;
    if (typeof id === 'number' || typeof id === 'string') return String(id);
  }
  return '';
}

/** Saves the newest offset beside the loop: one write at a time, at most one per interval. */
function offsetSaver(opts: PollerOptions): { save(offset: number): void; flush(): Promise<void> } {
  let wanted: number | undefined;
  let saved: number | undefined;
  // One chain, not a KeyedLock: a single key, and each write takes the newest offset when it
  // starts (coalescing), which a queue of fixed jobs would not.
  let writes = Promise.resolve(); // writes run one after another, each with the newest value
  let timer: NodeJS.Timeout | undefined;
  const write = async (): Promise<void> => {
    const value = wanted;
    if (value === undefined || value === saved) return;
    try {
      await opts.state.set(TELEGRAM_OFFSET_KEY, value);
      saved = value;
    } catch (e) {
      opts.log.error({ err: errorMessage(e) }, 'could not persist the telegram offset');
    }
  };
  const queueWrite = (): Promise<void> => (writes = writes.then(write));
  return {
    save(offset) {
      wanted = offset;
      // Unref'd: a pending save never keeps a stopping process alive (stop flushes).
      timer ??= setTimeout(() => {
        timer = undefined;
        void queueWrite();
      }, SAVE_INTERVAL_MS).unref();
    },
    async flush() {
      clearTimeout(timer);
      timer = undefined;
      await queueWrite();
    },
  };
}

async function readOffset(opts: PollerOptions): Promise<number | undefined> {
  let value: unknown;
  try {
    value = await opts.state.get(TELEGRAM_OFFSET_KEY);
  } catch (e) {
    // Polling without an offset is safe: Telegram resends what it has not seen confirmed, and
    // the gateway's persisted dedupe drops what was accepted before. Not polling is not.
    opts.log.error(
      { err: scrub(errorMessage(e), opts.token) },
      'could not read the saved telegram offset; polling from what Telegram still holds',
    );
    return undefined;
  }
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  opts.log.warn({ value: String(value) }, 'ignoring an invalid persisted telegram offset');
  return undefined;
}
