// Without a test clock the scheduler runs on the wall clock and Bree's own cron timers: a job
// on a every-second cron is ticked by Bree and its run is stamped with the real time. (Every
// other scheduler test fires its ticks through a test clock; this one keeps the real timers honest.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { setup } from './helpers.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
  emu.respond(() => llm.say('tick'));
});
after(async () => {
  await emu.close();
});

test("Bree's timers tick a job on its cron; the run is stamped with the wall clock", async () => {
  const ctx = setup(emu);
  try {
    const before = Date.now();
    // Added disabled, then enabled: a job the scheduler loads for the first time runs as a catch-up when a
    // second began since its creation (on a busy machine, loading it often crosses one); an enabled job
    // it already knows is only put on Bree's timers.
    await ctx.scheduler.start();
    const job = await ctx.scheduler.add({
      name: 'every second',
      cron: '* * * * * *',
      prompt: 'tick',
      target: 'telegram:1',
      enabled: false,
    });
    await ctx.scheduler.update(job.id, { enabled: true });
    const end = await ctx.events.wait('run-end', (e) => e.jobId === job.id);
    await ctx.scheduler.stop();
    assert.equal(end.report.entry.trigger, 'schedule');
    assert.equal(end.report.entry.outcome, 'final');
    assert.ok(
      Date.parse(end.report.entry.startedAt) >= before && Date.parse(end.report.entry.finishedAt) <= Date.now(),
      'stamped with the wall clock',
    );
    assert.deepEqual(
      ctx.posted.map((p) => p.text),
      ['tick'],
    );
  } finally {
    await ctx.scheduler.stop();
    await ctx.store.close();
  }
});
