// Restarts: a scheduler stopped after a run and a new one started on the same data directory
// runs the next occurrence once and never repeats the one already run (lastRunAt is written
// before each run); occurrences missed while down are caught up once at start, then the
// schedule continues.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFileStore } from '../../src/store/index.ts';
import { llm, startLlmEmulator, type LlmEmulator } from '../emulators/llm/index.ts';
import { dataDir, setup } from './helpers.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
  emu.respond(() => llm.say('scheduled hello'));
});
after(async () => {
  await emu.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A 6-field cron firing exactly at `offsets` seconds after a moment `lead` seconds from now (one minute, local time). */
async function cronAt(lead: number, offsets: number[]): Promise<{ cron: string; times: Date[] }> {
  for (;;) {
    const base = Math.ceil(Date.now() / 1000) * 1000 + lead * 1000;
    const times = offsets.map((o) => new Date(base + o * 1000));
    const last = times.at(-1)!;
    if (last.getMinutes() === times[0]!.getMinutes() && last.getHours() === times[0]!.getHours()) {
      const t = times[0]!;
      return { cron: `${times.map((x) => x.getSeconds()).join(',')} ${t.getMinutes()} ${t.getHours()} ${t.getDate()} ${t.getMonth() + 1} *`, times };
    }
    await sleep(60_000 - (Date.now() % 60_000) + 50); // the next minute has room
  }
}

test('a restart in the middle of a run runs the next occurrence once and never repeats the interrupted one', async () => {
  const dir = dataDir();
  const { cron, times } = await cronAt(6, [0, 25]);
  const a = setup(emu, { dir });
  const job = await a.scheduler.add({ name: 'twice', cron, prompt: 'say hello', target: 'telegram:7' });
  await a.scheduler.start();
  const started = await a.events.wait('run-start', (e) => e.jobId === job.id);
  // Stopped while the first occurrence's run is in flight: it is cancelled and says so.
  await a.scheduler.stop();
  const stored = await a.store.jobs.get(job.id);
  await a.store.close();
  assert.equal(started.trigger, 'schedule');
  assert.ok(Date.parse(started.startedAt) >= times[0]!.getTime());
  assert.equal(stored?.lastRunAt, started.startedAt, 'lastRunAt was stored before the run');
  assert.deepEqual(a.posted.map((p) => p.text), ['Scheduled job "twice" was interrupted before it finished (boxbot stopped or the job was removed).']);

  const b = setup(emu, { dir });
  const bStarted = Date.now();
  await b.scheduler.start();
  const synced = await b.events.wait('synced');
  const second = await b.events.wait('run-end', (e) => e.jobId === job.id);
  await b.scheduler.stop();
  const logs = await b.store.jobs.logs(job.id);
  await b.store.close();

  if (bStarted < times[1]!.getTime()) {
    assert.deepEqual(synced.caughtUp, [], 'nothing was missed: the interrupted occurrence is not run again');
    assert.equal(second.report.entry.trigger, 'schedule');
    assert.ok(Date.parse(second.report.entry.startedAt) >= times[1]!.getTime(), 'the next run is the second occurrence');
  } else {
    // The first scheduler took longer to stop than the gap: the second occurrence was missed while down.
    assert.equal(second.report.entry.trigger, 'catch-up');
  }
  assert.deepEqual(logs.map((l) => l.outcome), ['cancelled', 'final'], 'two occurrences, two runs');
  assert.deepEqual(b.posted.map((p) => p.text), ['scheduled hello']);
  assert.equal(b.events.count('run-start'), 1);
});

test('missed occurrences while down are caught up once at start, then the schedule continues', async () => {
  const dir = dataDir();
  const store = createFileStore(dir);
  const long = new Date(Date.now() - 60_000).toISOString();
  // As a previous process left them: ran a minute ago (12 occurrences missed since), and one not missed.
  await store.jobs.put({ id: 'every-5s', name: 'every 5s', cron: '*/5 * * * * *', prompt: 'say hello', target: 'telegram:7', access: 'read-only', timeoutMs: 60_000, enabled: true, overlap: 'skip', createdAt: long, lastRunAt: long });
  await store.jobs.put({ id: 'new-year', name: 'new year', cron: '0 0 1 1 *', prompt: 'happy new year', target: 'telegram:7', access: 'read-only', timeoutMs: 60_000, enabled: true, overlap: 'skip', createdAt: new Date().toISOString() });
  await store.jobs.put({ id: 'off', name: 'disabled', cron: '*/5 * * * * *', prompt: 'never', target: 'telegram:7', access: 'read-only', timeoutMs: 60_000, enabled: false, overlap: 'skip', createdAt: long, lastRunAt: long });
  const ctx = setup(emu, { dir, store });
  try {
    await ctx.scheduler.start();
    const synced = await ctx.events.wait('synced');
    assert.deepEqual(synced.caughtUp, ['every-5s']);
    const first = await ctx.events.nth('run-end', 1);
    assert.equal(first.report.entry.trigger, 'catch-up');
    const second = await ctx.events.nth('run-end', 2);
    await ctx.scheduler.stop();
    assert.equal(second.report.entry.trigger, 'schedule', 'after the one catch-up run, the schedule continues');
    assert.equal(ctx.events.events.filter((e) => e.type === 'run-start' && e.trigger === 'catch-up').length, 1, 'one catch-up for many missed occurrences');
    assert.deepEqual(ctx.events.events.filter((e) => e.type === 'run-start').map((e) => 'jobId' in e && e.jobId), ['every-5s', 'every-5s']);
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});
