// Restarts: a scheduler stopped after a run and a new one started on the same data directory
// runs the next occurrence once and never repeats the one already run (lastRunAt is written
// before each run); occurrences missed while down are caught up once at start, then the
// schedule continues. The time is a test clock and the cron ticks are fired by the test.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFileStore } from '../../src/store/index.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { dataDir, setup } from './helpers.ts';
import { ManualClock } from './manual-clock.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
  emu.respond(() => llm.say('scheduled hello'));
});
after(async () => {
  await emu.close();
});

const restartMiddleRunTitle =
  'a restart in the middle of a run runs the next occurrence once and never repeats the interrupted one';
test(restartMiddleRunTitle, async () => {
  const dir = dataDir();
  const clock = new ManualClock('2030-01-07T08:59:30Z');
  const a = setup(emu, { dir, clock });
  const job = await a.scheduler.add({
    name: 'hourly',
    cron: '0 * * * *',
    timezone: 'UTC',
    prompt: 'say hello',
    target: 'telegram:7',
  });
  await a.scheduler.start();
  clock.set('2030-01-07T09:00:00Z');
  clock.tick(job.id);
  const started = await a.events.wait('run-start', (e) => e.jobId === job.id);
  // Stopped while the 9:00 run is in flight: it is cancelled and says so.
  await a.scheduler.stop();
  const stored = await a.store.jobs.get(job.id);
  await a.store.close();
  assert.equal(started.trigger, 'schedule');
  assert.equal(started.startedAt, '2030-01-07T09:00:00.000Z');
  assert.equal(stored?.lastRunAt, started.startedAt, 'lastRunAt was stored before the run');
  assert.deepEqual(
    a.posted.map((p) => p.text),
    ['Scheduled job "hourly" was interrupted before it finished (boxbot stopped or the job was removed).'],
  );
  assert.equal(clock.isScheduled(job.id), false, 'stop() ended the timer');

  // Back up at 9:30: the interrupted 9:00 run is not run again; the 10:00 one runs once.
  clock.set('2030-01-07T09:30:00Z');
  const b = setup(emu, { dir, clock });
  await b.scheduler.start();
  const synced = await b.events.wait('synced');
  assert.deepEqual(synced.caughtUp, [], 'nothing was missed: the interrupted occurrence is not run again');
  clock.set('2030-01-07T10:00:00Z');
  clock.tick(job.id);
  const second = await b.events.wait('run-end', (e) => e.jobId === job.id);
  await b.scheduler.stop();
  const logs = await b.store.jobs.logs(job.id);
  await b.store.close();

  assert.equal(second.report.entry.trigger, 'schedule');
  assert.equal(second.report.entry.startedAt, '2030-01-07T10:00:00.000Z', 'the next run is the 10:00 occurrence');
  assert.deepEqual(
    logs.map((l) => [l.outcome, l.startedAt]),
    [
      ['cancelled', '2030-01-07T09:00:00.000Z'],
      ['final', '2030-01-07T10:00:00.000Z'],
    ],
    'two occurrences, two runs',
  );
  assert.deepEqual(
    b.posted.map((p) => p.text),
    ['scheduled hello'],
  );
  assert.equal(b.events.count('run-start'), 1);
});

test('missed occurrences while down are caught up once at start, then the schedule continues', async () => {
  const dir = dataDir();
  const store = createFileStore(dir);
  const clock = new ManualClock('2030-01-07T12:00:00Z');
  const long = '2030-01-07T11:59:00.000Z';
  // As a previous process left them: ran a minute ago (12 occurrences missed since), one not missed, one disabled.
  await store.jobs.put({
    id: 'every-5s',
    name: 'every 5s',
    cron: '*/5 * * * * *',
    prompt: 'say hello',
    target: 'telegram:7',
    access: 'read-only',
    timeoutMs: 60_000,
    enabled: true,
    overlap: 'skip',
    createdAt: long,
    lastRunAt: long,
  });
  await store.jobs.put({
    id: 'new-year',
    name: 'new year',
    cron: '0 0 1 1 *',
    prompt: 'happy new year',
    target: 'telegram:7',
    access: 'read-only',
    timeoutMs: 60_000,
    enabled: true,
    overlap: 'skip',
    createdAt: '2030-01-07T11:00:00.000Z',
  });
  await store.jobs.put({
    id: 'off',
    name: 'disabled',
    cron: '*/5 * * * * *',
    prompt: 'never',
    target: 'telegram:7',
    access: 'read-only',
    timeoutMs: 60_000,
    enabled: false,
    overlap: 'skip',
    createdAt: long,
    lastRunAt: long,
  });
  const ctx = setup(emu, { dir, store, clock });
  try {
    await ctx.scheduler.start();
    const synced = await ctx.events.wait('synced');
    assert.deepEqual(synced.caughtUp, ['every-5s']);
    assert.equal(clock.isScheduled('off'), false, 'a disabled job has no timer');
    assert.equal(clock.isScheduled('new-year'), true);
    const first = await ctx.events.nth('run-end', 1);
    assert.equal(first.report.entry.trigger, 'catch-up');
    clock.set('2030-01-07T12:00:05Z');
    clock.tick('every-5s');
    const second = await ctx.events.nth('run-end', 2);
    await ctx.scheduler.stop();
    assert.equal(second.report.entry.trigger, 'schedule', 'after the one catch-up run, the schedule continues');
    assert.equal(
      ctx.events.events.filter((e) => e.type === 'run-start' && e.trigger === 'catch-up').length,
      1,
      'one catch-up for many missed occurrences',
    );
    assert.deepEqual(
      ctx.events.events.filter((e) => e.type === 'run-start').map((e) => 'jobId' in e && e.jobId),
      ['every-5s', 'every-5s'],
    );
  } finally {
    await ctx.scheduler.stop();
    await store.close();
  }
});
