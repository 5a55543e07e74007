// The bots' shared send pauses, one row per bot. The database's clock sets and reads the end of a
// pause (replicas' clocks may differ), and one statement keeps the later of two pauses, so two
// replicas hitting a 429 together never shorten each other's.
import type { RateGateStore } from '../types.ts';
import type { Db } from './db.ts';

/** Send pauses in PostgreSQL. */
export function createPgRateGates(db: Db): RateGateStore {
  return {
    async pause(bot, ms) {
      await db.query(
        `INSERT INTO boxbot_rate_gates (bot, paused_until)
         VALUES ($1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
         ON CONFLICT (bot) DO UPDATE SET
           paused_until = GREATEST(boxbot_rate_gates.paused_until, EXCLUDED.paused_until)`,
        [bot, Math.max(0, ms)],
      );
    },
    async remaining(bot) {
      const rows = await db.query<{ ms: string | number }>(
        `SELECT GREATEST(0, EXTRACT(EPOCH FROM (paused_until - clock_timestamp())) * 1000) AS ms
         FROM boxbot_rate_gates WHERE bot = $1`,
        [bot],
      );
      return rows[0] ? Math.ceil(Number(rows[0].ms)) : 0;
    },
  };
}
