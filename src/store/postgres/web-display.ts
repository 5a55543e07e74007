// What each web chat session showed, one row per session (the events as JSON text). An update
// makes sure the row exists, then locks it (SELECT … FOR UPDATE) for its read-modify-write, so two
// replicas changing one session's record take turns.
import type { ShownEvent, WebDisplayStore } from '../web-display.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

/** The display record in PostgreSQL (table `boxbot_web_display`, migration 15). */
export function createPgWebDisplay(db: Db, now: () => number): WebDisplayStore {
  return {
    async read(session) {
      const [row] = await db.query<{ events: string }>('SELECT events FROM boxbot_web_display WHERE session = $1', [
        encodeKey(session),
      ]);
      return row ? (JSON.parse(row.events) as ShownEvent[]) : [];
    },
    async update(session, fn) {
      const key = encodeKey(session);
      await db.tx(async (q) => {
        await q(
          `INSERT INTO boxbot_web_display (session, events, updated_at) VALUES ($1, '[]', $2)
             ON CONFLICT (session) DO NOTHING`,
          [key, now()],
        );
        const [row] = await q<{ events: string }>(
          'SELECT events FROM boxbot_web_display WHERE session = $1 FOR UPDATE',
          [key],
        );
        const events = fn(JSON.parse(row?.events ?? '[]') as ShownEvent[]);
        await q('UPDATE boxbot_web_display SET events = $2, updated_at = $3 WHERE session = $1', [
          key,
          JSON.stringify(events),
          now(),
        ]);
      });
    },
  };
}
