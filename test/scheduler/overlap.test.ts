// Overlap policy for cron ticks (fired by the test clock) while a run is held open (the LLM
// emulator does not answer until the test lets it): `skip` drops those ticks, `queue` runs them
// one after another once the run ends (up to maxQueued; further ticks are dropped). Runs never overlap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SchedulerEvent } from '../../src/scheduler/index.ts';
import { type LlmEmulator, llm } from '../emulators/llm/index.ts';
import { llmEmulatorForFile, setup } from './helpers.ts';
import { ManualClock } from './manual-clock.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

/** The most runs in flight at once, from the event sequence. */
function maxConcurrent(events: SchedulerEvent[]): number {
  let now = 0;
  let max = 0;
  for (const e of events) {
    if (e.type === 'run-start') max = Math.max(max, ++now);
    if (e.type === 'run-end') now--;
  }
  return max;
}

/** A responder holding every request until `release()`. */
function held() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  emu.respond(async () => {
    await gate;
    return llm.say('done');
  });
  return release;
}

test('overlap skip: ticks while the job runs are dropped, not run later', async () => {
  const release = held();
  const clock = new ManualClock('2030-01-07T09:00:00Z');
  const ctx = setup(emu, { clock });
  const n = emu.requests.length;
  try {
    const job = await ctx.scheduler.add({
      name: 'slow',
      cron: '* * * * * *',
      prompt: 'slow work',
      target: 'telegram:1',
      overlap: 'skip',
    });
    await ctx.scheduler.start();
    clock.tick(job.id);
    await ctx.events.wait('run-start');
    clock.set('2030-01-07T09:00:01Z');
    clock.tick(job.id);
    clock.set('2030-01-07T09:00:02Z');
    clock.tick(job.id);
    assert.equal(ctx.events.count('skipped', job.id), 2, 'both ticks during the run were skipped');
    assert.equal(ctx.events.count('run-start'), 1, 'one run while the ticks were skipped');
    release();
    await ctx.events.wait('run-end');
    await ctx.scheduler.stop();
    assert.equal(ctx.events.count('queued'), 0);
    assert.equal(emu.requests.length - n, 1, 'the skipped ticks never reached the model');
    const logs = await ctx.store.jobs.logs(job.id);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.outcome, 'final');
  } finally {
    release();
    await ctx.scheduler.stop();
    await ctx.store.close();
    emu.respond(undefined);
  }
});

test('overlap queue: ticks while the job runs wait their turn and run one after another', async () => {
  const release = held();
  const clock = new ManualClock('2030-01-07T09:00:00Z');
  const ctx = setup(emu, { maxQueued: 2, clock });
  try {
    const job = await ctx.scheduler.add({
      name: 'queued',
      cron: '* * * * * *',
      prompt: 'queued work',
      target: 'telegram:1',
      overlap: 'queue',
    });
    await ctx.scheduler.start();
    clock.tick(job.id);
    await ctx.events.wait('run-start');
    for (let s = 1; s <= 3; s++) {
      clock.set(`2030-01-07T09:00:0${s}Z`);
      clock.tick(job.id);
    }
    assert.deepEqual(
      ctx.events.events.filter((e) => e.type === 'queued').map((e) => 'depth' in e && e.depth),
      [1, 2],
    );
    // The queue is full: the third tick is dropped.
    assert.equal(ctx.events.count('skipped', job.id), 1);
    assert.equal(ctx.events.count('run-start'), 1, 'queued ticks do not start while the run is going');
    release();
    await ctx.events.nth('run-end', 3);
    await ctx.scheduler.stop();
    assert.equal(maxConcurrent(ctx.events.events), 1, 'runs never overlap');
    const logs = await ctx.store.jobs.logs(job.id);
    assert.equal(logs.length, 3);
    for (let i = 1; i < logs.length; i++)
      assert.ok(logs[i]!.startedAt >= logs[i - 1]!.finishedAt, `run ${i} started after run ${i - 1} finished`);
    assert.deepEqual(
      logs.map((l) => l.outcome),
      ['final', 'final', 'final'],
    );
  } finally {
    release();
    await ctx.scheduler.stop();
    await ctx.store.close();
    emu.respond(undefined);
  }
});
