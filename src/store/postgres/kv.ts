// Small named state as rows of JSON text.
import { createKeyedLock } from '../../keyed-lock.ts';
import { checkKey } from '../names.ts';
import type { JsonValue, KvStore } from '../types.ts';
import type { Db } from './db.ts';
import { encodeKey } from './text-codec.ts';

/** The kv store in PostgreSQL. */
export function createPgKv(db: Db): KvStore {
  const lock = createKeyedLock();
  /** `fn` in call order with the earlier calls of `key`, counted as one store call from now on. */
  const lockRun = <T>(key: string, fn: (d: Pick<Db, 'query' | 'tx'>) => Promise<T>): Promise<T> =>
    db.run((d) => lock.run(key, () => fn(d)));
  return {
    async get(key) {
      checkKey(key, 'kv key');
      const [row] = await db.query<{ value: string }>('SELECT value FROM boxbot_kv WHERE key = $1', [encodeKey(key)]);
      return row ? (JSON.parse(row.value) as JsonValue) : undefined;
    },
    async set(key, value) {
      checkKey(key, 'kv key');
      await lockRun(key, (d) =>
        d.query('INSERT INTO boxbot_kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2', [
          encodeKey(key),
          JSON.stringify(value),
        ]),
      );
    },
  };
}
