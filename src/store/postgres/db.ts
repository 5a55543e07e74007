// The connection pool under the PostgreSQL store: every call is counted so `close` can wait for
// the ones in flight, calls after `close` fail with StoreError `closed`, and a database that
// cannot be reached surfaces as StoreError `io` (retryable), never as a driver error.
import pg from 'pg';
import { errorMessage } from '../../errors.ts';
import { createKeyedLock } from '../../keyed-lock.ts';
import { StoreError } from '../errors.ts';

/** Runs SQL for one store. */
export interface Db {
  /** One statement outside a transaction. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  /** `fn` inside BEGIN/COMMIT on one connection (ROLLBACK when it throws). */
  tx<T>(fn: (q: Db['query']) => Promise<T>): Promise<T>;
  /**
   * `fn` as one call of the store: refused once closed, waited for by `close`, even while it
   * waits in a lock before its first query (the handle it gets works until it settles).
   */
  run<T>(fn: (db: Pick<Db, 'query' | 'tx'>) => Promise<T>): Promise<T>;
  /** A connection of its own (migrations, leases); the caller releases it. */
  connect(): Promise<pg.PoolClient>;
  /** Waits for the calls in flight, then closes the pool. */
  close(): Promise<void>;
}

/** Runs `fn` as one call of the store, in call order with the earlier calls of `key`. */
export type OrderedRun = <T>(key: string, fn: (d: Pick<Db, 'query' | 'tx'>) => Promise<T>) => Promise<T>;

/**
 * An OrderedRun over `db`: calls of one key leave this process in call order (the pool alone
 * would let a later one overtake an earlier one), each counted as one store call from the start.
 */
export function orderedRuns(db: Db): OrderedRun {
  const lock = createKeyedLock();
  return (key, fn) => db.run((d) => lock.run(key, () => fn(d)));
}

/** Where the database is, for messages: the URL without its password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the configured database URL (unparsable)';
  }
}

/** A pool on `url` (`postgres://user:password@host:port/database`). */
export function createDb(url: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  // An idle connection the server drops (a restart, a failover) must not end the process.
  pool.on('error', () => {});
  let closed = false;
  const inflight = new Set<Promise<unknown>>();

  function guard<T>(run: () => Promise<T>, checked = true): Promise<T> {
    if (checked && closed) return Promise.reject(new StoreError('closed', 'the store is closed'));
    const p = run().catch((e: unknown) => {
      if (e instanceof StoreError) throw e;
      throw new StoreError('io', `database call failed on ${describeUrl(url)}: ${errorMessage(e)}`, { cause: e });
    });
    inflight.add(p);
    const drop = () => inflight.delete(p);
    p.then(drop, drop);
    return p;
  }

  const ops = (checked: boolean): Pick<Db, 'query' | 'tx'> => ({
    query: (sql, params) => guard(async () => (await pool.query(sql, params as unknown[])).rows as never, checked),
    tx: (fn) =>
      guard(async () => {
        const client = await pool.connect();
        let broken = false;
        try {
          await client.query('BEGIN');
          const out = await fn(async (sql, params) => (await client.query(sql, params as unknown[])).rows as never);
          await client.query('COMMIT');
          return out;
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {
            broken = true;
          });
          throw e;
        } finally {
          client.release(broken);
        }
      }, checked),
  });
  const inner = ops(false);

  return {
    ...ops(true),
    run: (fn) => guard(() => fn(inner)),
    connect: () => guard(() => pool.connect()),
    async close() {
      closed = true;
      while (inflight.size) await Promise.allSettled([...inflight]);
      await pool.end();
    },
  };
}
