// Today's spending per conversation and per user, for daily budgets: read from the store at the
// start of every run the subject's budget applies to (so replicas sharing a database share one
// budget, each seeing the others' spending as of its run's start), then kept current in memory as
// each model call is charged (so a check before every model call is a lookup, and concurrent runs
// of one user see each other's spending), while the charges are written to the store in order,
// through the caller's retry.
import { errorMessage } from '../errors.ts';
import type { Persist } from '../gateway/persist.ts';
import type { Logger } from '../log.ts';
import type { UsageCharge, UsageStore, UsageSubject } from '../store/index.ts';

/** The ledger of one process over the shared store. */
export interface DailySpend {
  /** Reads today's spending of these subjects from the store again (other processes' included). */
  prepare(subjects: UsageSubject[]): Promise<void>;
  /** Counts one charge now and queues its durable write. */
  charge(c: UsageCharge, persist: Persist): void;
  /** Known USD spent today by the subject (as read plus charged here since). */
  today(subject: UsageSubject): number;
  /** Resolves once every queued write has finished. */
  flush(): Promise<void>;
  /** How many subject-days it holds figures for (today's, and a past day's only while its writes finish). */
  held(): number;
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const keyOf = (s: UsageSubject, day: string) =>
  'conversationKey' in s
    ? `${day}|c|${s.conversationKey}`
    : 'userKey' in s
      ? `${day}|u|${s.userKey}`
      : `${day}|s|${s.spaceKey}`;
const dayOf = (k: string) => k.slice(0, 10);

/** Creates the ledger over `usage`. */
export function createDailySpend(usage: UsageStore, o: { now?: () => number; log: Logger }): DailySpend {
  const now = o.now ?? Date.now;
  // Per subject and day: the store's figure at the last read, this process's charges not yet
  // written, and those written since (each with the count of writes finished when it finished).
  // A read drops the written ones it must include (finished before it began): never counted twice
  // for longer than until the next read, never missed.
  // Only today's figures are ever read, so a past day's are dropped once the day has changed
  // (a long-running process would otherwise keep every subject of every day it ever saw); the
  // unwritten count of a charge still being written around midnight goes with its last write.
  const stored = new Map<string, { usd: number; epoch: number }>();
  const unwritten = new Map<string, { usd: number; writes: number }>();
  const written = new Map<string, { usd: number; epoch: number }[]>();
  const reading = new Map<string, Promise<void>>();
  let epoch = 0;
  let tail: Promise<void> = Promise.resolve();
  let current = utcDay(now());
  /** Today's day, after dropping the figures of past days if the day has changed since the last call. */
  const today = (): string => {
    const day = utcDay(now());
    if (day !== current) {
      current = day;
      for (const m of [stored, written]) for (const k of m.keys()) if (dayOf(k) < day) m.delete(k);
    }
    return day;
  };
  const bump = (k: string, usd: number, writes: number) => {
    const u = unwritten.get(k) ?? { usd: 0, writes: 0 };
    // Gone with its last pending write: a zero left behind per subject and day would never go.
    if (u.writes + writes === 0) unwritten.delete(k);
    else unwritten.set(k, { usd: u.usd + usd, writes: u.writes + writes });
  };
  /** Adds a finished write to the subject-day's list, unless that day has already passed. */
  const wrote = (k: string, w: { usd: number; epoch: number }) => {
    if (dayOf(k) >= today()) written.set(k, [...(written.get(k) ?? []), w]);
  };
  return {
    async prepare(subjects) {
      const day = today();
      await Promise.all(
        subjects.map((s) => {
          const k = keyOf(s, day);
          let p = reading.get(k);
          if (!p) {
            const start = epoch;
            p = usage
              .get(s, day)
              .then((r) => {
                if (start < (stored.get(k)?.epoch ?? 0)) return; // a later read already answered
                if (day < today()) return; // answered after midnight: nobody reads that day again
                stored.set(k, { usd: r.day.costUsd, epoch: start });
                written.set(
                  k,
                  (written.get(k) ?? []).filter((w) => w.epoch > start),
                );
              })
              .finally(() => reading.delete(k));
            reading.set(k, p);
          }
          return p;
        }),
      );
    },
    charge(c, persist) {
      const day = c.at.slice(0, 10);
      const usd = c.costUsd ?? 0;
      const keys = [keyOf({ conversationKey: c.conversationKey }, day)];
      if (c.userKey) keys.push(keyOf({ userKey: c.userKey }, day));
      if (c.spaceKey) keys.push(keyOf({ spaceKey: c.spaceKey }, day));
      for (const k of keys) bump(k, usd, 1);
      tail = tail
        .then(() => persist('usage', () => usage.add(c)))
        .then(() => {
          epoch++;
          // Kept only for a subject some run reads (has a budget): the next read of any other
          // includes the charge, and nothing would ever drop the entry.
          for (const k of keys) if (stored.has(k) || reading.has(k)) wrote(k, { usd, epoch });
        })
        .catch((e: unknown) => {
          o.log.error({ err: errorMessage(e) }, 'usage not recorded');
          // Not in the store, still spent: counted here for the rest of the day.
          for (const k of keys) wrote(k, { usd, epoch: Number.POSITIVE_INFINITY });
        })
        .finally(() => {
          for (const k of keys) bump(k, -usd, -1);
        });
    },
    today: (s) => {
      const k = keyOf(s, today());
      const later = (written.get(k) ?? []).reduce((sum, w) => sum + w.usd, 0);
      return (stored.get(k)?.usd ?? 0) + (unwritten.get(k)?.usd ?? 0) + later;
    },
    flush: () => tail,
    held: () => new Set([...stored.keys(), ...unwritten.keys(), ...written.keys()]).size,
  };
}
