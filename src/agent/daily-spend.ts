// Today's spending per conversation and per user, for daily budgets: loaded once per subject and
// UTC day from the store, then kept current in memory as each model call is charged (so a check
// before every model call is a lookup, and concurrent runs of one user see each other's spending),
// while the charges are written to the store in order, through the caller's retry.
// One ledger per process: several processes sharing a database each see the others' spending
// as of their own first load of the day.
import { errorMessage } from '../errors.ts';
import type { Persist } from '../gateway/persist.ts';
import type { Logger } from '../log.ts';
import type { UsageCharge, UsageStore, UsageSubject } from '../store/index.ts';

/** The ledger of one process. */
export interface DailySpend {
  /** Loads today's spending of these subjects (once per subject and day). */
  prepare(subjects: UsageSubject[]): Promise<void>;
  /** Counts one charge now and queues its durable write. */
  charge(c: UsageCharge, persist: Persist): void;
  /** Known USD spent today by the subject (as loaded plus charged since). */
  today(subject: UsageSubject): number;
  /** Resolves once every queued write has finished. */
  flush(): Promise<void>;
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const keyOf = (s: UsageSubject, day: string) =>
  'conversationKey' in s ? `${day}|c|${s.conversationKey}` : `${day}|u|${s.userKey}`;

/** Creates the ledger over `usage`. */
export function createDailySpend(usage: UsageStore, o: { now?: () => number; log: Logger }): DailySpend {
  const now = o.now ?? Date.now;
  const spent = new Map<string, number>();
  const loading = new Map<string, Promise<void>>();
  let tail: Promise<void> = Promise.resolve();
  return {
    async prepare(subjects) {
      const day = utcDay(now());
      await Promise.all(
        subjects.map((s) => {
          const k = keyOf(s, day);
          let p = loading.get(k);
          if (!p) {
            p = usage.get(s, day).then(
              (r) => void spent.set(k, (spent.get(k) ?? 0) + r.day.costUsd),
              (e: unknown) => {
                loading.delete(k); // tried again by the next run
                throw e;
              },
            );
            loading.set(k, p);
          }
          return p;
        }),
      );
    },
    charge(c, persist) {
      const day = c.at.slice(0, 10);
      const cost = c.costUsd ?? 0;
      const subjects: UsageSubject[] = [
        { conversationKey: c.conversationKey },
        ...(c.userKey ? [{ userKey: c.userKey }] : []),
      ];
      for (const s of subjects) spent.set(keyOf(s, day), (spent.get(keyOf(s, day)) ?? 0) + cost);
      tail = tail
        .then(() => persist('usage', () => usage.add(c)))
        .catch((e: unknown) => o.log.error({ err: errorMessage(e) }, 'usage not recorded'));
    },
    today: (s) => spent.get(keyOf(s, utcDay(now()))) ?? 0,
    flush: () => tail,
  };
}
