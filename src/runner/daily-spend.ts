// Today's spending per conversation and per user, for daily budgets: read from the store at the
// start of every run the subject's budget applies to (so replicas sharing a database share one
// budget, each seeing the others' spending as of its run's start), then kept current in memory as
// each model call is charged (so a check before every model call is a lookup, and concurrent runs
// of one user see each other's spending), while the charges are written to the store in order,
// through the caller's retry. A model call in flight holds a reservation of its estimated cost
// until its charge replaces it: concurrent runs of one subject see each other's calls before they
// are charged, so together they cannot pass a budget by more than one call.

import type { Reservation } from '../agent/loop/cost-meter.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { UsageCharge, UsageStore, UsageSubject } from '../store/index.ts';
import type { Persist } from './persist.ts';

/** A daily budget: the subjects' spending today together may not pass `usd`. */
export interface DailyLimit {
  /** Whose budget: a conversation's (a channel's own and its threads' together) or a user's. */
  kind: 'conversation' | 'user';
  subjects: UsageSubject[];
  usd: number;
}

/** The ledger of one process over the shared store. */
export interface DailySpend {
  /** Reads today's spending of these subjects from the store again (other processes' included). */
  prepare(subjects: UsageSubject[]): Promise<void>;
  /** Counts one charge now and queues its durable write. */
  charge(c: UsageCharge, persist: Persist): ChargeWrite;
  /**
   * Reserves `usd` against each of `subjects` for one model call, unless a limit is already taken
   * up (spent today plus reserved by calls in flight reaches it): then nothing is reserved and the
   * limit is returned. Check and reservation are one synchronous step, so no other run of this
   * process comes between them. Release the reservation right after the call's charge.
   */
  reserve(subjects: UsageSubject[], usd: number, limits: DailyLimit[]): Reservation | { refused: DailyLimit };
  /** Known USD spent today by the subject (as read plus charged here since). */
  today(subject: UsageSubject): number;
  /** USD reserved now for the subject's model calls in flight in this process. */
  reserved(subject: UsageSubject): number;
  /** Resolves once every queued write has finished; with `subjects`, every queued write of those subjects. */
  flush(subjects?: UsageSubject[]): Promise<void>;
  /**
   * Resolves once every charge made so far is in the store's line (UsageStore.add's `queued`) or
   * finished: a store write started after it is never durable before those charges.
   */
  inLine(): Promise<void>;
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

/**
 * One charge's way to the store: `inLine` once it is in the store's line (UsageStore.add's `queued`)
 * or finished, `written` once finished (recorded, or given up and logged). Neither rejects.
 */
export interface ChargeWrite {
  inLine: Promise<void>;
  written: Promise<void>;
}

/** Creates the ledger over `usage`. */
export function createDailySpend(usage: UsageStore, o: { now?: () => number; log: Logger }): DailySpend {
  const now = o.now ?? Date.now;
  // Per subject and day: the store's figure at the last read, this process's charges not yet
  // written, and those written since (each with the count of writes finished when it finished).
  // A read drops the written ones it includes (finished before it began: reads and writes of one
  // subject never overlap): never counted twice, never missed.
  // Only today's figures are ever read, so a past day's are dropped once the day has changed
  // (a long-running process would otherwise keep every subject of every day it ever saw); the
  // unwritten count of a charge still being written around midnight goes with its last write.
  const stored = new Map<string, { usd: number; epoch: number }>();
  const unwritten = new Map<string, { usd: number; writes: number }>();
  const written = new Map<string, { usd: number; epoch: number }[]>();
  const reading = new Map<string, Promise<void>>();
  // Per subject and day: the write of ours being tried now (writes go one at a time), until it is
  // counted as written or the try failed.
  const trying = new Map<string, Promise<void>>();
  let epoch = 0;
  // Per subject and day, the last write queued: a charge's writes wait for the earlier ones of its
  // subjects only (one subject's are written in order), so charges of other conversations and
  // users are written side by side instead of one after another behind every charge of the process.
  const tails = new Map<string, Promise<void>>();
  // The charges not yet in the store's line nor finished (see inLine).
  const lining = new Set<Promise<void>>();
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
  // Per subject and day: what this process's model calls in flight have reserved, and how many.
  const holds = new Map<string, { usd: number; calls: number }>();
  const hold = (k: string, usd: number, calls: number) => {
    const h = holds.get(k) ?? { usd: 0, calls: 0 };
    // Gone with its last call (a sum of floats would not come back to exactly zero).
    if (h.calls + calls === 0) holds.delete(k);
    else holds.set(k, { usd: h.usd + usd, calls: h.calls + calls });
  };
  const spent = (s: UsageSubject): number => {
    const k = keyOf(s, today());
    const later = (written.get(k) ?? []).reduce((sum, w) => sum + w.usd, 0);
    return (stored.get(k)?.usd ?? 0) + (unwritten.get(k)?.usd ?? 0) + later;
  };
  const reservedOf = (s: UsageSubject): number => holds.get(keyOf(s, today()))?.usd ?? 0;
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
            const read = (async () => {
              // Never while a write of ours to the subject is being tried (see charge): the figure read
              // then holds exactly the writes counted before it, each once.
              while (trying.has(k)) await trying.get(k);
              const start = epoch;
              const r = await usage.get(s, day);
              if (start < (stored.get(k)?.epoch ?? 0)) return; // a later read already answered
              if (day < today()) return; // answered after midnight: nobody reads that day again
              stored.set(k, { usd: r.day.costUsd, epoch: start });
              written.set(
                k,
                (written.get(k) ?? []).filter((w) => w.epoch > start),
              );
            })();
            p = read.finally(() => reading.delete(k));
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
      let lined = () => {};
      const inLine = new Promise<void>((r) => {
        lined = r;
      });
      lining.add(inLine);
      void inLine.then(() => lining.delete(inLine));
      // Each try waits for the reads of these subjects in flight, and reads wait for it: the store
      // is never read while a write to the same subject may or may not have landed yet.
      const attempt = async (): Promise<() => void> => {
        while (keys.some((k) => reading.has(k)))
          await Promise.all(keys.map((k) => reading.get(k)?.catch(() => undefined)));
        let done = () => {};
        const tried = new Promise<void>((r) => {
          done = r;
        });
        for (const k of keys) trying.set(k, tried);
        const end = () => {
          for (const k of keys) if (trying.get(k) === tried) trying.delete(k);
          done();
        };
        try {
          await usage.add(c, { queued: lined });
        } catch (e) {
          end();
          throw e;
        }
        return end; // once the charge is counted as written
      };
      const write = Promise.all(keys.map((k) => tails.get(k)))
        .then(() => persist('usage', attempt))
        // Moved from unwritten to written in one step: a figure taken in between would count it twice.
        .then(
          (end) => {
            epoch++;
            // Kept only for a subject some run reads (has a budget): the next read of any other
            // includes the charge, and nothing would ever drop the entry.
            for (const k of keys) {
              if (stored.has(k) || reading.has(k)) wrote(k, { usd, epoch });
              bump(k, -usd, -1);
            }
            end();
          },
          (e: unknown) => {
            o.log.error({ err: errorMessage(e) }, 'usage not recorded');
            // Not in the store, still spent: counted here for the rest of the day.
            for (const k of keys) {
              wrote(k, { usd, epoch: Number.POSITIVE_INFINITY });
              bump(k, -usd, -1);
            }
          },
        );
      void write.finally(lined); // in line or not, a finished write is as good
      for (const k of keys) tails.set(k, write);
      void write.then(() => {
        for (const k of keys) if (tails.get(k) === write) tails.delete(k);
      });
      return { inLine, written: write };
    },
    reserve(subjects, usd, limits) {
      const day = today();
      for (const l of limits)
        if (l.subjects.reduce((sum, s) => sum + spent(s) + reservedOf(s), 0) >= l.usd) return { refused: l };
      const amount = Number.isFinite(usd) && usd > 0 ? usd : 0;
      const keys = [...new Set(subjects.map((s) => keyOf(s, day)))];
      for (const k of keys) hold(k, amount, 1);
      let open = true;
      return {
        release() {
          if (!open) return;
          open = false;
          for (const k of keys) hold(k, -amount, -1);
        },
      };
    },
    today: spent,
    reserved: reservedOf,
    async flush(subjects) {
      // Matched by subject whatever the day (a charge made just before midnight counts).
      const subject = (k: string) => k.slice(dayOf(k).length + 1);
      const wanted = subjects && new Set(subjects.map((s) => subject(keyOf(s, current))));
      await Promise.all([...tails].filter(([k]) => !wanted || wanted.has(subject(k))).map(([, w]) => w));
    },
    async inLine() {
      await Promise.all([...lining]);
    },
    held: () => new Set([...stored.keys(), ...unwritten.keys(), ...written.keys(), ...holds.keys()]).size,
  };
}
