// Cron expressions as Bree schedules them: 5 fields, or 6 with seconds first; time zones as
// IANA names. Day and month names (MON-FRI, JAN) and the macros (@daily, @hourly, ...) are
// accepted too: Bree's validator and `later` refuse them, so `standardCron` translates them to
// numbers before either sees the expression (the job keeps what the user wrote). Uses the same
// `later` instance Bree uses, so "when is the next run" here and in Bree's timers agree (catch-up
// after a restart depends on that).
import laterModule from '@breejs/later';

/** The subset of @breejs/later this module uses. */
interface Later {
  date: { localTime(): void };
  parse: { cron(expr: string, hasSeconds?: boolean): unknown };
  schedule(data: unknown): {
    next(count: 1, start: Date): Date | 0 | undefined;
    next(count: number, start: Date): Date[] | 0 | undefined;
  };
}

// Bree's own copy of later: the one copy installed (package.json pins the version Bree's lock has),
// which a bundle shares with the Bree inlined beside it.
const later = laterModule as Later;
// Bree evaluates schedules in local time (it makes this same call when it loads).
later.date.localTime();

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** The macro names `standardCron` understands. */
export const CRON_MACROS = Object.keys(MACROS);

/**
 * `expr` with macros expanded and day/month names replaced by their numbers (case-insensitive;
 * SUN = 0, JAN = 1), e.g. `0 9 * * MON-FRI` → `0 9 * * 1-5`; anything else is left as it is.
 */
export function standardCron(expr: string): string {
  const trimmed = expr.trim();
  // Own keys only: `__proto__` or `constructor` must not read Object.prototype as a macro.
  const name = trimmed.toLowerCase();
  if (Object.hasOwn(MACROS, name)) return MACROS[name]!;
  const fields = trimmed.split(/\s+/).filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6) return trimmed;
  const at = fields.length - 5; // index of the minute field
  const names = (field: string, list: string[], base: number) =>
    field.replace(/[a-z]+/gi, (w) => {
      const i = list.indexOf(w.toUpperCase());
      return i < 0 ? w : String(i + base);
    });
  fields[at + 3] = names(fields[at + 3]!, MONTHS, 1);
  fields[at + 4] = names(fields[at + 4]!, DAYS, 0);
  return fields.join(' ');
}

/** The number of whitespace-separated fields (macros count as the 5 they stand for); 6 = seconds first. */
export function cronFields(expr: string): number {
  return standardCron(expr).split(/\s+/).filter(Boolean).length;
}

/** True when the expression has a seconds field (6 fields). */
export function hasSeconds(expr: string): boolean {
  return cronFields(expr) === 6;
}

/** True when `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's wall clock at `date`, read as if it were UTC, minus `date` (ms; + east of UTC). */
function zoneOffsetMs(date: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(date);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(date.getTime() / 1000) * 1000;
}

/**
 * The first occurrence of `expr` at or after `start` (whole seconds), in `zone` (default: the
 * machine's local time, as Bree does), or undefined if it never fires.
 */
export function nextOccurrence(expr: string, start: Date, zone?: string): Date | undefined {
  const schedule = later.schedule(later.parse.cron(standardCron(expr), hasSeconds(expr)));
  const from = new Date(Math.ceil(start.getTime() / 1000) * 1000);
  if (!zone || zone === 'local' || zone === 'system') {
    const next = schedule.next(1, from);
    return next instanceof Date ? next : undefined;
  }
  // later evaluates in local time: shift the start into the zone's wall clock and back.
  const shift = zoneOffsetMs(from, zone) + from.getTimezoneOffset() * 60_000;
  const next = schedule.next(1, new Date(from.getTime() + shift));
  if (!(next instanceof Date)) return undefined;
  const guess = new Date(next.getTime() - shift);
  // Across a DST change the offset at the occurrence differs from the one at `start`.
  const fix = zoneOffsetMs(guess, zone) + guess.getTimezoneOffset() * 60_000;
  return new Date(next.getTime() - fix);
}

