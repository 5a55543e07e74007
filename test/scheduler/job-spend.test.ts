// How a job run's spending is recorded: under the model that answered each call, and never lost
// to a failing store write (retried, and counted toward the budget meanwhile).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../src/core/log.ts';
import { createDailySpend } from '../../src/runner/daily-spend.ts';
import { createScheduleTool } from '../../src/scheduler/index.ts';
import { createFileStore, type Store, type UsageCharge } from '../../src/store/index.ts';
import { compiledTestWorker } from '../compiled-src.ts';
import { type LlmEmulator, llm } from '../emulators/llm/index.ts';
import { dataDir, llmEmulatorForFile, loadedConfig, setup, until } from './helpers.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

const TARGET = 'telegram:-100123';
const CHAT = '-100123';
const today = () => new Date().toISOString().slice(0, 10);
const workerFile = (name: string) =>
  compiledTestWorker(fileURLToPath(new URL(`./workers/${name}.ts`, import.meta.url)));

/** A file store whose usage writes are seen (and fail `failures` times first, as a full disk would). */
function watchedStore(dir: string, failures = 0): { store: Store; added: UsageCharge[]; attempts: () => number } {
  const inner = createFileStore(dir);
  const added: UsageCharge[] = [];
  let tries = 0;
  const store: Store = {
    ...inner,
    usage: {
      get: (s, day) => inner.usage.get(s, day),
      daily: (from, to) => inner.usage.daily(from, to),
      async add(c) {
        if (++tries <= failures) throw new Error('ENOSPC: no space left on device');
        await inner.usage.add(c);
        added.push(c);
      },
    },
  };
  return { store, added, attempts: () => tries };
}

