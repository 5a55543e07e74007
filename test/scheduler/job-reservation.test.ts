// A job's model calls hold their estimated cost in the ledger the chat runs share, as a chat run's
// do: a chat call in flight and a job's call cannot together pass the creator's daily budget (a
// run whose first call is refused made none: its notice says skipped, naming the budget).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../src/core/log.ts';
import { createDailySpend } from '../../src/runner/daily-spend.ts';
import { createFileStore } from '../../src/store/index.ts';
import { compiledTestWorker } from '../compiled-src.ts';
import type { LlmEmulator } from '../emulators/llm/index.ts';
import { dataDir, llmEmulatorForFile, loadedConfig, setup } from './helpers.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

const TARGET = 'telegram:-100123';
const creator = { userKey: 'telegram:42' };

test('while a chat call holds the creator’s daily budget, the job’s call is refused, and named', async () => {
  const dir = dataDir();
  const loaded = loadedConfig(dir, { channels: { telegram: { enabled: true, budget: { userUsdPerDay: 0.05 } } } });
  const store = createFileStore(dir);
  // The ledger main shares between the gateway's runs and the scheduler.
  const spend = createDailySpend(store.usage, { log: silentLogger });
  const workerFile = compiledTestWorker(fileURLToPath(new URL('./workers/reserve.ts', import.meta.url)));
  const sched = setup(emu, { dir, store, loaded, spend, workerFile });
  try {
    const job = await sched.scheduler.add({
      name: 'news',
      cron: '0 3 * * *',
      target: TARGET,
      prompt: 'the news',
      createdBy: 'telegram:42',
      timeoutMs: 5000,
    });
    // A chat message of the creator is at the model with an estimate of the whole budget.
    const chat = spend.reserve([{ conversationKey: 'telegram:7' }, creator], 0.05, [
      { kind: 'user', subjects: [creator], usd: 0.05 },
    ]);
    assert.ok(!('refused' in chat));
    const stopped = await (await sched.scheduler.runNow(job.id)).done;
    assert.equal(stopped.entry.outcome, 'budget-exceeded');
    assert.equal(
      sched.posted.at(-1)!.text,
      'Scheduled job "news" skipped: the daily budget of telegram:42, who set it up, is spent.',
    );
    // The chat call ended without spending: the job's call is made, charged, and gives its hold back.
    chat.release();
    const ran = await (await sched.scheduler.runNow(job.id)).done;
    assert.equal(ran.entry.outcome, 'final');
    await spend.flush();
    assert.equal(spend.reserved(creator), 0);
    assert.equal(spend.today(creator), 0.02);
  } finally {
    await sched.scheduler.stop();
    await store.close();
  }
});
