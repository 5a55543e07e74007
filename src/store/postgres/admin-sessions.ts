// The dashboard's sign-in state as rows: sessions by the hash of the cookie's id, failed sign-ins
// one row per address (an upsert counts a failure for exactly one window however many replicas
// take them at once).
import {
  ADMIN_FAILURE_ADDRESSES,
  type AdminSession,
  type AdminSessionStore,
  adminSessionLive,
  adminTouchDue,
} from '../admin-sessions.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

type Row = { id_hash: string; csrf: string; created_at: string; last_used_at: string; expires_at: string };

const sessionOf = (r: Row): AdminSession => ({
  idHash: r.id_hash,
  csrf: r.csrf,
  createdAt: Number(r.created_at),
  lastUsedAt: Number(r.last_used_at),
  expiresAt: Number(r.expires_at),
});

/** Dashboard sign-in state in PostgreSQL (`boxbot_admin_sessions`, `boxbot_admin_failures`; migration 16). */
export function createPgAdminSessions(db: Db, now: () => number): AdminSessionStore {
  return {
    async create(s, maxSessions) {
      await db.tx(async (q) => {
        await q('DELETE FROM boxbot_admin_sessions WHERE expires_at <= $1', [now()]);
        await q(
          `DELETE FROM boxbot_admin_sessions WHERE id_hash IN (
             SELECT id_hash FROM boxbot_admin_sessions ORDER BY created_at DESC OFFSET $1)`,
          [Math.max(0, maxSessions - 1)],
        );
        await q(
          `INSERT INTO boxbot_admin_sessions (id_hash, csrf, created_at, last_used_at, expires_at)
             VALUES ($1, $2, $3, $4, $5)`,
          [s.idHash, s.csrf, s.createdAt, s.lastUsedAt, s.expiresAt],
        );
      });
    },
    async use(idHash, idleMs) {
      const at = now();
      const [row] = await db.query<Row>('SELECT * FROM boxbot_admin_sessions WHERE id_hash = $1', [idHash]);
      if (!row) return undefined;
      const found = sessionOf(row);
      if (!adminSessionLive(found, at, idleMs)) {
        await db.query('DELETE FROM boxbot_admin_sessions WHERE id_hash = $1 AND last_used_at = $2', [
          idHash,
          found.lastUsedAt,
        ]);
        return undefined;
      }
      if (!adminTouchDue(found, at, idleMs)) return found;
      const [touched] = await db.query<Row>(
        `UPDATE boxbot_admin_sessions SET last_used_at = GREATEST(last_used_at, $2)
           WHERE id_hash = $1 AND expires_at > $2 RETURNING *`,
        [idHash, at],
      );
      return touched ? sessionOf(touched) : undefined;
    },
    async remove(idHash) {
      const rows = await db.query('DELETE FROM boxbot_admin_sessions WHERE id_hash = $1 RETURNING id_hash', [idHash]);
      return rows.length > 0;
    },
    async count() {
      const [r] = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM boxbot_admin_sessions WHERE expires_at > $1',
        [now()],
      );
      return Number(r?.n ?? 0);
    },
    async addFailure(address, windowMs) {
      const at = now();
      return db.tx(async (q) => {
        await q('DELETE FROM boxbot_admin_failures WHERE since < $1', [at - windowMs]);
        const [row] = await q<{ count: number }>(
          `INSERT INTO boxbot_admin_failures (address, since, count) VALUES ($1, $2, 1)
             ON CONFLICT (address) DO UPDATE SET
               count = CASE WHEN $2 - boxbot_admin_failures.since > $3 THEN 1 ELSE boxbot_admin_failures.count + 1 END,
               since = CASE WHEN $2 - boxbot_admin_failures.since > $3 THEN $2 ELSE boxbot_admin_failures.since END
             RETURNING count`,
          [encodeKey(address), at, windowMs],
        );
        // A flood of addresses: the oldest windows are forgotten, so the table stays small.
        await q(
          `DELETE FROM boxbot_admin_failures WHERE address IN (
             SELECT address FROM boxbot_admin_failures ORDER BY since DESC OFFSET $1)`,
          [ADMIN_FAILURE_ADDRESSES],
        );
        return Number(row?.count ?? 1);
      });
    },
    async failures(address, windowMs) {
      const [row] = await db.query<{ count: number; since: string }>(
        'SELECT count, since FROM boxbot_admin_failures WHERE address = $1',
        [encodeKey(address)],
      );
      return row && now() - Number(row.since) <= windowMs ? Number(row.count) : 0;
    },
  };
}
