// Conversations as rows: the history is one JSON text per key, replaced as a whole like the file
// backend's document, and `has_answer` is kept beside it so thread follow-ups need no parse.
import { platformOf } from '../../adapters/index.ts';
import type { Message } from '../../core/message.ts';
import { archiveIdBefore, archiveRecord } from '../archive-record.ts';
import type { ArchivedConversation, Conversation, ConversationStore } from '../types.ts';
import { type Db, orderedRuns } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

interface Row {
  key: string;
  platform: string;
  created_at: string;
  updated_at: string;
  messages: string;
  model: string | null;
}

const fromRow = (r: Row): Conversation => ({
  key: decodeKey(r.key),
  platform: r.platform,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  messages: JSON.parse(r.messages) as Message[],
  ...(r.model ? { model: r.model } : {}),
});

/** Conversations in PostgreSQL. */
export function createPgConversations(db: Db, now: () => number): ConversationStore {
  const stamp = (): string => new Date(now()).toISOString();
  // Writes of one key leave this process in call order.
  const lockRun = orderedRuns(db);
  return {
    async get(key) {
      const [row] = await db.query<Row>('SELECT * FROM boxbot_conversations WHERE key = $1', [encodeKey(key)]);
      return row ? fromRow(row) : undefined;
    },
    async setMessages(key, messages) {
      const at = stamp();
      const [row] = await lockRun(key, (d) =>
        d.query<Row>(
          `INSERT INTO boxbot_conversations (key, platform, created_at, updated_at, messages, has_answer)
         VALUES ($1, $2, $3, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET updated_at = $3, messages = $4, has_answer = $5
         RETURNING *`,
          [encodeKey(key), platformOf(key), at, JSON.stringify(messages), messages.some((m) => m.role === 'assistant')],
        ),
      );
      return fromRow(row as Row);
    },
    async reset(key) {
      await lockRun(key, (d) =>
        d.query(`UPDATE boxbot_conversations SET updated_at = $2, messages = '[]', has_answer = false WHERE key = $1`, [
          encodeKey(key),
          stamp(),
        ]),
      );
    },
    async setModel(key, model) {
      await lockRun(key, (d) =>
        d.query(
          `INSERT INTO boxbot_conversations (key, platform, created_at, updated_at, messages, model)
         VALUES ($1, $2, $3, $3, '[]', $4)
         ON CONFLICT (key) DO UPDATE SET updated_at = $3, model = $4`,
          [encodeKey(key), platformOf(key), stamp(), model ?? null],
        ),
      );
    },
    async archive(key, requestId) {
      // One transaction: the copy and the clearing happen together or not at all.
      return lockRun(key, (d) =>
        d.tx(async (q) => {
          const [row] = await q<Row>('SELECT * FROM boxbot_conversations WHERE key = $1 FOR UPDATE', [encodeKey(key)]);
          if (requestId) {
            // This /new archived before the process stopped (its reply not yet written): that archive
            // stands, and a session started since is left alone.
            const [newest] = await q<{ record: string }>(
              'SELECT record FROM boxbot_archives WHERE key = $1 ORDER BY id DESC LIMIT 1',
              [encodeKey(key)],
            );
            const prior = newest && (JSON.parse(newest.record) as ArchivedConversation);
            if (prior && prior.requestId === requestId) return prior;
          }
          const cur = row ? fromRow(row) : undefined;
          if (!cur?.messages.length) return undefined;
          const archivedAt = stamp();
          const [{ n }] = (await q<{ n: string }>('SELECT count(*) AS n FROM boxbot_archives WHERE key = $1', [
            encodeKey(key),
          ])) as [{ n: string }];
          const record = archiveRecord(key, cur, { at: now(), archivedAt, earlier: Number(n), requestId });
          const { id } = record;
          await q('INSERT INTO boxbot_archives (key, id, record) VALUES ($1, $2, $3)', [
            encodeKey(key),
            id,
            JSON.stringify(record),
          ]);
          await q(
            `UPDATE boxbot_conversations SET created_at = $2, updated_at = $2, messages = '[]', has_answer = false
             WHERE key = $1`,
            [encodeKey(key), archivedAt],
          );
          return record;
        }),
      );
    },
    async archived(key) {
      const rows = await db.query<{ record: string }>('SELECT record FROM boxbot_archives WHERE key = $1 ORDER BY id', [
        encodeKey(key),
      ]);
      return rows.map((r) => JSON.parse(r.record) as ArchivedConversation);
    },
    async pruneArchives(before) {
      const gone = await db.query('DELETE FROM boxbot_archives WHERE id < $1 RETURNING id', [archiveIdBefore(before)]);
      return gone.length;
    },
    async keys() {
      const rows = await db.query<{ key: string }>('SELECT key FROM boxbot_conversations');
      return rows.map((r) => decodeKey(r.key));
    },
  };
}
