// Usage per conversation, per user and per space (the threads of a channel): one small document
// per subject at `usage/<conversations|users|spaces>/<shard>/<name>.json`, holding the all-time
// totals and one entry per UTC day (the last USAGE_DAYS_KEPT days), so a charge touches two small
// files (three in a thread) however many conversations exist, and budgets survive a restart.
// A conversation's document also splits each day by model, in the same write: the dashboard's
// per-day breakdowns read the conversations' and users' documents, no per-day document is written.
import type { Usage } from '../core/message.ts';
import type { DocSpec, Documents } from './documents.ts';
import { StoreCorruptError, StoreError } from './errors.ts';
import { encodeName, SHARDS, shardOf } from './names.ts';
import { isUsageShape } from './quick-shapes.ts';
import { usageSchema } from './schemas.ts';
import type { UsageCharge, UsageDaily, UsageDay, UsageStore, UsageSubject, UsageTotals } from './types.ts';

/** Days of per-day totals kept per subject (budgets look at today; /usage at today and the total). */
export const USAGE_DAYS_KEPT = 62;

/** Most conversations, and most users, one UsageStore.daily answer reads. */
export const USAGE_DAILY_MAX_SUBJECTS = 5000;

/** Most models one conversation's day is split by; the calls of any further model count under OTHER_MODELS. */
export const USAGE_MODELS_PER_DAY = 20;
/** Where the calls of models past USAGE_MODELS_PER_DAY count. */
export const OTHER_MODELS = '(other models)';
/** Where a conversation's calls of a day recorded before models were split count. */
export const UNRECORDED_MODEL = '(model not recorded)';

type Models = Record<string, UsageTotals>;
type Doc = { subject: string; total: UsageTotals; days: Record<string, UsageTotals>; models?: Record<string, Models> };

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
    quick: isUsageShape,
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

/**
 * A conversation day's split by model with one call of `c.model` added (under OTHER_MODELS once
 * the day has USAGE_MODELS_PER_DAY models). `before`: the day's totals before this call, which a
 * day begun before models were split (no `models` yet) counts under UNRECORDED_MODEL, so the
 * split still adds up to the day.
 */
export function plusModelCharge(models: Models | undefined, before: UsageTotals | undefined, c: UsageCharge): Models {
  const m = models ?? (before && before.calls > 0 ? { [UNRECORDED_MODEL]: before } : {});
  const name = m[c.model] || Object.keys(m).length < USAGE_MODELS_PER_DAY ? c.model : OTHER_MODELS;
  return { ...m, [name]: plusCharge(m[name] ?? NO_USAGE_TOTALS, c.usage, c.costUsd) };
}

/** Every UTC day from `from` to `to`, inclusive; StoreError `invalid` unless both are days and the span is kept. */
export function usageSpan(from: string, to: string): string[] {
  const ms = (d: string) => (/^\d{4}-\d{2}-\d{2}$/.test(d) ? Date.parse(`${d}T00:00:00Z`) : Number.NaN);
  const [a, b] = [ms(from), ms(to)];
  if (!Number.isFinite(a) || !Number.isFinite(b) || new Date(a).toISOString().slice(0, 10) !== from)
    throw new StoreError(
      'invalid',
      `usage span ${JSON.stringify(from)}..${JSON.stringify(to)}: expected YYYY-MM-DD days`,
    );
  const n = Math.round((b - a) / 86_400_000) + 1;
  if (n < 1 || n > USAGE_DAYS_KEPT)
    throw new StoreError('invalid', `usage span ${from}..${to}: expected 1 to ${USAGE_DAYS_KEPT} days, oldest first`);
  return Array.from({ length: n }, (_, i) => new Date(a + i * 86_400_000).toISOString().slice(0, 10));
}

/** Collects subjects' per-day figures into UsageStore.daily's answer. */
export function dailyCollector(span: string[]): {
  add(kind: 'conversations' | 'users', key: string, day: string, totals: UsageTotals, models?: Models): void;
  result(truncated: boolean): UsageDaily;
} {
  const days = new Map<string, UsageDay>(span.map((day) => [day, { day, conversations: {}, users: {}, models: {} }]));
  const sum = (into: Models, k: string, t: UsageTotals) => {
    const a = into[k] ?? NO_USAGE_TOTALS;
    into[k] = {
      calls: a.calls + t.calls,
      inputTokens: a.inputTokens + t.inputTokens,
      outputTokens: a.outputTokens + t.outputTokens,
      cacheReadTokens: a.cacheReadTokens + t.cacheReadTokens,
      cacheWriteTokens: a.cacheWriteTokens + t.cacheWriteTokens,
      costUsd: a.costUsd + t.costUsd,
      unknownCostCalls: a.unknownCostCalls + t.unknownCostCalls,
    };
  };
  return {
    add(kind, key, day, totals, models) {
      const d = days.get(day);
      if (!d || totals.calls === 0) return;
      sum(d[kind], key, totals);
      if (kind !== 'conversations') return;
      for (const [m, t] of Object.entries(models ?? { [UNRECORDED_MODEL]: totals })) sum(d.models, m, t);
    },
    result(truncated) {
      // Keys in order, whatever order the backend read the subjects in.
      const sorted = (r: Models) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
      const out = [...days.values()].map((d) => ({
        day: d.day,
        conversations: sorted(d.conversations),
        users: sorted(d.users),
        models: sorted(d.models),
      }));
      return { days: out, truncated };
    },
  };
}

