// Small named state as rows of JSON text.
import type { JsonValue, KvStore } from '../types.ts';
import { type Db, orderedRuns } from './db.ts';
import { encodeKey } from './text-codec.ts';

/** The kv store in PostgreSQL. */
export function createPgKv(db: Db): KvStore {
  const lockRun = orderedRuns(db);
  return {
    async get(key) {
      const [row] = await db.query<{ value: string }>('SELECT value FROM boxbot_kv WHERE key = $1', [encodeKey(key)]);
      return row ? (JSON.parse(row.value) as JsonValue) : undefined;
    },
    async set(key, value) {
      await lockRun(key, (d) =>
        d.query('INSERT INTO boxbot_kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2', [
          encodeKey(key),
          JSON.stringify(value),
        ]),
      );
    },
  };
}
