// The store contract against the file backend, plus what only real files can show: a process
// killed between the fsynced temp write and the rename leaves the old file whole.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createFileStore, type Store } from '../../src/store/index.ts';
import { compiledChild } from '../compiled-src.ts';
import { adminSessionsContract } from './admin-sessions-contract.ts';
import { type StoreHarness, storeContract } from './contract.ts';
import { inbound, pendingIds } from './delivery-fixtures.ts';
import { hookDeliveriesContract } from './hook-deliveries-contract.ts';
import { memoriesContract } from './memories-contract.ts';
import { webDisplayContract } from './web-display-contract.ts';
import { webSessionsContract } from './web-sessions-contract.ts';

async function walk(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...(await walk(root, p)));
    else out.push(p);
  }
  return out;
}

const harness = async (): Promise<StoreHarness> => {
  // The store lives in data/; a sibling file shows that nothing escapes it.
  const base = await mkdtemp(join(tmpdir(), 'boxbot-store-'));
  const dir = join(base, 'data');
  return {
    open: (opts) => createFileStore(dir, opts),
    listRaw: async () => {
      const outside = (await readdir(base)).filter((n) => n !== 'data');
      assert.deepEqual(outside, [], 'nothing is written outside the data directory');
      return walk(dir).catch(() => []);
    },
    readRaw: (path) => readFile(join(dir, path), 'utf8').catch(() => undefined),
    writeRaw: async (path, text) => {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
};
storeContract('file', harness);
memoriesContract('file', harness);
hookDeliveriesContract('file', harness);
webSessionsContract('file', harness);
adminSessionsContract('file', harness);
webDisplayContract('file', harness);

/**
 * Runs a crash child (compiled with src/ by test/compiled-src.ts: it skips registering tsx) on a new
 * data dir, checks it was killed, and passes the dir to `check`; the dir is removed after.
 */
async function afterCrash(
  childFile: string,
  args: string[],
  when: string,
  check: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-crash-'));
  try {
    const child = compiledChild(fileURLToPath(new URL(childFile, import.meta.url)));
    const r = spawnSync(process.execPath, [child, dir, ...args], { encoding: 'utf8' });
    assert.equal(r.signal, 'SIGKILL', `child should die ${when}: ${r.stderr}`);
    await check(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('file: a process killed between the temp write and the rename leaves the old content readable', () =>
  afterCrash('crash-child.ts', [], 'mid-write', async (dir) => {
    const names = await walk(dir);
    const temps = names.filter((n) => n.endsWith('.tmp'));
    // kv's new version was written but never renamed; the conversation's update (journaled) was
    // stopped before its append, so nothing of it reached the disk.
    assert.equal(temps.length, 1, `kv's new version was written but never renamed: ${names.join(', ')}`);
    const store = createFileStore(dir);
    const c = await store.conversations.get('telegram:1');
    assert.deepEqual(
      c?.messages.map((m) => m.content[0]),
      [{ type: 'text', text: 'old' }],
    );
    assert.equal(await store.kv.get('telegram.offset'), 1);
    assert.deepEqual(await store.conversations.keys(), ['telegram:1'], 'temp files are not conversations');
    await store.close();
  }));

test('file: a history written behind a charge in line (a turn saved) is never durable without it', () =>
  afterCrash('journal-crash-child.ts', ['in-line'], 'once the history resolved', async (dir) => {
    const store = createFileStore(dir);
    assert.equal((await store.conversations.get('telegram:1'))?.messages.length, 1);
    const conv = await store.usage.get({ conversationKey: 'telegram:1' }, '2026-01-02');
    const user = await store.usage.get({ userKey: 'telegram:u1' }, '2026-01-02');
    assert.deepEqual([conv.day.costUsd, user.total.calls], [0.25, 1], 'the charge the saved turn depended on');
    await store.close();
  }));

test('file: a process killed right after a history update and a charge resolved loses neither', () =>
  afterCrash('journal-crash-child.ts', [], 'after its updates', async (dir) => {
    const names = await walk(dir);
    assert.equal(
      names.filter((n) => n.includes('conversations')).length,
      0,
      `killed before the files were written: ${names}`,
    );
    // A crash in the middle of a later append: its half line is dropped at open, the rest kept.
    await appendFile(join(dir, 'documents.journal'), '{"d":{"conversations/');
    const store = createFileStore(dir);
    const c = await store.conversations.get('telegram:1');
    assert.deepEqual(
      c?.messages.map((m) => m.content[0]),
      [{ type: 'text', text: 'kept' }],
    );
    assert.deepEqual(await store.conversations.keys(), ['telegram:1']);
    const conv = await store.usage.get({ conversationKey: 'telegram:1' }, '2026-01-02');
    const user = await store.usage.get({ userKey: 'telegram:u1' }, '2026-01-02');
    assert.deepEqual([conv.day.costUsd, conv.total.calls, user.day.costUsd], [0.25, 1, 0.25]);
    const daily = await store.usage.daily('2026-01-02', '2026-01-02');
    assert.equal(daily.days[0]!.users['telegram:u1']?.outputTokens, 4);
    await store.close(); // it only read: the journal is left as it was, for the process that writes
    const again = createFileStore(dir);
    assert.equal((await again.usage.get({ userKey: 'telegram:u1' }, '2026-01-02')).total.calls, 1);
    assert.equal((await again.conversations.get('telegram:1'))?.messages.length, 1);
    await again.conversations.setModel('telegram:2', 'p/m');
    await again.close();
    // A store that wrote checkpoints at close: every document is in its file.
    const files = await walk(dir);
    for (const d of ['conversations/', 'usage/conversations/', 'usage/users/'])
      assert.equal(files.filter((n) => n.startsWith(d)).length, d === 'conversations/' ? 2 : 1, `${d} in ${files}`);
    const last = createFileStore(dir);
    assert.equal((await last.usage.get({ userKey: 'telegram:u1' }, '2026-01-02')).total.calls, 1);
    assert.deepEqual(await last.conversations.keys(), ['telegram:1', 'telegram:2']);
    await last.close();
  }));

test('file: a store that only read the journaled documents (the CLI) leaves the gateway’s journal alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-'));
  const m = (text: string) => [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }];
  try {
    const gateway = createFileStore(dir);
    await gateway.conversations.setMessages('web:a', m('one'));
    const cli = createFileStore(dir);
    assert.equal((await cli.conversations.get('web:a'))?.messages.length, 1, 'the CLI reads through the journal');
    await gateway.conversations.setMessages('web:a', m('two'));
    await cli.close();
    // The gateway has not written its files yet (its checkpoint waits); a store opened now, as after
    // a crash of the gateway, must find its last update in the journal.
    const after = createFileStore(dir);
    assert.deepEqual((await after.conversations.get('web:a'))?.messages, m('two'));
    await after.close();
    await gateway.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('file: two stores on one data directory (the CLI beside the gateway) lose no job update', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-shared-'));
  try {
    const gateway = createFileStore(dir);
    const cli = createFileStore(dir);
    const job = (id: string) => ({
      id,
      name: id,
      cron: '0 9 * * *',
      prompt: 'p',
      target: 'web:a',
      access: 'read-only' as const,
      timeoutMs: 1000,
      enabled: true,
      overlap: 'skip' as const,
    });
    await gateway.jobs.put(job('digest'));
    // The gateway stamps runs while the CLI adds jobs, all at once.
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => cli.jobs.put(job(`cli-${i}`))),
      ...Array.from({ length: 30 }, (_, i) =>
        gateway.jobs.update('digest', { lastRunAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }),
      ),
    ]);
    const ids = (await gateway.jobs.list()).map((j) => j.id);
    assert.equal(ids.length, 31, `every job kept: ${ids.join(', ')}`);
    assert.ok((await cli.jobs.get('digest'))?.lastRunAt);
    await Promise.all([gateway.close(), cli.close()]);
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.endsWith('.lock')),
      [],
      'no lock left behind',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('file: two stores on one data directory lose no web sign-in (CLI invites while browsers sign in)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-shared-web-'));
  try {
    const gateway = createFileStore(dir);
    const cli = createFileStore(dir);
    const far = Date.now() + 3600_000;
    const hash = (s: string) => createHash('sha256').update(s).digest('hex');
    const login = (i: number) => ({
      tokenHash: hash(`t${i}`),
      identity: `web:u${i}`,
      createdAt: Date.now(),
      expiresAt: far,
    });
    const session = (i: number) => ({
      id: `session-${i}`,
      secretHash: hash(`h${i}`),
      identity: `telegram:${i}`,
      createdAt: Date.now(),
      expiresAt: far,
    });
    // `boxbot web invite` adds links and `web revoke` ends sessions while the gateway signs browsers in.
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => cli.webSessions.addLogin(login(i))),
      ...Array.from({ length: 20 }, (_, i) => gateway.webSessions.addLogin(login(100 + i))),
      ...Array.from({ length: 20 }, (_, i) => gateway.webSessions.createSession(session(i))),
      ...Array.from({ length: 10 }, (_, i) => cli.webSessions.revokeIdentity(`web:nobody${i}`)),
    ]);
    assert.equal((await cli.webSessions.listSessions()).length, 20, 'every signed-in browser kept');
    for (const i of [0, 19, 100, 119])
      assert.ok(await gateway.webSessions.redeemLogin(hash(`t${i}`)), `invite t${i} kept`);
    await Promise.all([gateway.close(), cli.close()]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A job put through `store` is listed back: the jobs file's lock did not stop the write. */
async function assertJobsWritable(store: Store): Promise<void> {
  await store.jobs.put({
    id: 'a',
    name: 'a',
    cron: '0 9 * * *',
    prompt: 'p',
    target: 'web:a',
    access: 'read-only',
    timeoutMs: 1000,
    enabled: true,
    overlap: 'skip',
  });
  assert.deepEqual(
    (await store.jobs.list()).map((j) => j.id),
    ['a'],
  );
}

test('file: a lock left by a process that died is broken', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-lock-'));
  try {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    await writeFile(join(dir, 'jobs.json.lock'), JSON.stringify({ pid: Number(dead.stdout), at: Date.now() }));
    const store = createFileStore(dir);
    await assertJobsWritable(store);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('file: a process killed while appending to the delivery log loses no message it had accepted', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-kill-'));
  // Compiled with src/ (test/compiled-src.ts): each round's child skips registering tsx.
  const crashChild = compiledChild(fileURLToPath(new URL('delivery-crash-child.ts', import.meta.url)));
  try {
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, [crashChild, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      // Killed once it has accepted a few hundred messages: somewhere inside a write or a sync.
      await new Promise<void>((resolve) => {
        const check = () => (out.split('\n').length > 300 + 200 * round ? resolve() : setTimeout(check, 5));
        check();
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const acknowledged = out.split('\n').filter((l) => /^m\d+$/.test(l));
      const store = createFileStore(dir);
      const pending = new Set(await pendingIds(store));
      // Every acknowledged id is either still pending or was marked done (done ids stay duplicates).
      for (const id of acknowledged) {
        if (pending.has(id)) continue;
        assert.equal(
          await store.delivery.accept(inbound(id)),
          false,
          `round ${round}: ${id} was acknowledged but is unknown after the crash`,
        );
      }
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('file: an empty lock file left by a process killed while creating it is broken once it is stale', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-lock-'));
  try {
    const lock = join(dir, 'jobs.json.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const store = createFileStore(dir);
    await assertJobsWritable(store);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("file: the data directory and its folders are 0700, its files 0600 (only boxbot's user reads them)", async () => {
  const base = await mkdtemp(join(tmpdir(), 'boxbot-store-modes-'));
  try {
    const dir = join(base, 'data');
    const store = createFileStore(dir);
    const job = {
      id: 'j',
      name: 'j',
      cron: '0 9 * * *',
      prompt: 'p',
      target: 'web:a',
      access: 'read-only' as const,
      timeoutMs: 1000,
      enabled: true,
      overlap: 'skip' as const,
    };
    await store.jobs.put(job);
    await store.kv.set('telegram.offset', 1);
    await store.close();
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    const files = await walk(dir);
    assert.ok(files.length >= 2, files.join(', '));
    for (const f of files) assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600, f);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('file: a per-conversation kv value is a small document of its own; one written before is still read', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-kv-'));
  try {
    // Written by an earlier version: every value in kv.json.
    await writeFile(
      join(dir, 'kv.json'),
      JSON.stringify({ values: { 'telegram.offset': 7, 'workspace-record:telegram:1': { old: true } } }),
    );
    const store = createFileStore(dir);
    assert.deepEqual(await store.kv.get('workspace-record:telegram:1'), { old: true }, 'the earlier value is read');
    for (let i = 0; i < 300; i++) await store.kv.set(`workspace-record:telegram:${i}`, { users: [`u${i}`] });
    await store.close();
    // A write costs the same with 300 conversations as with one: no file holds more than one of them.
    const sizes = await Promise.all((await walk(dir)).map(async (f) => ({ f, size: (await stat(join(dir, f))).size })));
    for (const { f, size } of sizes) assert.ok(size < 200, `${f} holds ${size} bytes`);
    const again = createFileStore(dir);
    assert.deepEqual(await again.kv.get('workspace-record:telegram:1'), { users: ['u1'] }, 'the new value wins');
    assert.deepEqual(await again.kv.get('workspace-record:telegram:299'), { users: ['u299'] });
    assert.equal(await again.kv.get('telegram.offset'), 7);
    await again.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
