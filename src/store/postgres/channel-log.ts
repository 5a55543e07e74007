// The channel log in PostgreSQL: one row per channel and platform message id, so a redelivered or
// backfilled message replaces its row, and retention is one DELETE by time.
import type { ChannelLogEntry, ChannelLogStore } from '../channel-log-types.ts';
import type { Db } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

const iso = (at: string): string => new Date(at).toISOString();
/** Rows per INSERT of `put`. */
const PUT_BATCH = 500;

/** The channel log in PostgreSQL. */
export function createPgChannelLog(db: Db): ChannelLogStore {
  async function patch(
    channel: string,
    messageId: string,
    fn: (e: ChannelLogEntry) => ChannelLogEntry,
  ): Promise<boolean> {
    return db.tx(async (q) => {
      const rows = await q<{ entry: string }>(
        'SELECT entry FROM boxbot_channel_log WHERE channel = $1 AND message_id = $2 FOR UPDATE',
        [encodeKey(channel), encodeKey(messageId)],
      );
      if (!rows[0]) return false;
      const next = fn(JSON.parse(rows[0].entry) as ChannelLogEntry);
      await q('UPDATE boxbot_channel_log SET entry = $3 WHERE channel = $1 AND message_id = $2', [
        encodeKey(channel),
        encodeKey(messageId),
        JSON.stringify(next),
      ]);
      return true;
    });
  }

  return {
    async put(entries) {
      // One entry per message id (the validating wrapper sees to it): one statement never
      // touches a row twice.
      const all = entries.map((e) => ({ ...e, at: iso(e.at) }));
      // A backfill's thousands of messages are a few statements, not a round trip each.
      for (let i = 0; i < all.length; i += PUT_BATCH) {
        const batch = all.slice(i, i + PUT_BATCH);
        await db.query(
          `INSERT INTO boxbot_channel_log (channel, message_id, at, entry)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
           ON CONFLICT (channel, message_id) DO UPDATE SET at = EXCLUDED.at, entry = EXCLUDED.entry`,
          [
            batch.map((e) => encodeKey(e.channel)),
            batch.map((e) => encodeKey(e.messageId)),
            batch.map((e) => e.at),
            batch.map((e) => JSON.stringify(e)),
          ],
        );
      }
    },
    edit: (channel, edit) =>
      patch(channel, edit.messageId, (e) => {
        const { files: _files, ...rest } = e;
        const files = edit.files ?? e.files;
        return { ...rest, text: edit.text, editedAt: edit.editedAt, ...(files?.length ? { files } : {}) };
      }),
    async remove(channel, messageId) {
      const gone = await db.query(
        'DELETE FROM boxbot_channel_log WHERE channel = $1 AND message_id = $2 RETURNING message_id',
        [encodeKey(channel), encodeKey(messageId)],
      );
      return gone.length > 0;
    },
    async list(channel, range) {
      const rows = await db.query<{ entry: string }>(
        `SELECT entry FROM boxbot_channel_log WHERE channel = $1 AND at >= $2 AND at < $3
         ORDER BY at COLLATE "C", message_id COLLATE "C"`,
        [encodeKey(channel), iso(range.from), iso(range.to)],
      );
      return rows.map((r) => JSON.parse(r.entry) as ChannelLogEntry);
    },
    async oldest(channel) {
      const rows = await db.query<{ at: string | null }>(
        'SELECT min(at) AS at FROM boxbot_channel_log WHERE channel = $1',
        [encodeKey(channel)],
      );
      return rows[0]?.at ?? undefined;
    },
    async channels() {
      const rows = await db.query<{ channel: string }>(
        'SELECT DISTINCT channel FROM boxbot_channel_log ORDER BY channel',
      );
      return rows.map((r) => decodeKey(r.channel));
    },
    async prune(channel, before) {
      const gone = await db.query(
        'DELETE FROM boxbot_channel_log WHERE channel = $1 AND at < $2 RETURNING message_id',
        [encodeKey(channel), iso(before)],
      );
      return gone.length;
    },
  };
}
