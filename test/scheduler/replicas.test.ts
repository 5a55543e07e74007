// Two schedulers on one PostgreSQL database (two replicas whose leadership overlaps for a moment,
// or a leader and a deposed one that does not know it yet): every occurrence of a job runs once,
// even when their clocks differ by a fraction of a second.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/index.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../emulators/llm/index.ts';
import { type PostgresServer, startPostgres } from '../store/postgres-server.ts';
import { dataDir, setup, until } from './helpers.ts';
import { ManualClock } from './manual-clock.ts';

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
const skip = 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false;
if (skip) console.log(`# ${skip}`);

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
  emu.respond(() => llm.say('digest'));
});
after(async () => {
  await emu.close();
  await server?.stop();
});

test('two replicas ticking the same job: each occurrence runs once', { skip }, async () => {
  const url = await (server as PostgresServer).database();
  const dir = dataDir();
  const clocks = [new ManualClock('2030-01-07T09:00:00.000Z'), new ManualClock('2030-01-07T08:59:59.700Z')];
  const replicas = await Promise.all(
    clocks.map(async (clock) => setup(emu, { dir, clock, store: await openPostgresStore(url) })),
  );
  const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
  try {
    const job = await a.scheduler.add({ name: 'digest', cron: '* * * * * *', prompt: 'news', target: 'telegram:1' });
    await Promise.all(replicas.map((r) => r.scheduler.start()));
    for (let s = 0; s < 5; s++) {
      clocks[0]!.set(new Date(Date.parse('2030-01-07T09:00:00.000Z') + s * 1000));
      clocks[1]!.set(new Date(Date.parse('2030-01-07T08:59:59.700Z') + s * 1000));
      const ends = a.events.count('run-end') + b.events.count('run-end');
      const skips = a.events.count('skipped') + b.events.count('skipped');
      clocks[0]!.tick(job.id);
      clocks[1]!.tick(job.id);
      // One of the two runs the occurrence, the other hears it was taken.
      await until(
        () =>
          a.events.count('run-end') + b.events.count('run-end') > ends &&
          a.events.count('skipped') + b.events.count('skipped') > skips,
        `occurrence ${s} settled by both`,
        60_000,
      );
    }
    const runs = a.events.count('run-start') + b.events.count('run-start');
    assert.equal(runs, 5, 'five occurrences, five runs in all');
    assert.equal(a.posted.length + b.posted.length, 5, 'five digests posted');
    assert.equal((await a.store.jobs.logs(job.id)).length, 5);
  } finally {
    for (const r of replicas) {
      await r.scheduler.stop();
      await r.store.close();
    }
  }
});
