// Usage per conversation and per user as rows: one per subject and UTC day, and one for the
// all-time totals (day `total`). A charge updates its rows in one transaction under row locks, so
// replicas charging the same subject at once add up rather than overwrite each other.
import { checkKey } from '../names.ts';
import type { UsageStore, UsageSubject, UsageTotals } from '../types.ts';
import { NO_USAGE_TOTALS, plusCharge, USAGE_DAYS_KEPT } from '../usage.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

const TOTAL = 'total';

const subjectKey = (s: UsageSubject): string => {
  const id = 'conversationKey' in s ? s.conversationKey : s.userKey;
  checkKey(id, 'usage subject');
  return encodeKey(`${'conversationKey' in s ? 'conversation' : 'user'}:${id}`);
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
      if (c.userKey) subjects.push(subjectKey({ userKey: c.userKey }));
      await db.tx(async (q) => {
        for (const subject of subjects) {
          for (const d of [day, TOTAL]) {
            // The row exists before it is locked, so two first charges at once both count.
            await q('INSERT INTO boxbot_usage (subject, day, totals) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
              subject,
              d,
              JSON.stringify(NO_USAGE_TOTALS),
            ]);
            const [row] = await q<{ totals: string }>(
              'SELECT totals FROM boxbot_usage WHERE subject = $1 AND day = $2 FOR UPDATE',
              [subject, d],
            );
            const next = plusCharge(JSON.parse(row!.totals) as UsageTotals, c.usage, c.costUsd);
            await q('UPDATE boxbot_usage SET totals = $3 WHERE subject = $1 AND day = $2', [
              subject,
              d,
              JSON.stringify(next),
            ]);
          }
          await q('DELETE FROM boxbot_usage WHERE subject = $1 AND day <> $2 AND day < $3', [subject, TOTAL, oldest]);
        }
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
  };
}
