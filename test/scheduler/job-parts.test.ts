// The scheduler's parts on their own, without worker threads: the store-to-Bree sync (new jobs
// scheduled and caught up once, a busy job rescheduled after its run, removed ones dropped) and a
// job's daily budget rule (the target's budget and its creator's, as for their own messages there).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { createDailySpend } from '../../src/runner/daily-spend.ts';
import { creatorBudget, jobBudgetRule } from '../../src/scheduler/job-budget.ts';
import { createJobSync } from '../../src/scheduler/job-sync.ts';
import type { SchedulerEvent } from '../../src/scheduler/types.ts';
import { createMemoryStore, type JobRecord } from '../../src/store/index.ts';
import { loadedConfig } from './helpers.ts';

const TARGET = 'telegram:-100123';
const job = (over: Partial<JobRecord> = {}): JobRecord => ({
  id: 'nightly',
  name: 'nightly',
  cron: '0 3 * * *',
  prompt: 'p',
  target: TARGET,
  access: 'read-only',
  timeoutMs: 1000,
  enabled: true,
  overlap: 'skip',
  ...over,
});

/** A sync over a memory store and a Bree that records what it is asked. */
function sync(now: Date) {
  const store = createMemoryStore();
  const calls: string[] = [];
  const added = new Set<string>();
  const busy = new Set<string>();
  const caughtUp: string[] = [];
  const events: SchedulerEvent[] = [];
  const s = createJobSync({
    store,
    bree: {
      has: (id) => added.has(id),
      addJob: async (j) => {
        calls.push(`add:${j.id}:${j.cron}`);
        added.add(j.id);
      },
      remove: async (id?: string) => {
        calls.push(`remove:${id}`);
        if (id) added.delete(id);
      },
      start: async (id) => {
        calls.push(`start:${id}`);
      },
    },
    clock: { now: () => now },
    log: silentLogger,
    emit: (e) => events.push(e),
    known: new Map(),
    busy: (id) => busy.has(id),
    catchUp: (id) => caughtUp.push(id),
    stopping: () => false,
  });
  return { store, s, calls, busy, caughtUp, events };
}

test('a new job is scheduled and started; one that missed a run while boxbot was down is caught up once', async () => {
  const t = sync(new Date('2026-11-27T12:00:00Z'));
  await t.store.jobs.put(job({ createdAt: '2026-11-25T12:00:00Z' }));
  await t.store.jobs.put(job({ id: 'fresh', createdAt: '2026-11-27T11:00:00Z' }));
  await t.store.jobs.put(job({ id: 'off', enabled: false, createdAt: '2026-11-20T00:00:00Z' }));
  await t.s.sync();
  assert.deepEqual(t.calls, [
    'add:fresh:0 3 * * *',
    'start:fresh',
    'add:nightly:0 3 * * *',
    'start:nightly',
    'add:off:0 3 * * *',
  ]);
  assert.deepEqual(t.caughtUp, ['nightly'], 'a 03:00 run was missed since its creation; a disabled job is not run');
  await t.s.sync();
  assert.deepEqual(t.caughtUp, ['nightly'], 'caught up once, not at every read');
  assert.deepEqual(t.events.at(-1), { type: 'synced', jobIds: ['fresh', 'nightly', 'off'], caughtUp: [] });
});

test('a job changed during its run is rescheduled after it; a removed job is dropped', async () => {
  const t = sync(new Date('2026-11-27T12:00:00Z'));
  await t.store.jobs.put(job({ createdAt: '2026-11-27T11:00:00Z' }));
  await t.s.sync();
  t.calls.length = 0;
  t.busy.add('nightly');
  await t.store.jobs.update('nightly', { cron: '0 4 * * *' });
  await t.s.sync();
  assert.deepEqual(t.calls, [], 'not while it runs');
  assert.equal(t.s.dirty(), true, 'a sync is due once the run is over');
  t.busy.delete('nightly');
  await t.s.sync();
  assert.deepEqual(t.calls, ['remove:nightly', 'add:nightly:0 4 * * *', 'start:nightly']);
  assert.equal(t.s.dirty(), false);
  await t.store.jobs.remove('nightly');
  await t.s.sync();
  assert.deepEqual(t.calls.slice(3), ['remove:nightly']);
});

test('a job’s budget rule: the target’s daily budget and its creator’s, as for their own messages there', async () => {
  const loaded = loadedConfig('/nonexistent', {
    channels: {
      telegram: {
        budget: { userUsdPerDay: 1 },
        users: { '42': { budget: { userUsdPerDay: 0.25 } } },
        chats: { '-100123': { budget: { conversationUsdPerDay: 2 } } },
      },
      discord: { budget: { userUsdPerDay: 5 } },
    },
  });
  assert.equal(creatorBudget(loaded.config, { target: TARGET, createdBy: 'telegram:42' }), 0.25);
  assert.equal(creatorBudget(loaded.config, { target: TARGET, createdBy: 'telegram:7' }), 1);
  // Made on Discord for a Telegram chat: the creator's Discord defaults.
  assert.equal(creatorBudget(loaded.config, { target: TARGET, createdBy: 'discord:9' }), 5);
  assert.equal(creatorBudget(loaded.config, { target: TARGET }), undefined, 'a CLI job has no creator');
  const store = createMemoryStore();
  const spend = createDailySpend(store.usage, { log: silentLogger });
  const rule = jobBudgetRule(spend, loaded.config, { target: TARGET, createdBy: 'telegram:42' }, Date.now);
  assert.deepEqual(
    rule.limits.map((l) => [l.kind, l.usd]),
    [
      ['conversation', 2],
      ['user', 0.25],
    ],
  );
  await rule.prepare();
  rule.charge('openai/gpt-4o', { inputTokens: 1, outputTokens: 1 }, 0.1, (_what, write) => write());
  assert.equal(rule.left('user'), 0.15);
  assert.equal(rule.left('conversation'), 1.9);
  await spend.flush();
});
