// How a job run's spending is recorded: under the model that answered each call, and never lost
// to a failing store write (retried, and counted toward the budget meanwhile).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createFileStore, type Store, type UsageCharge } from '../../src/store/index.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { dataDir, loadedConfig, setup, until } from './helpers.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
});
after(async () => {
  await emu.close();
});

const TARGET = 'telegram:-100123';
const CHAT = '-100123';
const today = () => new Date().toISOString().slice(0, 10);
const workerFile = (name: string) => fileURLToPath(new URL(`./workers/${name}.ts`, import.meta.url));

/** A file store whose usage writes are seen (and fail `failures` times first, as a full disk would). */
function watchedStore(dir: string, failures = 0): { store: Store; added: UsageCharge[]; attempts: () => number } {
  const inner = createFileStore(dir);
  const added: UsageCharge[] = [];
  let tries = 0;
  const store: Store = {
    ...inner,
    usage: {
      get: (s, day) => inner.usage.get(s, day),
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

test('a failed write of a job’s spending is retried, so the target’s budget still sees it', async () => {
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
