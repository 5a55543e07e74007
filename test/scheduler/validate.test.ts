// Job definitions are refused with a message naming the field (bad cron, unknown target, access,
// time zone, ...), and the schedule arithmetic behind catch-up is right across time zones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { standardCron } from '../../src/scheduler/cron.ts';
import {
  formatInZone,
  type JobInput,
  JobValidationError,
  missedRun,
  nextOccurrence,
  nextRunText,
  validateJobInput,
} from '../../src/scheduler/index.ts';
import { startLlmEmulator } from '../emulators/llm/index.ts';
import { setup } from './helpers.ts';
import { ManualClock } from './manual-clock.ts';

const base: JobInput = { name: 'Digest', cron: '0 9 * * 1-5', prompt: '/daily-digest', target: 'slack:T01:C02' };

async function refusal(input: Partial<JobInput>, known?: (key: string) => true | string): Promise<JobValidationError> {
  try {
    await validateJobInput({ ...base, ...input } as JobInput, known);
  } catch (e) {
    assert.ok(e instanceof JobValidationError, `expected a JobValidationError, got ${String(e)}`);
    return e;
  }
  assert.fail(`${JSON.stringify(input)} was accepted`);
}

test('a valid job gets the defaults: read-only, skip, enabled, 5 minutes', async () => {
  const job = await validateJobInput(base);
  assert.deepEqual(job, {
    name: 'Digest',
    cron: '0 9 * * 1-5',
    prompt: '/daily-digest',
    target: 'slack:T01:C02',
    access: 'read-only',
    timeoutMs: 300_000,
    enabled: true,
    overlap: 'skip',
  });
  const six = await validateJobInput({
    ...base,
    cron: ' */5  * * * * * ',
    timezone: 'Europe/Berlin',
    access: 'full',
    overlap: 'queue',
    timeoutMs: 60_000,
    budgetUsd: 0.25,
  });
  assert.equal(six.cron, '*/5 * * * * *');
  assert.equal(six.timezone, 'Europe/Berlin');
  assert.equal(six.budgetUsd, 0.25);
});

test('bad cron expressions are refused naming the cron field and the problem', async () => {
  const range = await refusal({ cron: '61 9 * * 1-5' });
  assert.equal(range.field, 'cron');
  assert.match(range.message, /^cron: "61 9 \* \* 1-5" is not a valid cron expression: .*61.*minutes/);
  assert.doesNotMatch(range.message, /Input cron/);
  const fields = await refusal({ cron: '9 * * 1-5' });
  assert.equal(
    fields.message,
    'cron: "9 * * 1-5" has 4 fields; expected 5 (minute hour day month weekday) or 6 (second first)',
  );
  assert.match((await refusal({ cron: 'every day at 9' })).message, /^cron: /);
  assert.match((await refusal({ cron: '' })).message, /^cron: expected a cron expression/);
});

test('targets: not a conversation key, a terminal, or a channel that is not running are refused', async () => {
  const bad = await refusal({ target: 'telegrm:1' });
  assert.equal(bad.field, 'target');
  assert.match(bad.message, /^target: bad conversation key "telegrm:1": unknown platform/);
  assert.match((await refusal({ target: 'slack:C02' })).message, /^target: .*expected slack:<teamId>:<channelId>/);
  assert.match((await refusal({ target: 'terminal:abc' })).message, /^target: terminal:abc is a terminal session/);
  const down = await refusal({ target: 'discord:1:2' }, (key) =>
    key.startsWith('discord:') ? 'no discord channel is running' : true,
  );
  assert.equal(down.message, 'target: no discord channel is running');
  await validateJobInput({ ...base, target: 'telegram:-100123:7' }, () => true);
});

test('unknown access, overlap, time zone, model and limits are refused naming the field', async () => {
  assert.equal(
    (await refusal({ access: 'admin' })).message,
    'access: expected full, read-only or chat-only, got "admin"',
  );
  assert.equal((await refusal({ overlap: 'parallel' })).message, 'overlap: expected skip or queue, got "parallel"');
  assert.match((await refusal({ timezone: 'Mars/Base' })).message, /^timezone: unknown time zone "Mars\/Base"/);
  assert.match((await refusal({ model: 'gpt-4o' })).message, /^model: expected provider\/model/);
  assert.match((await refusal({ timeoutMs: -5 })).message, /^timeoutMs: expected a positive whole number/);
  assert.match((await refusal({ budgetUsd: 0 })).message, /^budgetUsd: expected a positive number/);
  assert.match((await refusal({ name: '  ' })).message, /^name: expected a non-empty text/);
  assert.match((await refusal({ prompt: '' })).message, /^prompt: /);
});

test('a creator is a user key on a platform boxbot speaks, or the job is refused naming createdBy', async () => {
  for (const createdBy of ['irc:nick', 'telegram:', '4242', 'telegram:4 2'])
    assert.equal(
      (await refusal({ createdBy })).message,
      `createdBy: expected a platform user such as telegram:4242, got ${JSON.stringify(createdBy)}`,
    );
  const job = await validateJobInput({ ...base, createdBy: 'slack:U024BE7LH' });
  assert.equal(job.createdBy, 'slack:U024BE7LH');
});

test('next occurrences follow the cron in its time zone (weekdays 9:00 Berlin = 8:00 UTC in winter)', () => {
  // Friday 2026-01-09 10:00 UTC: the next weekday 9:00 in Berlin is Monday 08:00 UTC.
  assert.equal(
    nextOccurrence('0 9 * * 1-5', new Date('2026-01-09T10:00:00Z'), 'Europe/Berlin')?.toISOString(),
    '2026-01-12T08:00:00.000Z',
  );
  // Summer time: 9:00 Berlin = 7:00 UTC.
  assert.equal(
    nextOccurrence('0 9 * * 1-5', new Date('2026-07-06T00:00:00Z'), 'Europe/Berlin')?.toISOString(),
    '2026-07-06T07:00:00.000Z',
  );
  assert.equal(
    nextOccurrence('*/10 * * * * *', new Date('2026-01-09T10:00:01.300Z'), 'UTC')?.toISOString(),
    '2026-01-09T10:00:10.000Z',
  );
});

