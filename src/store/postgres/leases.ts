// Leases with fencing in one row per name. The database's clock decides expiry (replicas' clocks
// may differ), and one statement takes or renews a lease, so two contenders never both win.
import type { LeaseStore } from '../types.ts';
import type { Db } from './db.ts';

/** Leases in PostgreSQL. */
export function createPgLeases(db: Db): LeaseStore {
  return {
    async acquire(name, holder, ttlMs) {
      const rows = await db.query<{ fence: string }>(
        `INSERT INTO boxbot_leases (name, holder, fence, expires_at)
         VALUES ($1, $2, 1, clock_timestamp() + make_interval(secs => $3::double precision / 1000))
         ON CONFLICT (name) DO UPDATE SET
           holder = $2,
           fence = CASE WHEN boxbot_leases.holder = $2 THEN boxbot_leases.fence ELSE boxbot_leases.fence + 1 END,
           expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
         WHERE boxbot_leases.holder = $2 OR boxbot_leases.expires_at < clock_timestamp()
         RETURNING fence`,
        [name, holder, ttlMs],
      );
      return rows[0] ? Number(rows[0].fence) : undefined;
    },
    async release(name, holder) {
      await db.query(
        `UPDATE boxbot_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE name = $1 AND holder = $2`,
        [name, holder],
      );
    },
  };
}
