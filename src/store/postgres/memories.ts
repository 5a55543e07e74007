// Long-term memories as rows, one list per scope (`user:<platform>:<id>` or `conversation:<key>`),
// in the order added.
import { StoreError } from '../errors.ts';
import type { MemoryRecord, MemoryScope, MemoryStore } from '../types.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

const scopeKey = (scope: MemoryScope): string => {
  const key = scope.kind === 'user' ? scope.userKey : scope.conversationKey;
  return encodeKey(`${scope.kind}:${key}`);
};

/** Memories in PostgreSQL. */
export function createPgMemories(db: Db): MemoryStore {
  return {
    async list(scope) {
      const rows = await db.query<{ record: string }>(
        'SELECT record FROM boxbot_memories WHERE scope = $1 ORDER BY seq',
        [scopeKey(scope)],
      );
      return rows.map((r) => JSON.parse(r.record) as MemoryRecord);
    },
    async add(record) {
      const added = await db.query(
        'INSERT INTO boxbot_memories (scope, id, record) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id',
        [scopeKey(record.scope), encodeKey(record.id), JSON.stringify(record)],
      );
      if (!added.length)
        throw new StoreError('invalid', `memory id ${JSON.stringify(record.id)} is taken in its scope`);
    },
    async remove(scope, id) {
      const gone = await db.query('DELETE FROM boxbot_memories WHERE scope = $1 AND id = $2 RETURNING id', [
        scopeKey(scope),
        encodeKey(id),
      ]);
      return gone.length > 0;
    },
    async clear(scope) {
      return (await db.query('DELETE FROM boxbot_memories WHERE scope = $1 RETURNING id', [scopeKey(scope)])).length;
    },
  };
}
