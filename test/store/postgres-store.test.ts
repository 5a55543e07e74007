// The store contract against the PostgreSQL backend on a real server, plus what only a shared
// database shows: replicas starting together migrate once, and a redelivery accepted by one
// replica is a duplicate for the others.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { NO_USAGE_TOTALS, StoreError, UNRECORDED_MODEL } from '../../src/store/index.ts';
import { createDb, type Db } from '../../src/store/postgres/db.ts';
import { createPostgresStore, MIGRATIONS, openPostgresStore } from '../../src/store/postgres/index.ts';
import { createPgUsage } from '../../src/store/postgres/usage.ts';
import { adminSessionsContract } from './admin-sessions-contract.ts';
import { channelLogContract } from './channel-log-contract.ts';
import { type StoreHarness, storeContract } from './contract.ts';
import { inbound, reply } from './delivery-fixtures.ts';
import { hookDeliveriesContract } from './hook-deliveries-contract.ts';
import { memoriesContract } from './memories-contract.ts';
import { type PostgresServer, startPostgres } from './postgres-server.ts';
import { webDisplayContract } from './web-display-contract.ts';
import { webSessionsContract } from './web-sessions-contract.ts';

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);
after(() => server?.stop());

const noRaw = (): never => {
  throw new Error('a database backend has no files');
};

const harness = async (): Promise<StoreHarness> => {
  const url = await (server as PostgresServer).database();
  await (await openPostgresStore(url)).close(); // migrated once, as at start
  const dbs: ReturnType<typeof createDb>[] = [];
  return {
    open: (opts) => {
      const db = createDb(url);
      dbs.push(db);
      return createPostgresStore(db, opts);
    },
    listRaw: noRaw,
    readRaw: noRaw,
    writeRaw: noRaw,
    cleanup: async () => {
      await Promise.allSettled(dbs.map((d) => d.close()));
    },
  };
};
if (server) {
  storeContract('postgres', harness, { files: false });
  memoriesContract('postgres', harness, { files: false });
  hookDeliveriesContract('postgres', harness);
  webSessionsContract('postgres', harness);
  adminSessionsContract('postgres', harness);
  webDisplayContract('postgres', harness);
  channelLogContract('postgres', harness);
}

test('postgres: replicas starting together apply each migration once', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
  const db = createDb(url);
  const rows = await db.query<{ version: number }>('SELECT version FROM boxbot_migrations ORDER BY version');
  assert.deepEqual(
    rows.map((r) => r.version),
    MIGRATIONS.map((m) => m.version),
  );
  await db.close();
  await Promise.all(stores.map((s) => s.close()));
});

test('postgres: one event redelivered to three replicas is accepted by exactly one', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const replicas = await Promise.all(Array.from({ length: 3 }, () => openPostgresStore(url)));
  for (let i = 0; i < 50; i++) {
    const accepted = await Promise.all(replicas.map((r) => r.delivery.accept(inbound(`slack:Ev${i}`))));
    assert.equal(accepted.filter(Boolean).length, 1, `event ${i}`);
  }
  assert.equal((await replicas[0]!.delivery.pending()).length, 50, 'each journaled once');
  await Promise.all(replicas.map((s) => s.close()));
});

test('postgres: a message journaled before messages had a conversation column is read by its key', {
  skip,
}, async () => {
  const url = await (server as PostgresServer).database();
  const s = await openPostgresStore(url);
  const db = createDb(url);
  await s.delivery.accept(inbound('web:new', 'web:a'));
  // As an earlier version journaled it: no conversation_key.
  const old = { ...inbound('web:old', 'web:a'), raw: null };
  await db.query('INSERT INTO boxbot_inbound (id, message) VALUES ($1, $2)', [old.id, JSON.stringify(old)]);
  assert.deepEqual(
    (await s.delivery.pending('web:a')).map((p) => p.message.id),
    ['web:new', 'web:old'],
  );
  assert.deepEqual(await s.delivery.pending('web:b'), [], 'nor is it read as another conversation’s');
  await db.close();
  await s.close();
});

test('postgres: a stored approval whose target is not a reply target is a corrupt-store error naming it', {
  skip,
}, async () => {
  const url = await (server as PostgresServer).database();
  const s = await openPostgresStore(url);
  const db = createDb(url);
  const at = new Date().toISOString();
  const record = {
    id: 'bad1',
    conversationKey: 'web:a',
    inboundId: 'web:m1',
    requesterId: 'u1',
    approvers: ['u1'],
    tool: 'write',
    input: null,
    question: 'May I?',
    target: { conversationKey: 'web:a' },
    state: 'pending',
    createdAt: at,
    expiresAt: at,
  };
  await db.query(
    'INSERT INTO boxbot_approvals (id, inbound_id, state, created_at, record) VALUES ($1, $2, $3, $4, $5)',
    ['bad1', 'web:m1', 'pending', at, JSON.stringify(record)],
  );
  const named = (e: unknown) =>
    e instanceof StoreError && e.code === 'corrupt' && /approval "bad1": target: .*chatId must be/.test(e.message);
  await assert.rejects(s.approvals.get('bad1'), named);
  await assert.rejects(s.approvals.pending(), named);
  await assert.rejects(s.approvals.decide('bad1', 'denied', at), named);
  await db.close();
  await s.close();
});

