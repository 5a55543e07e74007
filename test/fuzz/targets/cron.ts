// Fuzz target: cron expressions as a user or a model writes them for a job. validateCron either
// returns the expression or throws a JobValidationError naming the field; what it accepts must
// then work everywhere a job's schedule is read (next run, catch-up, the text people see).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hasSeconds, missedRun, nextOccurrence, nextRunText, standardCron } from '../../../src/scheduler/cron.ts';
import { JobValidationError } from '../../../src/scheduler/errors.ts';
import { validateCron } from '../../../src/scheduler/validate.ts';
import type { FuzzTarget } from '../harness.ts';

const number = fc.oneof(fc.integer({ min: 0, max: 60 }), fc.constantFrom(-1, 99, 1000, 2 ** 31, 1e21, 4294967296));
const name = fc.constantFrom('MON', 'fri', 'SUN', 'JAN', 'dec', 'xyz', 'L', 'W', '?', 'LW');

/** One cron field: `*`, steps, ranges, lists, names, and the odd extensions other crons take. */
const field: fc.Arbitrary<string> = fc.oneof(
  fc.constant('*'),
  number.map(String),
  name,
  fc.tuple(number, number).map(([a, b]) => `${a}-${b}`),
  fc.tuple(fc.constantFrom('*', '0', '5-10', '1-2'), number).map(([a, n]) => `${a}/${n}`),
  fc.array(fc.oneof(number.map(String), name), { minLength: 2, maxLength: 4 }).map((l) => l.join(',')),
  fc.tuple(number, number).map(([a, b]) => `${a}#${b}`),
  fc.string({ maxLength: 4 }),
);

const expression: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.array(field, { minLength: 4, maxLength: 7 }).map((f) => f.join(' ')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('@daily', '@hourly', '@yearly', '@reboot', '@every 5m', '@DAILY', '@', '* * * * * * *'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

const ZONES = [undefined, 'UTC', 'Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham'];
const NOW = new Date('2026-11-27T17:00:00Z');

/** Cron expressions for a job, checked, then scheduled in a few zones (DST, odd offsets). */
export const cronExpressions: FuzzTarget<[string, string | undefined]> = {
  name: 'cron',
  input: fc.tuple(expression, fc.constantFrom(...ZONES)),
  async check([expr, zone]) {
    standardCron(expr);
    let cron: string;
    try {
      cron = await validateCron(expr);
    } catch (e) {
      if (e instanceof JobValidationError) return;
      throw e;
    }
    const next = nextOccurrence(cron, NOW, zone);
    assert.ok(next === undefined || !Number.isNaN(next.getTime()), 'next run is an invalid date');
    missedRun(cron, new Date(NOW.getTime() - 86_400_000), NOW, zone);
    const shown = nextRunText({ cron, ...(zone ? { timezone: zone } : {}), enabled: true }, NOW);
    assert.ok(shown === 'never' || /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? /.test(shown), `next run shown as ${shown}`);
    assert.equal(typeof hasSeconds(cron), 'boolean');
  },
};
