// Conversations as rows: the history is one JSON text per key, replaced as a whole like the file
// backend's document, and `has_answer` is kept beside it so thread follow-ups need no parse.
import { platformOf } from '../../adapters/index.ts';
import type { Message } from '../../agent/index.ts';
import { createKeyedLock } from '../../keyed-lock.ts';
import { checkKey } from '../names.ts';
import type { Conversation, ConversationStore } from '../types.ts';
import type { Db } from './db.ts';
import { decodeKey, encodeKey } from './text-codec.ts';

interface Row {
  key: string;
  platform: string;
  created_at: string;
  updated_at: string;
  messages: string;
}

const fromRow = (r: Row): Conversation => ({
  key: decodeKey(r.key),
  platform: r.platform,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  messages: JSON.parse(r.messages) as Message[],
});

/** Conversations in PostgreSQL. */
export function createPgConversations(db: Db, now: () => number): ConversationStore {
  const stamp = (): string => new Date(now()).toISOString();
  // Writes of one key leave this process in call order (the pool would let a later one overtake).
  const lock = createKeyedLock();
  /** `fn` in call order with the earlier calls of `key`, counted as one store call from now on. */
  const lockRun = <T>(key: string, fn: (d: Pick<Db, 'query' | 'tx'>) => Promise<T>): Promise<T> =>
    db.run((d) => lock.run(key, () => fn(d)));
  return {
    async get(key) {
      checkKey(key, 'conversation key');
      const [row] = await db.query<Row>('SELECT * FROM boxbot_conversations WHERE key = $1', [encodeKey(key)]);
      return row ? fromRow(row) : undefined;
    },
    async setMessages(key, messages) {
      checkKey(key, 'conversation key');
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
      checkKey(key, 'conversation key');
      await lockRun(key, (d) =>
        d.query(`UPDATE boxbot_conversations SET updated_at = $2, messages = '[]', has_answer = false WHERE key = $1`, [
          encodeKey(key),
          stamp(),
        ]),
      );
    },
    async keys() {
      const rows = await db.query<{ key: string }>('SELECT key FROM boxbot_conversations');
      return rows.map((r) => decodeKey(r.key)).sort();
    },
  };
}