test('postgres: a usage charge is four statements, and charges made at once all add up', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  await (await openPostgresStore(url)).close(); // the schema
  const db = createDb(url);
  let statements = 0;
  const counted: Db = {
    ...db,
    query: (sql, params) => {
      statements++;
      return db.query(sql, params);
    },
    tx: (fn) =>
      db.tx((q) =>
        fn((sql, params) => {
          statements++;
          return q(sql, params);
        }),
      ),
  };
  const usage = createPgUsage(counted);
  const charge = (conversationKey: string) => ({
    conversationKey,
    userKey: 'web:u1',
    model: 'm',
    usage: { inputTokens: 10, outputTokens: 1 },
    costUsd: 0.5,
    at: '2026-01-02T10:00:00Z',
  });
  await usage.add(charge('web:a'));
  assert.equal(statements, 4, 'the conversation’s and the user’s rows, today’s and the totals, together');
  // One user in four conversations, twenty charges at once (replicas): none lost, none deadlocked.
  await Promise.all(Array.from({ length: 20 }, (_, i) => usage.add(charge(`web:c${i % 4}`))));
  const user = await usage.get({ userKey: 'web:u1' }, '2026-01-02');
  assert.equal(user.day.calls, 21);
  assert.equal(user.total.costUsd, 10.5);
  assert.equal((await usage.get({ conversationKey: 'web:c1' }, '2026-01-02')).total.calls, 5);
  const [day] = (await usage.daily('2026-01-02', '2026-01-02')).days;
  assert.equal(day!.models.m!.calls, 21, 'the split by model, updated under the same row locks, lost none');
  await db.close();
});

