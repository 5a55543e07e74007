// Webhook deliveries already accepted, as rows with an expiry: the primary key makes a claim
// win for exactly one replica, whichever replica the sender's request (or its replay) reached.
// The claim's event rides in the same row (migration 12) until its run has ended; a row with an
// event not yet run does not expire.
import type { HookDeliveryStore, HookEvent } from '../hook-deliveries.ts';
import type { Db } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

/** Hook deliveries in PostgreSQL (table `boxbot_hook_deliveries`, migrations 10 and 12). */
export function createPgHookDeliveries(db: Db, now: () => number): HookDeliveryStore {
  return {
    async claim(hook, id, ttlMs, event) {
      const at = now();
      return db.tx(async (q) => {
        // Expired deliveries go first, so an old id claimed again after its window wins.
        await q('DELETE FROM boxbot_hook_deliveries WHERE expires_at <= $1 AND event IS NULL', [at]);
        const won = await q(
          `INSERT INTO boxbot_hook_deliveries (hook, delivery_id, expires_at, event) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING RETURNING delivery_id`,
          [encodeKey(hook), encodeKey(id), at + ttlMs, event ? JSON.stringify(event) : null],
        );
        return won.length > 0;
      });
    },
    async release(hook, id) {
      await db.query('DELETE FROM boxbot_hook_deliveries WHERE hook = $1 AND delivery_id = $2', [
        encodeKey(hook),
        encodeKey(id),
      ]);
    },
    async finish(hook, id) {
      await db.query('UPDATE boxbot_hook_deliveries SET event = NULL WHERE hook = $1 AND delivery_id = $2', [
        encodeKey(hook),
        encodeKey(id),
      ]);
    },
    async unfinished(hook) {
      const rows = await db.query<{ delivery_id: string; event: string }>(
        'SELECT delivery_id, event FROM boxbot_hook_deliveries WHERE hook = $1 AND event IS NOT NULL',
        [encodeKey(hook)],
      );
      return rows
        .map((r) => ({ delivery: decodeKey(r.delivery_id), ...(JSON.parse(r.event) as HookEvent) }))
        .sort((a, b) => a.acceptedAt - b.acceptedAt);
    },
  };
}
