// Usage per conversation, per user and per space (a channel's threads) as rows: one per subject
// and UTC day, and one for the all-time totals (day `total`). A charge updates its rows in one
// transaction under row locks, so replicas charging the same subject at once add up rather than
// overwrite each other; each step of it is one statement for all its rows (four round trips a
// charge, not fourteen). The conversation's day row also splits the day by model (column
// \`models\`), set by the same update.
import type { UsageStore, UsageSubject, UsageTotals } from '../types.ts';
import {
  dailyCollector,
  NO_USAGE_TOTALS,
  plusCharge,
  plusModelCharge,
  USAGE_DAILY_MAX_SUBJECTS,
  USAGE_DAYS_KEPT,
  usageSpan,
} from '../usage.ts';
import type { Db } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

const TOTAL = 'total';

const subjectKey = (s: UsageSubject): string => {
  const [kind, id] =
    'conversationKey' in s
      ? ['conversation', s.conversationKey]
      : 'userKey' in s
        ? ['user', s.userKey]
        : ['space', s.spaceKey];
  return encodeKey(`${kind}:${id}`);
};

/** Usage in PostgreSQL. */
export function createPgUsage(db: Db): UsageStore {
  return {
    async add(c) {
      const day = c.at.slice(0, 10);
      const oldest = new Date(Date.parse(`${day}T00:00:00Z`) - (USAGE_DAYS_KEPT - 1) * 86_400_000)
        .toISOString()
        .slice(0, 10);
      const subjects = [subjectKey({ conversationKey: c.conversationKey })];
      if (c.spaceKey) subjects.push(subjectKey({ spaceKey: c.spaceKey }));
      if (c.userKey) subjects.push(subjectKey({ userKey: c.userKey }));
      // Every row of the charge in one statement each (a round trip per statement, not per row):
      // the day's and the total's of each subject, in one order for every charge, so two charges
      // inserting the same new rows never wait on each other crosswise. Built in that order: the
      // conversation's subject, then the space's, then the user's (by their prefixes' order), and
      // the day (ISO, a digit first) before `total`.
      const rows = subjects.flatMap((subject) => [day, TOTAL].map((d) => ({ subject, day: d })));
      const keys = [rows.map((r) => r.subject), rows.map((r) => r.day)];
      await db.tx(async (q) => {
        // The rows exist before they are locked, so two first charges at once both count.
        await q(
          `INSERT INTO boxbot_usage (subject, day, totals)
           SELECT subject, day, $3 FROM unnest($1::text[], $2::text[]) AS k(subject, day)
           ON CONFLICT DO NOTHING`,
          [...keys, JSON.stringify(NO_USAGE_TOTALS)],
        );
        const locked = await q<{ subject: string; day: string; totals: string; models: string | null }>(
          `SELECT subject, day, totals, models FROM boxbot_usage
           WHERE (subject, day) IN (SELECT * FROM unnest($1::text[], $2::text[]))
           ORDER BY subject, day FOR UPDATE`,
          keys,
        );
        const byModel = (r: { subject: string; day: string; totals: string; models: string | null }) =>
          r.subject === subjects[0] && r.day === day
            ? JSON.stringify(plusModelCharge(r.models ? JSON.parse(r.models) : undefined, JSON.parse(r.totals), c))
            : r.models;
        await q(
          `UPDATE boxbot_usage u SET totals = n.totals, models = n.models
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS n(subject, day, totals, models)
           WHERE u.subject = n.subject AND u.day = n.day`,
          [
            locked.map((r) => r.subject),
            locked.map((r) => r.day),
            locked.map((r) => JSON.stringify(plusCharge(JSON.parse(r.totals) as UsageTotals, c.usage, c.costUsd))),
            locked.map(byModel),
          ],
        );
        await q('DELETE FROM boxbot_usage WHERE subject = ANY($1::text[]) AND day <> $2 AND day < $3', [
          subjects,
          TOTAL,
          oldest,
        ]);
      });
    },
    async get(s, day) {
      const rows = await db.query<{ day: string; totals: string }>(
        'SELECT day, totals FROM boxbot_usage WHERE subject = $1 AND day IN ($2, $3)',
        [subjectKey(s), day, TOTAL],
      );
      const of = (d: string): UsageTotals => {
        const r = rows.find((x) => x.day === d);
        return r ? (JSON.parse(r.totals) as UsageTotals) : NO_USAGE_TOTALS;
      };
      return { day: of(day), total: of(TOTAL) };
    },
    async daily(from, to) {
      const span = usageSpan(from, to);
      const out = dailyCollector(span);
      let truncated = false;
      for (const [kind, prefix] of [
        ['conversations', 'conversation:'],
        ['users', 'user:'],
      ] as const) {
        // The first subjects (by key) charged in the span, one more than kept to tell if there are more.
        const rows = await db.query<{ subject: string; day: string; totals: string; models: string | null }>(
          `SELECT subject, day, totals, models FROM boxbot_usage
           WHERE day >= $1 AND day <= $2 AND subject IN (
             SELECT DISTINCT subject FROM boxbot_usage
             WHERE day >= $1 AND day <= $2 AND left(subject, length($3)) = $3
             ORDER BY subject LIMIT $4)
           ORDER BY subject`,
          [span[0], span.at(-1), prefix, USAGE_DAILY_MAX_SUBJECTS + 1],
        );
        const subjects = [...new Set(rows.map((r) => r.subject))];
        if (subjects.length > USAGE_DAILY_MAX_SUBJECTS) truncated = true;
        const kept = new Set(subjects.slice(0, USAGE_DAILY_MAX_SUBJECTS));
        for (const r of rows) {
          if (!kept.has(r.subject)) continue;
          const key = decodeKey(r.subject).slice(prefix.length);
          out.add(kind, key, r.day, JSON.parse(r.totals) as UsageTotals, r.models ? JSON.parse(r.models) : undefined);
        }
      }
      return out.result(truncated);
    },
  };
}
