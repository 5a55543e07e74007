// Webhook deliveries already accepted, as rows with an expiry: the primary key makes a claim
// win for exactly one replica, whichever replica the sender's request (or its replay) reached.
import type { HookDeliveryStore } from '../hook-deliveries.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

/** Hook deliveries in PostgreSQL (table `boxbot_hook_deliveries`, migration 10). */
export function createPgHookDeliveries(db: Db, now: () => number): HookDeliveryStore {
  return {
    async claim(hook, id, ttlMs) {
      const at = now();
      return db.tx(async (q) => {
        // Expired deliveries go first, so an old id claimed again after its window wins.
        await q('DELETE FROM boxbot_hook_deliveries WHERE expires_at <= $1', [at]);
        const won = await q(
          `INSERT INTO boxbot_hook_deliveries (hook, delivery_id, expires_at) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING RETURNING delivery_id`,
          [encodeKey(hook), encodeKey(id), at + ttlMs],
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
  };
}
