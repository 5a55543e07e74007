// Usage per conversation, per user and per space (the threads of a channel): one small document
// per subject at `usage/<conversations|users|spaces>/<shard>/<name>.json`, holding the all-time
// totals and one entry per UTC day (the last USAGE_DAYS_KEPT days), so a charge touches two small
// files (three in a thread) however many conversations exist, and budgets survive a restart.
import type { Usage } from '../core/message.ts';
import type { DocSpec, Documents } from './documents.ts';
import { StoreCorruptError } from './errors.ts';
import { encodeName, shardOf } from './names.ts';
import { usageSchema } from './schemas.ts';
import type { UsageCharge, UsageStore, UsageSubject, UsageTotals } from './types.ts';

/** Days of per-day totals kept per subject (budgets look at today; /usage at today and the total). */
export const USAGE_DAYS_KEPT = 62;

type Doc = { subject: string; total: UsageTotals; days: Record<string, UsageTotals> };

/** All zeros. */
export const NO_USAGE_TOTALS: UsageTotals = {
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  unknownCostCalls: 0,
};

function subjectName(s: UsageSubject): { dir: string; id: string } {
  if ('conversationKey' in s) return { dir: 'conversations', id: s.conversationKey };
  return 'userKey' in s ? { dir: 'users', id: s.userKey } : { dir: 'spaces', id: s.spaceKey };
}

function spec(s: UsageSubject): DocSpec {
  const { dir, id } = subjectName(s);
  return {
    path: `usage/${dir}/${shardOf(id)}/${encodeName(id)}.json`,
    schema: usageSchema,
    check: (data) =>
      (data as Doc).subject === id ? undefined : `holds usage of ${JSON.stringify((data as Doc).subject)}`,
  };
}

/** `t` with one call's usage added; a missing or non-finite cost counts as a call of unknown cost. */
export function plusCharge(t: UsageTotals, u: Usage, costUsd: number | undefined): UsageTotals {
  const known = costUsd !== undefined && Number.isFinite(costUsd);
  return {
    calls: t.calls + 1,
    inputTokens: t.inputTokens + u.inputTokens,
    outputTokens: t.outputTokens + u.outputTokens,
    cacheReadTokens: t.cacheReadTokens + (u.cacheReadTokens ?? 0),
    cacheWriteTokens: t.cacheWriteTokens + (u.cacheWriteTokens ?? 0),
    costUsd: known ? t.costUsd + costUsd : t.costUsd,
    unknownCostCalls: t.unknownCostCalls + (known ? 0 : 1),
  };
}

/** Usage kept as documents. */
export function createUsage(docs: Documents): UsageStore {
  async function charge(s: UsageSubject, c: UsageCharge): Promise<void> {
    const day = c.at.slice(0, 10);
    const write = () =>
      docs.update<Doc>(spec(s), (cur) => {
        const days = { ...cur?.days, [day]: plusCharge(cur?.days[day] ?? NO_USAGE_TOTALS, c.usage, c.costUsd) };
        const kept = Object.keys(days).sort().slice(-USAGE_DAYS_KEPT);
        return {
          subject: subjectName(s).id,
          total: plusCharge(cur?.total ?? NO_USAGE_TOTALS, c.usage, c.costUsd),
          days: Object.fromEntries(kept.map((d) => [d, days[d]!])),
        };
      });
    try {
      await write();
    } catch (e) {
      // Moved aside and reported; counting starts again rather than refusing every later charge.
      if (!(e instanceof StoreCorruptError)) throw e;
      await write();
    }
  }
  // The subjects each charge was already added to: the gateway retries a failed add with the
  // same charge, and a document written on the first try must not count it twice.
  const charged = new WeakMap<UsageCharge, Set<string>>();
  return {
    async add(c) {
      const done = charged.get(c) ?? new Set<string>();
      charged.set(c, done);
      const subjects: UsageSubject[] = [
        { conversationKey: c.conversationKey },
        ...(c.userKey ? [{ userKey: c.userKey }] : []),
        ...(c.spaceKey ? [{ spaceKey: c.spaceKey }] : []),
      ];
      // The documents, written side by side: a charge waits for one durable write, not two in a
      // row (a crash can leave either one written, as it could leave the first before).
      // Both settle before a failure is thrown, so a retry never races the other write.
      const results = await Promise.allSettled(
        subjects.map(async (s) => {
          const path = spec(s).path;
          if (done.has(path)) return;
          await charge(s, c);
          done.add(path);
        }),
      );
      for (const r of results) if (r.status === 'rejected') throw r.reason;
    },
    async get(s, day) {
      let doc: Doc | undefined;
      try {
        doc = await docs.read<Doc>(spec(s));
      } catch (e) {
        if (!(e instanceof StoreCorruptError)) throw e;
      }
      return { day: doc?.days[day] ?? NO_USAGE_TOTALS, total: doc?.total ?? NO_USAGE_TOTALS };
    },
  };
}
