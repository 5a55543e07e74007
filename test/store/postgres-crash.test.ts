// A PostgreSQL server that crashes (SIGKILL, not a clean stop) under a checked-out connection:
// the call on it fails as a retryable store error, the process lives on, and once the server is
// back the same store (and a gateway on it) works again without a restart.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { StoreError } from '../../src/store/index.ts';
import { createDb } from '../../src/store/postgres/db.ts';
import { openPostgresStore } from '../../src/store/postgres/index.ts';
import { FakeAdapter, FakeAgent, inboundMessage } from '../gateway/fakes.ts';
import { waitUntil } from '../helpers.ts';
import { type PostgresServer, startPostgres } from './postgres-server.ts';

const started = await startPostgres({ own: true }); // it crashes and restarts its server
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);
after(() => server?.stop());

/** Waits until some session of the server waits on a lock (a statement blocked inside its transaction). */
async function blockedOnLock(url: string): Promise<void> {
  const probe = createDb(url);
  try {
    await waitUntil(
      async () => {
        const rows = await probe.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
        );
        return Number(rows[0]!.n) > 0;
      },
      'a statement waiting on a lock',
      10_000,
    );
  } finally {
    await probe.close();
  }
}

/** A session holding `table` exclusively, so the next statement on it waits; its loss is expected. */
async function lockTable(url: string, table: string): Promise<pg.Client> {
  const locker = new pg.Client({ connectionString: url });
  locker.on('error', () => {}); // the crash ends it too
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return locker;
}

test('postgres killed during a transaction: the call fails retryable, the pool works after the restart', {
  skip,
}, async () => {
  const s = server as PostgresServer;
  const url = await s.database();
  const db = createDb(url);
  await db.query('CREATE TABLE t (n int)');
  let inside!: () => void;
  const begun = new Promise<void>((r) => (inside = r));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const tx = db.tx(async (q) => {
    await q('INSERT INTO t VALUES (1)');
    inside();
    await held; // the server dies here, with this transaction open on a checked-out client
    await q('INSERT INTO t VALUES (2)');
  });
  const failed = assert.rejects(tx, (e: unknown) => e instanceof StoreError && e.code === 'io' && e.retryable);
  await begun;
  await s.crash();
  release();
  await failed;
  await s.restart();
  await waitUntil(
    () =>
      db.query('SELECT 1').then(
        () => true,
        () => false,
      ),
    'the server back',
    20_000,
  );
  await db.tx(async (q) => q('INSERT INTO t VALUES (3)'));
  const rows = await db.query<{ n: number }>('SELECT n FROM t ORDER BY n');
  assert.deepEqual(
    rows.map((r) => r.n),
    [3],
    'the killed transaction left nothing',
  );
  await db.close();
});

test('postgres killed while a message is being saved: one replica lives on and answers once it is back', {
  skip,
}, async () => {
  const s = server as PostgresServer;
  const url = await s.database();
  const store = await openPostgresStore(url);
  const adapter = new FakeAdapter();
  // As `boxbot start` runs on PostgreSQL: conversations taken through leases in the same database.
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [adapter],
    agent: new FakeAgent(),
    store: store.delivery,
    cluster: { leases: store.leases!, holder: 'replica-1', sweepMs: 50 },
    outbound: { backoffMs: 5, maxBackoffMs: 50 },
  });
  await gw.start();
  const answered = (text: string) => () => adapter.posted.some((p) => p.text === `echo: ${text}`);
  const answer = (text: string) => waitUntil(answered(text), `the answer to ${text}`, 20_000);
  await adapter.sink!(inboundMessage('one', { id: 'telegram:1:1', messageId: '1' }));
  await answer('one');

  // The save of the next message blocks inside its transaction; the server dies under it.
  const locker = await lockTable(url, 'boxbot_seen');
  const saving = adapter.sink!(inboundMessage('two', { id: 'telegram:1:2', messageId: '2' }));
  await blockedOnLock(url);
  await s.crash();
  await locker.end().catch(() => {});
  await s.restart();
  await saving;
  await answer('two');
  await adapter.sink!(inboundMessage('three', { id: 'telegram:1:3', messageId: '3' }));
  await answer('three');
  assert.deepEqual(
    adapter.posted.filter((p) => p.text.startsWith('echo:')).map((p) => p.text),
    ['echo: one', 'echo: two', 'echo: three'],
  );
  await gw.stop();
  await store.close();
});