/** Usage kept as documents. */
export function createUsage(docs: Documents): UsageStore {
  async function charge(s: UsageSubject, where: DocSpec, c: UsageCharge, queued: () => void): Promise<void> {
    const day = c.at.slice(0, 10);
    const write = () =>
      docs.update<Doc>(
        where,
        (cur) => {
          const days = { ...cur?.days, [day]: plusCharge(cur?.days[day] ?? NO_USAGE_TOTALS, c.usage, c.costUsd) };
          const kept = Object.keys(days).sort().slice(-USAGE_DAYS_KEPT);
          const doc: Doc = {
            subject: subjectName(s).id,
            total: plusCharge(cur?.total ?? NO_USAGE_TOTALS, c.usage, c.costUsd),
            days: Object.fromEntries(kept.map((d) => [d, days[d]!])),
          };
          if ('conversationKey' in s) {
            const models = { ...cur?.models, [day]: plusModelCharge(cur?.models?.[day], cur?.days[day], c) };
            doc.models = Object.fromEntries(kept.filter((d) => models[d]).map((d) => [d, models[d]!]));
          }
          return doc;
        },
        { queued },
      );
    try {
      await write();
    } catch (e) {
      // Moved aside and reported; counting starts again rather than refusing every later charge.
      if (!(e instanceof StoreCorruptError)) throw e;
      await write();
    }
  }
  // The subjects each charge was already added to: the gateway retries a failed add with the
  // same charge, and a document written on the first try must not count it twice. Kept only for
  // a charge whose add failed (nothing retries one that succeeded).
  const charged = new WeakMap<UsageCharge, Set<string>>();
  return {
    async add(c, o) {
      const done = charged.get(c) ?? new Set<string>();
      const subjects: UsageSubject[] = [
        { conversationKey: c.conversationKey },
        ...(c.userKey ? [{ userKey: c.userKey }] : []),
        ...(c.spaceKey ? [{ spaceKey: c.spaceKey }] : []),
      ];
      // The documents, written side by side: a charge waits for one durable write, not two in a
      // row (a crash can leave either one written, as it could leave the first before).
      // Both settle before a failure is thrown, so a retry never races the other write.
      // In line once each document still to write is (told once: a document's update may not tell).
      // Each subject's document named once (a name costs a hash and an encoding).
      const specs = subjects.map(spec);
      let waiting = specs.filter((d) => !done.has(d.path)).length;
      const inLine = () => {
        if (--waiting === 0) o?.queued?.();
      };
      const results = await Promise.allSettled(
        subjects.map(async (s, i) => {
          const where = specs[i]!;
          if (done.has(where.path)) return;
          await charge(s, where, c, inLine);
          done.add(where.path);
        }),
      );
      for (const r of results)
        if (r.status === 'rejected') {
          charged.set(c, done);
          throw r.reason;
        }
      charged.delete(c);
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
    async daily(from, to) {
      const span = usageSpan(from, to);
      const out = dailyCollector(span);
      let truncated = false;
      for (const kind of ['conversations', 'users'] as const) {
        const paths: string[] = [];
        for (let i = 0; i < SHARDS.length; i += 16) {
          const lists = await Promise.all(
            SHARDS.slice(i, i + 16).map(async (sh) =>
              (await docs.files.list(`usage/${kind}/${sh}`))
                .filter((n) => n.endsWith('.json'))
                .map((n) => `usage/${kind}/${sh}/${n}`),
            ),
          );
          paths.push(...lists.flat());
        }
        if (paths.length > USAGE_DAILY_MAX_SUBJECTS) truncated = true;
        const chosen = paths.sort().slice(0, USAGE_DAILY_MAX_SUBJECTS);
        for (let i = 0; i < chosen.length; i += 32) {
          // Read past the document cache: one look at every subject would push out the busy ones the
          // charges keep there. Files are replaced whole, so a read sees one write or the next; a bad
          // one is left for the charge that next reads it to move aside and report.
          const read = await Promise.all(
            chosen.slice(i, i + 32).map(async (path) => {
              const text = await docs.files.read(path);
              let data: unknown;
              try {
                data = text === undefined ? undefined : JSON.parse(text);
              } catch {
                return undefined;
              }
              return usageSchema.safeParse(data).success ? (data as Doc) : undefined;
            }),
          );
          for (const doc of read)
            if (doc)
              for (const day of span)
                if (doc.days[day]) out.add(kind, doc.subject, day, doc.days[day], doc.models?.[day]);
        }
      }
      return out.result(truncated);
    },
  };
}