test('a job’s spending is recorded under the model that answered, not the job’s model field', async () => {
  emu.script([llm.say('the news in brief', { usage: { input: 1000, output: 10 } })]);
  const asked = emu.requests.length;
  const dir = dataDir();
  // The job names no model; the target channel's policy picks one other than the configured default.
  const loaded = loadedConfig(dir, {
    channels: { telegram: { enabled: true, chats: { [CHAT]: { model: 'openai/gpt-4o' } } } },
  });
  const { store, added } = watchedStore(dir);
  const ctx = setup(emu, { dir, loaded, store });
  try {
    const job = await ctx.scheduler.add({ name: 'news', cron: '0 3 * * *', target: TARGET, prompt: 'the news' });
    const report = await (await ctx.scheduler.runNow(job.id)).done;
    assert.equal(report.failed, false, report.text);
    await until(() => added.length === 1, 'the spending recorded');
    assert.equal(emu.requests[asked]!.body?.model, 'gpt-4o', 'the channel’s model answered');
    assert.equal(added[0]!.model, 'openai/gpt-4o');
    assert.equal(added[0]!.conversationKey, TARGET);
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
  emu.assertDone();
});

test('a failed write of a job’s spending is retried until the store takes it', async () => {
  const dir = dataDir();
  const { store, added, attempts } = watchedStore(dir, 2);
  const ctx = setup(emu, { dir, store, workerFile: workerFile('charges'), storeRetry: { backoffMs: 5 } });
  try {
    const job = await ctx.scheduler.add({ name: 'news', cron: '0 3 * * *', target: TARGET, prompt: 'the news' });
    const report = await (await ctx.scheduler.runNow(job.id)).done;
    assert.equal(report.entry.costUsd, 0.03);
    await until(() => added.length === 2, 'both calls recorded after the store recovered', 10_000);
    assert.ok(attempts() >= 4, 'the failed writes were tried again');
    assert.deepEqual(
      added.map((c) => [c.model, c.costUsd]),
      [
        ['openai/gpt-4o', 0.02],
        ['openai/gpt-4o-mini', 0.01],
      ],
    );
    const spent = (await store.usage.get({ conversationKey: TARGET }, today())).day.costUsd;
    assert.equal(Math.round(spent * 100) / 100, 0.03);
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});

test('while a job’s spending cannot be written, its budget and the chat runs of the process count it', async () => {
  const dir = dataDir();
  // The store refuses every usage write for the whole test.
  const { store, added } = watchedStore(dir, Number.POSITIVE_INFINITY);
  const loaded = loadedConfig(dir, {
    channels: { telegram: { enabled: true, budget: { conversationUsdPerDay: 0.03 } } },
  });
  // The ledger main shares between the gateway's runs and the scheduler.
  const spend = createDailySpend(store.usage, { log: silentLogger });
  const ctx = setup(emu, {
    dir,
    store,
    loaded,
    spend,
    workerFile: workerFile('charges'),
    storeRetry: { backoffMs: 60_000 },
  });
  try {
    const job = await ctx.scheduler.add({ name: 'news', cron: '0 3 * * *', target: TARGET, prompt: 'the news' });
    assert.equal((await (await ctx.scheduler.runNow(job.id)).done).entry.costUsd, 0.03);
    // What a chat message in the target checks before its model call: the job's $0.03 is there.
    assert.equal(Math.round(spend.today({ conversationKey: TARGET }) * 100), 3);
    // And the job's next run finds the budget spent, though nothing reached the store.
    assert.equal((await (await ctx.scheduler.runNow(job.id)).done).entry.outcome, 'budget-exceeded');
    assert.equal(added.length, 0);
  } finally {
    await ctx.scheduler.stop();
    await spend.flush();
    await store.close();
  }
});

/** Config whose telegram users may each spend $0.05 a day. */
const userBudget = (dir: string) =>
  loadedConfig(dir, { channels: { telegram: { enabled: true, budget: { userUsdPerDay: 0.05 } } } });

test('a job made in chat is charged to its creator’s daily budget as well as the chat’s', async () => {
  const dir = dataDir();
  const { store, added } = watchedStore(dir);
  const ctx = setup(emu, { dir, store, loaded: userBudget(dir), workerFile: workerFile('charges') });
  try {
    const tool = createScheduleTool(ctx.scheduler, { conversationKey: TARGET, userId: '42' });
    const made = await tool.run({ action: 'create', name: 'news', cron: '0 3 * * *', prompt: 'the news' }, {});
    assert.equal(made.isError, false, made.content);
    const [job] = await ctx.scheduler.list();
    assert.equal(job!.createdBy, 'telegram:42');
    await (await ctx.scheduler.runNow(job!.id)).done;
    await until(() => added.length === 2, 'the spending recorded', 10_000);
    const user = (await store.usage.get({ userKey: 'telegram:42' }, today())).day.costUsd;
    const chat = (await store.usage.get({ conversationKey: TARGET }, today())).day.costUsd;
    assert.deepEqual([Math.round(user * 100), Math.round(chat * 100)], [3, 3]);
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});

test('a job whose creator’s daily budget is spent is skipped, saying so in its target conversation', async () => {
  const dir = dataDir();
  const seed = createFileStore(dir);
  // The creator spent their day's budget chatting.
  await seed.usage.add({
    conversationKey: 'telegram:7',
    userKey: 'telegram:42',
    model: 'openai/gpt-4o-mini',
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0.05,
    at: new Date().toISOString(),
  });
  await seed.close();
  const { store, added } = watchedStore(dir);
  const ctx = setup(emu, { dir, store, loaded: userBudget(dir), workerFile: workerFile('charges') });
  try {
    const job = await ctx.scheduler.add({
      name: 'news',
      cron: '0 3 * * *',
      target: TARGET,
      prompt: 'the news',
      createdBy: 'telegram:42',
    });
    const report = await (await ctx.scheduler.runNow(job.id)).done;
    assert.equal(report.entry.outcome, 'budget-exceeded');
    assert.deepEqual(
      ctx.posted.map((p) => [p.key, p.text]),
      [[TARGET, 'Scheduled job "news" skipped: the daily budget of telegram:42, who set it up, is spent.']],
    );
    assert.equal(added.length, 0, 'nothing ran, nothing charged');
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});

test('a job in a forum topic spends from its chat’s daily budget, which the chat’s other topics spent', async () => {
  const dir = dataDir();
  const topic = (n: number) => `${TARGET}:${n}`;
  const seed = createFileStore(dir);
  // Another topic of the chat spent $0.05 of the chat's $0.06.
  await seed.usage.add({
    conversationKey: topic(5),
    spaceKey: TARGET,
    model: 'openai/gpt-4o-mini',
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0.05,
    at: new Date().toISOString(),
  });
  await seed.close();
  const loaded = loadedConfig(dir, {
    channels: { telegram: { enabled: true, chats: { [CHAT]: { budget: { conversationUsdPerDay: 0.06 } } } } },
  });
  const { store, added } = watchedStore(dir);
  const ctx = setup(emu, { dir, store, loaded, workerFile: workerFile('charges') });
  try {
    const job = await ctx.scheduler.add({ name: 'news', cron: '0 3 * * *', target: topic(7), prompt: 'the news' });
    const first = await (await ctx.scheduler.runNow(job.id)).done;
    assert.equal(first.entry.outcome, 'final', 'under the budget, the run starts');
    await until(() => added.length === 2, 'the spending recorded', 10_000);
    assert.deepEqual(
      added.map((c) => [c.conversationKey, c.spaceKey]),
      [
        [topic(7), TARGET],
        [topic(7), TARGET],
      ],
    );
    // $0.08 of $0.06 spent across the chat's topics: the next run is not started.
    const second = await (await ctx.scheduler.runNow(job.id)).done;
    assert.equal(second.entry.outcome, 'budget-exceeded');
    assert.equal(added.length, 2, 'nothing more ran');
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});

test('a job stored before creators were kept still loads and runs, charged to its chat only', async () => {
  const dir = dataDir();
  const old = {
    id: 'news-abc123',
    name: 'news',
    cron: '0 3 * * *',
    prompt: 'the news',
    target: TARGET,
    access: 'read-only',
    timeoutMs: 300000,
    enabled: true,
    overlap: 'skip',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  writeFileSync(join(dir, 'jobs.json'), JSON.stringify({ jobs: { [old.id]: old } }));
  const { store, added } = watchedStore(dir);
  const ctx = setup(emu, { dir, store, loaded: userBudget(dir), workerFile: workerFile('charges') });
  try {
    const report = await (await ctx.scheduler.runNow(old.id)).done;
    assert.equal(report.failed, false, report.text);
    assert.deepEqual(
      ctx.posted.map((p) => p.text),
      ['done'],
    );
    await until(() => added.length === 2, 'the spending recorded', 10_000);
    assert.ok(added.every((c) => c.conversationKey === TARGET && c.userKey === undefined));
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});

test('what a run spent before its worker was terminated is charged and counts toward the budget', async () => {
  const dir = dataDir();
  const { store, added } = watchedStore(dir);
  const loaded = loadedConfig(dir, {
    channels: { telegram: { enabled: true, budget: { conversationUsdPerDay: 0.02 } } },
  });
  // The worker makes one $0.02 call, then hangs past the job's timeout and the grace period.
  const ctx = setup(emu, { dir, store, loaded, workerFile: workerFile('charge-then-hang'), graceMs: 300 });
  try {
    const job = await ctx.scheduler.add({
      name: 'news',
      cron: '0 3 * * *',
      target: TARGET,
      prompt: 'the news',
      timeoutMs: 300,
    });
    assert.equal((await (await ctx.scheduler.runNow(job.id)).done).entry.outcome, 'timeout');
    // The $0.02 spent the conversation's day: the next run does not start.
    assert.equal((await (await ctx.scheduler.runNow(job.id)).done).entry.outcome, 'budget-exceeded');
    await until(() => added.length === 1, 'the killed run’s call recorded', 10_000);
    assert.deepEqual(
      added.map((c) => [c.conversationKey, c.model, c.costUsd]),
      [[TARGET, 'openai/gpt-4o', 0.02]],
    );
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});

test('the notice of a run stopped or skipped by a budget names the budget that was the limit', async () => {
  /** The text posted for one run of a job made by telegram:42, under the given budgets. */
  async function notice(o: { jobUsd?: number; chatUsd: number; userUsd: number; chatSpent?: number }) {
    const dir = dataDir();
    if (o.chatSpent) {
      const seed = createFileStore(dir);
      await seed.usage.add({
        conversationKey: TARGET,
        model: 'openai/gpt-4o-mini',
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: o.chatSpent,
        at: new Date().toISOString(),
      });
      await seed.close();
    }
    const loaded = loadedConfig(dir, {
      channels: {
        telegram: { enabled: true, budget: { conversationUsdPerDay: o.chatUsd, userUsdPerDay: o.userUsd } },
      },
    });
    const ctx = setup(emu, { dir, loaded, workerFile: workerFile('budget-stop') });
    try {
      const job = await ctx.scheduler.add({
        name: 'news',
        cron: '0 3 * * *',
        target: TARGET,
        prompt: 'the news',
        createdBy: 'telegram:42',
        ...(o.jobUsd !== undefined ? { budgetUsd: o.jobUsd } : {}),
      });
      const report = await (await ctx.scheduler.runNow(job.id)).done;
      assert.equal(report.entry.outcome, 'budget-exceeded');
      return ctx.posted.map((p) => p.text);
    } finally {
      await ctx.scheduler.stop();
      await ctx.store.close();
    }
  }
  const label = 'Scheduled job "news"';
  assert.deepEqual(await notice({ jobUsd: 0.01, chatUsd: 1, userUsd: 1 }), [
    `${label} stopped: its budget of $0.01 is spent.`,
  ]);
  assert.deepEqual(await notice({ jobUsd: 1, chatUsd: 0.02, userUsd: 0.05 }), [
    `${label} stopped: this conversation’s daily budget is spent.`,
  ]);
  assert.deepEqual(await notice({ jobUsd: 1, chatUsd: 1, userUsd: 0.05 }), [
    `${label} stopped: the daily budget of telegram:42, who set it up, is spent.`,
  ]);
  // Spent before the run: it never starts, and says it was skipped (as for a creator's spent budget).
  assert.deepEqual(await notice({ chatUsd: 0.02, userUsd: 1, chatSpent: 0.02 }), [
    `${label} skipped: this conversation’s daily budget is spent.`,
  ]);
});
