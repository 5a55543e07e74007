// The daily spending ledger over the memory store and an injected clock: a process running for
// months keeps only today's figures (and a past day's only while its writes finish), and today's
// spending stays exact across those day changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { createBudgetRule } from '../../src/runner/budget-rule.ts';
import { createDailySpend } from '../../src/runner/daily-spend.ts';
import type { Persist } from '../../src/runner/persist.ts';
import { createMemoryStore, type UsageCharge, type UsageStore } from '../../src/store/index.ts';

const DAY = 86_400_000;
const write: Persist = (_what, w) => w();
const usage = { inputTokens: 1, outputTokens: 1 };

test('past days are let go: after 100 days only today is held, and its spending is exact', async () => {
  let clock = Date.parse('2026-01-01T12:00:00Z');
  const now = () => clock;
  const store = createMemoryStore();
  const spend = createDailySpend(store.usage, { now, log: silentLogger });
  const charge = (conversationKey: string, userKey: string, costUsd: number): UsageCharge => ({
    conversationKey,
    userKey,
    model: 'test/m',
    usage,
    costUsd,
    at: new Date(clock).toISOString(),
  });
  for (let d = 0; d < 100; d++) {
    clock += DAY;
    // Two budgeted subjects read before the run, a third charged without a budget (only for /usage).
    await spend.prepare([{ conversationKey: 'web:a' }, { userKey: 'web:u1' }]);
    spend.charge(charge('web:a', 'web:u1', 0.25), write);
    spend.charge(charge('web:b', 'web:u2', 0.5), write);
    await spend.flush();
    await spend.prepare([{ conversationKey: 'web:a' }, { userKey: 'web:u1' }]);
  }
  // Today's two budgeted subjects; nothing of the 99 days before, nor of the unbudgeted ones.
  assert.equal(spend.held(), 2);
  assert.equal(spend.today({ conversationKey: 'web:a' }), 0.25);
  assert.equal(spend.today({ userKey: 'web:u1' }), 0.25);
  // Another process charged the same conversation today: read again, counted once.
  await store.usage.add(charge('web:a', 'web:u3', 1));
  await spend.prepare([{ conversationKey: 'web:a' }]);
  spend.charge(charge('web:a', 'web:u1', 0.25), write);
  assert.equal(spend.today({ conversationKey: 'web:a' }), 1.5);
  await spend.flush();
  assert.equal(spend.today({ conversationKey: 'web:a' }), 1.5);
});

test('a charge still being written at midnight is counted on its own day, then let go', async () => {
  let clock = Date.parse('2026-03-01T23:59:00Z');
  const now = () => clock;
  const store = createMemoryStore();
  const spend = createDailySpend(store.usage, { now, log: silentLogger });
  await spend.prepare([{ conversationKey: 'web:a' }]);
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slow: Persist = async (_what, w) => {
    await gate;
    return w();
  };
  spend.charge(
    { conversationKey: 'web:a', model: 'test/m', usage, costUsd: 2, at: new Date(clock).toISOString() },
    slow,
  );
  assert.equal(spend.today({ conversationKey: 'web:a' }), 2);
  clock += 2 * 60_000; // past midnight, the write still pending
  await spend.prepare([{ conversationKey: 'web:a' }]);
  assert.equal(spend.today({ conversationKey: 'web:a' }), 0);
  assert.equal(spend.held(), 2); // today's figure, and yesterday's until its write finishes
  release();
  await spend.flush();
  assert.equal(spend.today({ conversationKey: 'web:a' }), 0);
  assert.equal(spend.held(), 1);
  assert.equal((await store.usage.get({ conversationKey: 'web:a' }, '2026-03-01')).day.costUsd, 2);
});

test('a read of the store while a charge of ours is being written counts that charge once', async () => {
  const memory = createMemoryStore();
  let open = () => {};
  const gate = new Promise<void>((r) => {
    open = r;
  });
  let begun = () => {};
  const writing = new Promise<void>((r) => {
    begun = r;
  });
  let landed = () => {};
  const written = new Promise<void>((r) => {
    landed = r;
  });
  // The write, once begun, waits for the gate; a read answers only after the write has landed (as a
  // database that commits the write while the read's query waits its turn).
  const slow: UsageStore = {
    async add(c) {
      begun();
      await gate;
      await memory.usage.add(c);
      landed();
    },
    async get(s, day) {
      await written;
      return memory.usage.get(s, day);
    },
    daily: (from, to) => memory.usage.daily(from, to),
  };
  const spend = createDailySpend(slow, { log: silentLogger });
  const user = { userKey: 'web:u1' };
  const at = new Date().toISOString();
  spend.charge({ conversationKey: 'web:a', userKey: 'web:u1', model: 'test/m', usage, costUsd: 0.25, at }, write);
  await writing;
  const read = spend.prepare([user]);
  open();
  await read;
  await spend.flush();
  assert.equal((await memory.usage.get(user, at.slice(0, 10))).day.costUsd, 0.25);
  assert.equal(spend.today(user), 0.25, 'the figure the store holds');
});

