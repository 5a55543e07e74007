// The approvals journal as rows, one per approval (JSON text), with its state, inbound id and age
// beside it for the queries. A decision is made under the row's lock: the first one wins, once,
// whichever replica makes it.
import { APPROVAL_RETENTION_MS, approvalFromJson, approvalTransitions, checkedApproval } from '../approvals.ts';
import type { ApprovalRecord, ApprovalStore } from '../types.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

/** Approvals in PostgreSQL. */
export function createPgApprovals(db: Db, now: () => number): ApprovalStore {
  const records = (rows: { record: string }[]) => rows.map((r) => approvalFromJson(r.record));
  /** Changes one approval under its row lock; `change` returns undefined to leave it as it is. */
  const change = (id: string, fn: (a: ApprovalRecord) => ApprovalRecord | undefined) =>
    db.tx(async (q) => {
      const [row] = await q<{ record: string }>('SELECT record FROM boxbot_approvals WHERE id = $1 FOR UPDATE', [
        encodeKey(id),
      ]);
      if (!row) return undefined;
      const cur = approvalFromJson(row.record);
      const next = fn(cur);
      if (!next) return cur;
      await q('UPDATE boxbot_approvals SET state = $2, record = $3 WHERE id = $1', [
        encodeKey(id),
        next.state,
        JSON.stringify(next),
      ]);
      return next;
    });
  return {
    async put(record) {
      checkedApproval(record, 'invalid');
      const cutoff = new Date(now() - APPROVAL_RETENTION_MS).toISOString();
      await db.tx(async (q) => {
        await q(`DELETE FROM boxbot_approvals WHERE state <> 'pending' AND created_at < $1`, [cutoff]);
        await q(
          `INSERT INTO boxbot_approvals (id, inbound_id, state, created_at, record) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (id) DO UPDATE SET inbound_id = $2, state = $3, created_at = $4, record = $5`,
          [encodeKey(record.id), encodeKey(record.inboundId), record.state, record.createdAt, JSON.stringify(record)],
        );
      });
    },
    async get(id) {
      return records(await db.query('SELECT record FROM boxbot_approvals WHERE id = $1', [encodeKey(id)]))[0];
    },
    ...approvalTransitions(change),
    pending: async () =>
      records(
        await db.query(`SELECT record FROM boxbot_approvals WHERE state = 'pending' ORDER BY created_at, id`, []),
      ),
    recent: async (limit) =>
      records(
        await db.query(
          `SELECT record FROM boxbot_approvals WHERE state <> 'pending' ORDER BY created_at DESC, id DESC LIMIT $1`,
          [limit],
        ),
      ),
    forMessage: async (inboundId) =>
      records(
        await db.query('SELECT record FROM boxbot_approvals WHERE inbound_id = $1 ORDER BY created_at, id', [
          encodeKey(inboundId),
        ]),
      ),
  };
}