test('postgres: a day begun before the split by model keeps its calls under “model not recorded”', {
  skip,
}, async () => {
  const url = await (server as PostgresServer).database();
  const db = createDb(url);
  await db.query(
    `CREATE TABLE boxbot_migrations (
       version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (const m of MIGRATIONS.filter((m) => m.version <= 13)) {
    await db.query(m.sql);
    await db.query('INSERT INTO boxbot_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
  const totals = { ...NO_USAGE_TOTALS, calls: 1, inputTokens: 5, outputTokens: 1, costUsd: 0.5 };
  await db.query('INSERT INTO boxbot_usage (subject, day, totals) VALUES ($1, $2, $3)', [
    'conversation:web:a',
    '2026-01-02',
    JSON.stringify(totals),
  ]);
  const store = await openPostgresStore(url);
  await store.usage.add({
    conversationKey: 'web:a',
    model: 'p/m',
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0.25,
    at: '2026-01-02T11:00:00Z',
  });
  const [day] = (await store.usage.daily('2026-01-02', '2026-01-02')).days;
  assert.equal(day!.conversations['web:a']!.costUsd, 0.75);
  // The day's calls before the upgrade are not known by model; the split still adds up to the day.
  assert.deepEqual(Object.fromEntries(Object.entries(day!.models).map(([k, v]) => [k, v.costUsd])), {
    [UNRECORDED_MODEL]: 0.5,
    'p/m': 0.25,
  });
  await store.close();
  await db.close();
});

test('postgres: an unreachable database is a retryable io error naming it without the password', { skip }, async () => {
  const err = await openPostgresStore('postgres://boxbot:s3cret@127.0.0.1:1/boxbot').then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof StoreError && err.code === 'io' && err.retryable, String(err));
  assert.match(err.message, /127\.0\.0\.1:1/);
  assert.doesNotMatch(err.message, /s3cret/);
});

test('postgres: messages and keys holding U+0000 round-trip', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const s = await openPostgresStore(url);
  await s.conversations.setMessages('web:\u0000a\\0', [
    { role: 'user', content: [{ type: 'text', text: 'a\u0000b' }] },
  ]);
  await s.conversations.setMessages('web:\\0a\u0000', []);
  const c = await s.conversations.get('web:\u0000a\\0');
  assert.deepEqual(c?.messages[0]?.content[0], { type: 'text', text: 'a\u0000b' });
  assert.deepEqual(await s.conversations.keys(), ['web:\u0000a\\0', 'web:\\0a\u0000'].sort());
  await s.close();
});

test('postgres: the raw platform payload of an accepted message is not stored', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const s = await openPostgresStore(url);
  await s.delivery.accept(inbound('telegram:1:5', 'telegram:1'));
  await s.close();
  const db = createDb(url);
  const rows = await db.query<{ message: string }>('SELECT message FROM boxbot_inbound');
  await db.close();
  assert.equal(rows.length, 1);
  assert.doesNotMatch(rows[0]!.message, /platform payload/);
});

test('postgres: outbox files are kept with their receipts across a restart and dropped when done', {
  skip,
}, async () => {
  const url = await (server as PostgresServer).database();
  let s = await openPostgresStore(url);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 7]);
  const entry = reply('m1', 'web:a', ['text'], {
    files: [
      { name: 'a.png', mimeType: 'image/png', bytes: png, caption: 'chart' },
      { name: 'b.txt', mimeType: 'text/plain', bytes: new Uint8Array(Buffer.from('bee')) },
    ],
  });
  await s.delivery.putOutbox(entry);
  png.fill(0); // the caller's buffer may change: the copy does not
  await s.delivery.fileReceipt('m1', 0, 'p2');
  await assert.rejects(s.delivery.fileReceipt('m1', 2, 'p3'), (e: unknown) => e instanceof StoreError);
  await s.close();
  s = await openPostgresStore(url);
  const [back] = await s.delivery.pendingOutbox();
  assert.deepEqual(
    back?.files?.map((f) => [f.name, f.mimeType, f.caption, f.bytes]),
    [
      ['a.png', 'image/png', 'chart', undefined],
      ['b.txt', 'text/plain', undefined, undefined],
    ],
  );
  assert.deepEqual(back?.fileReceipts, ['p2', null]);
  assert.deepEqual([...((await s.delivery.outboxFile('m1', 0)) ?? [])], [0x89, 0x50, 0x4e, 0x47, 0, 255, 7]);
  assert.equal(Buffer.from((await s.delivery.outboxFile('m1', 1)) ?? []).toString(), 'bee');
  await s.delivery.finishOutbox('m1');
  assert.equal(await s.delivery.outboxFile('m1', 0), undefined);
  await s.close();
  // outboxFile answers only for a pending entry: the bytes themselves must be gone too.
  const db = createDb(url);
  const [left] = await db.query<{ n: string }>('SELECT count(*) AS n FROM boxbot_outbox_files');
  await db.close();
  assert.equal(Number(left?.n), 0, 'no file bytes left behind');
});

test('postgres: a failed reply is aged by when it was refused, not by when it was made', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  const store = await openPostgresStore(url, { now: () => clock, failedOutbox: { maxCount: 2, maxAgeMs: 3600_000 } });
  const db = createDb(url);
  const failed = async () =>
    (await db.query<{ id: string }>(`SELECT id FROM boxbot_outbox WHERE state = 'failed' ORDER BY id`)).map(
      (r) => r.id,
    );
  await store.delivery.putOutbox(reply('slow', 'web:abc', ['retried for days']));
  clock += 2 * 24 * 3600_000;
  for (const id of ['b', 'c']) {
    clock += 1000;
    await store.delivery.putOutbox(reply(id, 'web:abc', [id]));
    await store.delivery.failOutbox(id, `refusal ${id}`);
  }
  clock += 1000;
  await store.delivery.failOutbox('slow', 'refusal slow');
  assert.deepEqual(await failed(), ['c', 'slow'], 'the reply refused just now is kept, with the one refused last');
  clock += 2 * 3600_000;
  await store.delivery.putOutbox(reply('late', 'web:abc', ['x']));
  await store.delivery.failOutbox('late', 'refusal late');
  assert.deepEqual(await failed(), ['late'], 'an hour after their refusal the others go');
  await db.close();
  await store.close();
});

test('postgres: failed replies are kept within their retention; pending ones stay whatever their age', {
  skip,
}, async () => {
  const url = await (server as PostgresServer).database();
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  const store = await openPostgresStore(url, { now: () => clock, failedOutbox: { maxCount: 3, maxAgeMs: 3600_000 } });
  const db = createDb(url);
  const failed = async () =>
    (await db.query<{ error: string }>(`SELECT error FROM boxbot_outbox WHERE state = 'failed' ORDER BY seq`)).map(
      (r) => r.error,
    );
  await store.delivery.putOutbox(reply('waiting', 'web:abc', ['still to send']));
  for (let i = 0; i < 10; i++) {
    clock += 1000;
    await store.delivery.putOutbox(reply(`r${i}`, 'web:abc', [`text ${i}`]));
    await store.delivery.failOutbox(`r${i}`, `refusal ${i}`);
  }
  assert.deepEqual(await failed(), ['refusal 7', 'refusal 8', 'refusal 9'], 'only the newest three are kept');
  clock += 24 * 3600_000;
  await store.delivery.putOutbox(reply('late', 'web:abc', ['x']));
  await store.delivery.failOutbox('late', 'refusal late');
  assert.deepEqual(await failed(), ['refusal late'], 'those past their age went with the next failure');
  assert.deepEqual(
    (await store.delivery.pendingOutbox()).map((e) => e.id),
    ['waiting'],
  );
  await db.close();
  await store.close();
});

test('postgres: failed replies that expired while boxbot was down are gone when it opens again', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  let clock = Date.parse('2026-11-01T00:00:00.000Z');
  const opts = { now: () => clock, failedOutbox: { maxCount: 10, maxAgeMs: 3600_000 } };
  const first = await openPostgresStore(url, opts);
  await first.delivery.putOutbox(reply('old', 'web:abc', ['refused long ago']));
  await first.delivery.failOutbox('old', 'refusal old');
  await first.delivery.putOutbox(reply('waiting', 'web:abc', ['still to send']));
  await first.close();
  clock += 2 * 3600_000;
  const again = await openPostgresStore(url, opts);
  const db = createDb(url);
  const rows = await db.query<{ id: string }>('SELECT id FROM boxbot_outbox ORDER BY id');
  assert.deepEqual(
    rows.map((r) => r.id),
    ['waiting'],
    'the expired failure left with no further failure; the pending reply stays',
  );
  await db.close();
  await again.close();
});

test('postgres: replies failed before failures had their own column are aged as they were', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const db = createDb(url);
  // The schema as the version before, with failed rows as it wrote them: the time refused in the
  // entry, or (earlier still) none and aged by createdAt.
  await db.query(
    `CREATE TABLE boxbot_migrations (
       version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const before = MIGRATIONS.filter((m) => m.version <= 6);
  for (const m of before) {
    await db.query(m.sql);
    await db.query('INSERT INTO boxbot_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
  const row = (id: string, entry: object) =>
    db.query(`INSERT INTO boxbot_outbox (id, conversation_key, entry, receipts, state) VALUES ($1, $2, $3, '[]', $4)`, [
      id,
      'web:abc',
      JSON.stringify({ id, conversationKey: 'web:abc', chunks: ['x'], ...entry }),
      'failed',
    ]);
  await row('made-long-ago-refused-late', {
    createdAt: '2026-10-01T00:00:00.000Z',
    failedAt: '2026-11-01T00:00:00.000Z',
  });
  await row('made-and-refused-long-ago', { createdAt: '2026-10-01T00:00:00.000Z' });
  await row('refused-late', { createdAt: '2026-11-01T00:00:00.000Z' });
  const store = await openPostgresStore(url, {
    now: () => Date.parse('2026-11-01T00:30:00.000Z'),
    failedOutbox: { maxCount: 10, maxAgeMs: 3600_000 },
  });
  const rows = await db.query<{ id: string }>(`SELECT id FROM boxbot_outbox WHERE state = 'failed' ORDER BY id`);
  assert.deepEqual(
    rows.map((r) => r.id),
    ['made-long-ago-refused-late', 'refused-late'],
  );
  await db.close();
  await store.close();
});

test('postgres: an outbox entry written under a lease fence is written only while that lease is held', {
  skip,
}, async () => {
  const url = await (server as PostgresServer).database();
  const [one, two] = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
  const lease = 'conv:web:a';
  const fenced = (p: Promise<unknown>) =>
    assert.rejects(p, (e: unknown) => e instanceof StoreError && e.code === 'fenced' && e.retryable === false);
  assert.notEqual(await one.leases!.acquire(lease, 'replica-1', 60_000), undefined);
  await one.delivery.putOutbox(reply('m1', 'web:a', ['one']), { lease, holder: 'replica-1' });
  // Another replica's answer to the conversation, written under a lease it does not hold.
  await fenced(two.delivery.putOutbox(reply('m2', 'web:a', ['two']), { lease, holder: 'replica-2' }));
  // The first replica's lease gone (run out, or given up): its late answer is not written either.
  await one.leases!.release(lease, 'replica-1');
  await fenced(one.delivery.putOutbox(reply('m3', 'web:a', ['three']), { lease, holder: 'replica-1' }));
  // Unfenced writes (notices, a single process) are written as before.
  await two.delivery.putOutbox(reply('m4', 'web:a', ['four']));
  assert.deepEqual(
    (await two.delivery.pendingOutbox('web:a')).map((e) => e.id),
    ['m1', 'm4'],
  );
  await Promise.all([one.close(), two.close()]);
});