/**
 * Catch-up rule: true when the schedule had an occurrence after `since` (the last run's start,
 * else the job's creation) and at or before `now`, i.e. a run was missed while boxbot was down.
 */
export function missedRun(expr: string, since: Date, now: Date, zone?: string): boolean {
  // Occurrences are whole seconds; the run that set `since` belongs to the second it started in.
  const after = new Date(Math.floor(since.getTime() / 1000) * 1000 + 1000);
  const next = nextOccurrence(expr, after, zone);
  return next !== undefined && next.getTime() <= now.getTime();
}

/** The zone a job without a time zone runs in: the machine's (Bree schedules in local time). */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';
}

/**
 * `date` on the wall clock of `zone` (default: the machine's), named: `2026-11-25 09:00 Europe/Berlin`;
 * with `seconds`, `09:00:05`. People read a job's times in the zone its cron is written in.
 */
export function formatInZone(date: Date, zone?: string, seconds = false): string {
  const name = !zone || zone === 'local' || zone === 'system' ? localZone() : zone;
  const parts = new Intl.DateTimeFormat('en-US', {
    ...(name === 'local' ? {} : { timeZone: name }),
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const time = `${get('hour')}:${get('minute')}${seconds ? `:${get('second')}` : ''}`;
  return `${get('year')}-${get('month')}-${get('day')} ${time} ${name}`;
}

/**
 * A job's next run for people: `2026-11-25 09:00 Europe/Berlin`, `disabled` or `never`; a webhook
 * job's is `on POST /hooks/<name>`.
 */
export function nextRunText(
  job: { cron?: string; timezone?: string; enabled: boolean; trigger?: { webhook: string } },
  now = new Date(),
): string {
  if (!job.enabled) return 'disabled';
  if (!job.cron) return job.trigger ? `on POST /hooks/${job.trigger.webhook}` : 'never';
  const next = nextOccurrence(job.cron, now, job.timezone);
  return next ? formatInZone(next, job.timezone, hasSeconds(job.cron)) : 'never';
}

/** How far past its first fire time `shortestGapMs` looks: a week of weekdays, and the day after. */
const GAP_WINDOW_MS = 8 * 86_400_000;
/** Fire times `shortestGapMs` looks at, at most (a job every five minutes fires 2,304 times in eight days). */
const GAP_MAX_FIRES = 3_000;
/** Fire times asked of `later` first (then twice as many each time). */
const GAP_FIRST_BATCH = 16;

/**
 * The shortest time between two consecutive fire times of `expr` over its first eight days of
 * firing from `start`; undefined when it fires once or never in that window. Read from the fire
 * times themselves, so every spelling of "often" counts (`*\/6` seconds, `0-59`, `1,2,3`, a list
 * of hours). On the machine's clock: a time zone moves fire times, not the gaps between them
 * (but for an hour at a daylight-saving change).
 */
export function shortestGapMs(expr: string, start = new Date()): number | undefined {
  const schedule = later.schedule(later.parse.cron(standardCron(expr), hasSeconds(expr)));
  let from = new Date(Math.ceil(start.getTime() / 1000) * 1000);
  let end = Number.POSITIVE_INFINITY;
  let prev: number | undefined;
  let shortest: number | undefined;
  // In growing batches: a yearly job needs two fire times, not the thousands a frequent one is read for.
  for (let seen = 0, batch = GAP_FIRST_BATCH; seen < GAP_MAX_FIRES; batch *= 2) {
    const want = Math.min(batch, GAP_MAX_FIRES - seen);
    const fires = schedule.next(want, from);
    if (!Array.isArray(fires) || !fires.length) break;
    for (const fire of fires) {
      const at = fire.getTime();
      if (prev === undefined) end = at + GAP_WINDOW_MS;
      else if (at > end) return shortest;
      else if (at > prev && (shortest === undefined || at - prev < shortest)) shortest = at - prev;
      prev = at;
    }
    seen += fires.length;
    if (fires.length < want) break; // it fires no more
    from = new Date(prev! + 1000);
  }
  return shortest;
}