const sideBySideTitle =
  'charges of other subjects are written side by side: a run waits for its own, not a stalled one of another';
test(sideBySideTitle, async () => {
  const memory = createMemoryStore();
  let open = () => {};
  const gate = new Promise<void>((r) => {
    open = r;
  });
  // Another conversation's charge hangs in the store (a slow disk under that document).
  const usageStore: UsageStore = {
    async add(c) {
      if (c.conversationKey === 'web:slow') await gate;
      await memory.usage.add(c);
    },
    get: (s, day) => memory.usage.get(s, day),
    daily: (from, to) => memory.usage.daily(from, to),
  };
  const spend = createDailySpend(usageStore, { log: silentLogger });
  const at = new Date().toISOString();
  const day = at.slice(0, 10);
  spend.charge({ conversationKey: 'web:slow', userKey: 'web:u1', model: 'test/m', usage, costUsd: 1, at }, write);
  spend.charge({ conversationKey: 'web:fast', userKey: 'web:u2', model: 'test/m', usage, costUsd: 2, at }, write);
  const mine = spend.flush([{ conversationKey: 'web:fast' }, { userKey: 'web:u2' }]);
  const late = new Promise<string>((r) => setTimeout(() => r('late'), 5000).unref());
  assert.equal(await Promise.race([mine.then(() => 'written'), late]), 'written', 'not queued behind the stalled one');
  assert.equal((await memory.usage.get({ conversationKey: 'web:fast' }, day)).day.costUsd, 2);
  let all = false;
  const everything = spend.flush().then(() => {
    all = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(all, false, 'a flush of everything still waits for every write');
  open();
  await everything;
  assert.equal((await memory.usage.get({ userKey: 'web:u1' }, day)).day.costUsd, 1);
});

test('inLine: each charge in the store’s line, not durable; a store that never says so: once written', async () => {
  const held: { c: UsageCharge; tell?: () => void; done: () => void }[] = [];
  const hold = (c: UsageCharge, o?: { queued?: () => void }) =>
    new Promise<void>((done) => held.push({ c, ...(o?.queued ? { tell: o.queued } : {}), done }));
  const store: UsageStore = { ...createMemoryStore().usage, add: hold };
  const spend = createDailySpend(store, { log: silentLogger });
  const at = new Date().toISOString();
  spend.charge({ conversationKey: 'web:a', model: 'test/m', usage, costUsd: 0.1, at }, write);
  spend.charge({ conversationKey: 'web:b', model: 'test/m', usage, costUsd: 0.1, at }, write);
  let lined = false;
  void spend.inLine().then(() => {
    lined = true;
  });
  while (held.length < 2) await new Promise((r) => setImmediate(r));
  held[0]!.tell!();
  await new Promise((r) => setImmediate(r));
  assert.equal(lined, false, 'one charge is not in line yet');
  held[1]!.tell!();
  await spend.inLine();
  let flushed = false;
  void spend.flush().then(() => {
    flushed = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(flushed, false, 'in line, not yet written');
  // A store that never tells (PostgreSQL): in line once written.
  const quiet: UsageStore = { ...store, add: (c) => hold(c) };
  const other = createDailySpend(quiet, { log: silentLogger });
  other.charge({ conversationKey: 'web:c', model: 'test/m', usage, costUsd: 0.1, at }, write);
  let otherLined = false;
  void other.inLine().then(() => {
    otherLined = true;
  });
  while (held.length < 3) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(otherLined, false);
  for (const h of held) h.done();
  await Promise.all([spend.flush(), other.inLine()]);
  assert.equal(otherLined, true);
});

test('a run’s rule waits for its own charges (in line, written), not for another conversation’s', async () => {
  const held = new Map<string, { tell?: () => void; done: () => void }>();
  const store: UsageStore = {
    ...createMemoryStore().usage,
    add: (c, o) =>
      new Promise<void>((done) => held.set(c.conversationKey, { ...(o?.queued ? { tell: o.queued } : {}), done })),
  };
  const spend = createDailySpend(store, { log: silentLogger });
  const rule = (conversationKey: string) => createBudgetRule(spend, { conversationKey }, undefined, Date.now);
  const slow = rule('web:slow');
  const mine = rule('web:mine');
  slow.charge('test/m', usage, 0.1, write);
  mine.charge('test/m', usage, 0.1, write);
  while (held.size < 2) await new Promise((r) => setImmediate(r));
  // web:slow's charge is neither in line nor written; web:mine's is both.
  held.get('web:mine')!.tell!();
  held.get('web:mine')!.done();
  await mine.inLine();
  await mine.flush();
  let all = false;
  void Promise.all([spend.inLine(), slow.inLine()]).then(() => {
    all = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(all, false, 'the ledger as a whole, and the other run, still wait');
  held.get('web:slow')!.done();
  await Promise.all([spend.inLine(), spend.flush(), slow.flush()]);
  assert.equal(all, true);
});
