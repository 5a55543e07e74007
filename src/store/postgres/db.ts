// The connection pool under the PostgreSQL store: every call is counted so `close` can wait for
// the ones in flight, calls after `close` fail with StoreError `closed`, and a database that
// cannot be reached surfaces as StoreError `io` (retryable), never as a driver error. A server
// that dies under a checked-out connection fails that call, never the process.
import pg from 'pg';
import { errorMessage } from '../../core/errors.ts';
import { createKeyedLock } from '../../core/keyed-lock.ts';
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
  /** `fn` on a connection of its own (migrations), released when `fn` settles. */
  session<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
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

/** A client checked out for one call, and what is known of its connection. */
interface Checkout {
  client: pg.PoolClient;
  /** The server dropped the connection meanwhile (its queries fail from then on). */
  lost(): boolean;
  /** Marks the connection unfit for reuse (its state is unknown). */
  broken(why: Error): void;
}

/**
 * `fn` on a client checked out of `pool`, with an `error` listener for its whole use: the pool
 * listens on idle clients only, and a connection the server drops while checked out (a SIGKILLed
 * server, a failover) emits an `error` that would otherwise end the process. The call's query
 * fails anyway (a retryable store error); the client is released as broken so the pool closes it
 * instead of handing it out again.
 */
async function withClient<T>(pool: pg.Pool, fn: (c: Checkout) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  let broken: Error | undefined;
  const onError = (e: Error) => {
    lost ??= e;
  };
  client.on('error', onError);
  try {
    return await fn({ client, lost: () => lost !== undefined, broken: (why) => (broken ??= why) });
  } finally {
    client.release(lost ?? broken);
    client.off('error', onError); // the pool's idle listener is on it again (or it is closed)
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
      guard(
        () =>
          withClient(pool, async ({ client, lost, broken }) => {
            try {
              await client.query('BEGIN');
              const out = await fn(async (sql, params) => (await client.query(sql, params as unknown[])).rows as never);
              await client.query('COMMIT');
              return out;
            } catch (e) {
              // Rolled back, the connection goes back to the pool clean; else it is closed.
              if (!lost()) await client.query('ROLLBACK').catch((r: unknown) => broken(r as Error));
              throw e;
            }
          }),
        checked,
      ),
  });
  const inner = ops(false);

  return {
    ...ops(true),
    run: (fn) => guard(() => fn(inner)),
    session: (fn) =>
      guard(() =>
        withClient(pool, ({ client, broken }) =>
          fn(client).catch((e: unknown) => {
            broken(e as Error); // what the failed work left on the connection is unknown
            throw e;
          }),
        ),
      ),
    async close() {
      closed = true;
      while (inflight.size) await Promise.allSettled([...inflight]);
      await pool.end();
    },
  };
}