test('catch-up: a run is missed only if an occurrence passed between the last run and now', () => {
  const since = new Date('2026-01-12T08:00:00.200Z'); // Monday's 9:00 Berlin run started
  assert.equal(missedRun('0 9 * * 1-5', since, new Date('2026-01-13T07:59:59Z'), 'Europe/Berlin'), false);
  assert.equal(missedRun('0 9 * * 1-5', since, new Date('2026-01-13T08:00:01Z'), 'Europe/Berlin'), true);
  // The occurrence the last run belongs to does not count again.
  assert.equal(missedRun('0 9 * * 1-5', since, new Date('2026-01-12T08:00:30Z'), 'Europe/Berlin'), false);
  assert.equal(
    missedRun('*/5 * * * * *', new Date('2026-01-09T10:00:05.010Z'), new Date('2026-01-09T10:00:09.900Z')),
    false,
  );
  assert.equal(
    missedRun('*/5 * * * * *', new Date('2026-01-09T10:00:05.010Z'), new Date('2026-01-09T10:00:10.000Z')),
    true,
  );
});

test('day and month names and the macros validate and give the right next occurrences', async () => {
  for (const cron of ['0 9 * * MON-FRI', '0 9 * * mon,wed', '0 0 1 JAN *', '@daily', '@Hourly', '@yearly']) {
    assert.equal((await validateJobInput({ ...base, cron })).cron, cron, `${cron} is accepted and kept as written`);
  }
  const friday = new Date('2026-01-09T10:00:30Z');
  const next = (cron: string, zone?: string) => nextOccurrence(cron, friday, zone)?.toISOString();
  assert.equal(next('0 9 * * MON-FRI', 'Europe/Berlin'), '2026-01-12T08:00:00.000Z');
  assert.equal(next('0 9 * * mon,wed', 'UTC'), '2026-01-12T09:00:00.000Z');
  assert.equal(next('0 9 * * SAT-SUN', 'UTC'), '2026-01-10T09:00:00.000Z');
  assert.equal(next('0 0 1 JAN *', 'UTC'), '2027-01-01T00:00:00.000Z');
  assert.equal(next('30 8 * FEB *', 'UTC'), '2026-02-01T08:30:00.000Z');
  assert.equal(next('@daily', 'UTC'), '2026-01-10T00:00:00.000Z');
  assert.equal(next('@midnight', 'Europe/Berlin'), '2026-01-09T23:00:00.000Z');
  assert.equal(next('@hourly', 'UTC'), '2026-01-09T11:00:00.000Z');
  assert.equal(next('@weekly', 'UTC'), '2026-01-11T00:00:00.000Z');
  assert.equal(next('@monthly', 'UTC'), '2026-02-01T00:00:00.000Z');
  assert.equal(next('@annually', 'UTC'), '2027-01-01T00:00:00.000Z');
  assert.match(
    (await refusal({ cron: '@fortnightly' })).message,
    /^cron: unknown macro "@fortnightly"; expected one of @yearly/,
  );
  assert.match(
    (await refusal({ cron: '0 9 * * MOX' })).message,
    /^cron: "0 9 \* \* MOX" is not a valid cron expression/,
  );
});

test('names of Object.prototype are not macros: refused as cron, not a TypeError (found by fuzzing)', async () => {
  // The macro table is a plain object: `__proto__` or `constructor` looked up "found" a macro.
  for (const cron of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.match((await refusal({ cron })).message, /^cron: /, cron);
    assert.equal(standardCron(cron), cron);
  }
});

test('a @daily and a MON-FRI job are scheduled by Bree, not only validated', async () => {
  const emu = await startLlmEmulator();
  const clock = new ManualClock('2026-01-09T10:00:00Z');
  const ctx = setup(emu, { clock });
  try {
    const daily = await ctx.scheduler.add({ ...base, name: 'daily', cron: '@daily', target: 'telegram:1' });
    const weekdays = await ctx.scheduler.add({
      ...base,
      name: 'weekdays',
      cron: '0 9 * * MON-FRI',
      target: 'telegram:1',
    });
    await ctx.scheduler.start();
    assert.ok(clock.isScheduled(daily.id), '@daily is scheduled');
    assert.ok(clock.isScheduled(weekdays.id), 'MON-FRI is scheduled');
  } finally {
    await ctx.scheduler.stop();
    await ctx.store.close();
    await emu.close();
  }
});

test("next runs are shown on the job's own wall clock, named", () => {
  const now = new Date('2026-11-24T10:00:00Z');
  const job = { cron: '0 9 * * MON-FRI', timezone: 'Europe/Berlin', enabled: true };
  assert.equal(nextRunText(job, now), '2026-11-25 09:00 Europe/Berlin');
  assert.equal(nextRunText({ ...job, timezone: 'America/New_York' }, now), '2026-11-24 09:00 America/New_York');
  assert.equal(nextRunText({ ...job, enabled: false }, now), 'disabled');
  assert.equal(nextRunText({ ...job, cron: '*/10 * * * * *', timezone: 'UTC' }, now), '2026-11-24 10:00:00 UTC');
  assert.equal(formatInZone(new Date('2026-07-06T07:00:00Z'), 'Europe/Berlin'), '2026-07-06 09:00 Europe/Berlin');
});
