// `boxbot job add|list|edit|enable|disable|remove|run|logs`: manage scheduled jobs in the store. A running gateway
// picks up changes made here within its scheduler's reload interval (5 s). `job run` runs the job
// once in this process (a worker thread, as the gateway would) and prints the result; it is NOT
// posted to the target, since delivery needs the running gateway's channels.
// Example: boxbot job add --name digest --cron "0 9 * * 1-5" --prompt "/daily-digest" --target slack:T01:C02
// A webhook job instead of a cron: boxbot job add --name pushes --webhook github-push
//   --secret-env GITHUB_WEBHOOK_SECRET --prompt "Summarise this push: {{event}}" --target slack:T01:C02
import { readSecrets } from '../config/env.ts';
import { loadConfig } from '../config/load.ts';
import { databaseUrl } from '../config/store-url.ts';
import { UsageError } from '../core/errors.ts';
// The scheduler's own files, not its index: that one also loads the HTTP API (express) and the
// schedule tool (the agent), which no job command needs (half of a `boxbot job list`'s start).
import { nextRunText } from '../scheduler/cron.ts';
import { JobValidationError } from '../scheduler/errors.ts';
import type { JobInput, JobRecord, Scheduler } from '../scheduler/index.ts';
import { createScheduler } from '../scheduler/scheduler.ts';
import { configuredTargetCheck } from '../scheduler/targets.ts';
import { hookUrl } from '../scheduler/webhook-trigger.ts';
import { openStore, type Store } from '../store/index.ts';

/** Flags of `job add`: the JobInput fields given as they are, plus the ones that need parsing. */
export type JobAddFlags = Pick<JobInput, 'name' | 'prompt' | 'target' | 'timezone' | 'model' | 'access' | 'overlap'> & {
  /** Required unless `webhook` is given (then it is ''). */
  cron?: string;
  webhook?: string;
  secretEnv?: string;
  timeout?: string;
  budget?: string;
  disabled?: boolean;
  format: string;
};

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

function format(f: string | undefined): 'text' | 'json' {
  if (f === undefined || f === 'text' || f === 'json') return f ?? 'text';
  throw new UsageError(`--format: expected text or json, got ${JSON.stringify(f)}`);
}

/** `120000`, `90s`, `5m`, `1h` → milliseconds. */
export function parseDuration(flag: string, v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m)
    throw new UsageError(`${flag}: expected milliseconds or a duration such as 90s, 5m, 1h; got ${JSON.stringify(v)}`);
  const n =
    Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(n);
}

function parseBudget(v: string): number {
  const n = Number(v.replace(/^\$/, ''));
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`--budget: expected a positive amount in USD such as 0.50, got ${JSON.stringify(v)}`);
  return n;
}

/** Opens the store and a scheduler (not started) for one command, and closes them after. */
async function withScheduler<T>(
  configFile: string | undefined,
  fn: (s: Scheduler, store: Store, http: HttpAddress) => Promise<T>,
): Promise<T> {
  const loaded = loadConfig(configFile);
  const secrets = readSecrets();
  const { store } = await openStore(databaseUrl(loaded.config, secrets), loaded.dataDir);
  const scheduler = createScheduler({
    store,
    loaded,
    secrets,
    isKnownTarget: configuredTargetCheck(loaded.config, secrets),
    reloadMs: 0,
  });
  try {
    return await fn(scheduler, store, loaded.config.http);
  } catch (e) {
    // Validation errors are usage errors of the command (exit 2); the message names the field.
    if (e instanceof JobValidationError)
      throw new UsageError(`${flagOf(e.field)}: ${e.message.slice(e.field.length + 2)}`);
    throw e;
  } finally {
    await scheduler.stop();
    await store.close();
  }
}

const FLAGS: Record<string, string> = {
  timeoutMs: '--timeout',
  budgetUsd: '--budget',
  trigger: '--webhook',
  secretEnv: '--secret-env',
};
/** The config's `http` section: where webhook URLs point. */
type HttpAddress = { host: string; port: number; publicUrl?: string | undefined };
const flagOf = (field: string) => FLAGS[field] ?? `--${field}`;

/** In the job's own time zone, named, e.g. `2026-11-25 09:00 Europe/Berlin`. */
const nextRun = (job: JobRecord): string => nextRunText(job);

/** How `job add` and `job edit` say when the job runs next, or where its webhook is. */
function whenText(job: JobRecord, http: HttpAddress): string {
  return job.trigger
    ? `started by POST ${hookUrl(http, job.trigger.webhook)}, signed with the secret in ${job.trigger.secretEnv}`
    : `next run ${nextRun(job)}`;
}

/** The `trigger` of `--webhook`/`--secret-env` (`current` fills the one not given, for `job edit`). */
function triggerOf(flags: { webhook?: string; secretEnv?: string }, current?: JobRecord): JobInput['trigger'] {
  const webhook = flags.webhook ?? current?.trigger?.webhook;
  const secretEnv = flags.secretEnv ?? current?.trigger?.secretEnv;
  if (!webhook) throw new UsageError('--secret-env: only for a webhook job; give --webhook <name> too');
  if (!secretEnv)
    throw new UsageError("--webhook: give --secret-env <variable>, the environment variable holding the hook's secret");
  return { webhook, secretEnv };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Flags of `job edit`: the fields to change, as `job add` takes them. */
export type JobEditFlags = Partial<Omit<JobAddFlags, 'disabled'>>;

/** The optional job fields `job add` and `job edit` share, from their flags (only those given). */
function optionalFields(flags: JobEditFlags): Partial<JobInput> {
  return {
    ...(flags.timezone !== undefined ? { timezone: flags.timezone } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(flags.access !== undefined ? { access: flags.access } : {}),
    ...(flags.timeout !== undefined ? { timeoutMs: parseDuration('--timeout', flags.timeout) } : {}),
    ...(flags.budget !== undefined ? { budgetUsd: parseBudget(flags.budget) } : {}),
    ...(flags.overlap !== undefined ? { overlap: flags.overlap } : {}),
  };
}

/** `job add`. */
export async function jobAdd(flags: JobAddFlags, configFile?: string): Promise<number> {
  const fmt = format(flags.format);
  const webhook = flags.webhook !== undefined || flags.secretEnv !== undefined;
  const input: JobInput = {
    name: flags.name,
    ...(webhook ? { trigger: triggerOf(flags) } : {}),
    // --webhook sets --cron to '' (it stands in for it); a cron given too is refused by validation.
    ...(flags.cron ? { cron: flags.cron } : {}),
    prompt: flags.prompt,
    target: flags.target,
    ...optionalFields(flags),
    ...(flags.disabled ? { enabled: false } : {}),
  };
  const [job, http] = await withScheduler(configFile, async (s, _store, http) => [await s.add(input), http] as const);
  if (fmt === 'json') out(JSON.stringify(job, null, 2));
  else out(`added job ${job.id} (${whenText(job, http)}); a running gateway picks it up within a few seconds`);
  return 0;
}

/** `job edit <id>`: changes the given fields, validated as `job add` validates them. */
export async function jobEdit(id: string, flags: JobEditFlags, configFile?: string): Promise<number> {
  const fmt = format(flags.format);
  const patch: Partial<JobInput> = {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.cron !== undefined ? { cron: flags.cron } : {}),
    ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
    ...(flags.target !== undefined ? { target: flags.target } : {}),
    ...optionalFields(flags),
  };
  const webhook = flags.webhook !== undefined || flags.secretEnv !== undefined;
  if (!Object.keys(patch).length && !webhook)
    throw new UsageError(
      'job edit: nothing to change; give --cron, --webhook, --prompt, --target, --timezone, --model or --access',
    );
  const [job, http] = await withScheduler(configFile, async (s, _store, http) => {
    const trigger = webhook ? { trigger: triggerOf(flags, await s.get(id)) } : {};
    return [await s.update(id, { ...patch, ...trigger }), http] as const;
  });
  if (fmt === 'json') out(JSON.stringify(job, null, 2));
  else out(`updated job ${job.id} (${whenText(job, http)}); a running gateway picks it up within a few seconds`);
  return 0;
}

/** `job enable <id>` / `job disable <id>`. */
export async function jobSetEnabled(id: string, enabled: boolean, configFile?: string): Promise<number> {
  const job = await withScheduler(configFile, (s) => s.update(id, { enabled }));
  out(
    enabled
      ? `enabled job ${job.id} (next run ${nextRun(job)})`
      : `disabled job ${job.id}; it stays stored (boxbot job enable ${job.id} schedules it again)`,
  );
  return 0;
}

/** `job list`. */
export async function jobList(flags: { format?: string }, configFile?: string): Promise<number> {
  const fmt = format(flags.format);
  const [jobs, http] = await withScheduler(configFile, async (s, _store, http) => [await s.list(), http] as const);
  if (fmt === 'json')
    out(
      JSON.stringify(
        jobs.map((j) => (j.trigger ? { ...j, url: hookUrl(http, j.trigger.webhook) } : j)),
        null,
        2,
      ),
    );
  else if (!jobs.length) out('no jobs (add one with boxbot job add)');
  else
    out(
      table([
        ['ID', 'NAME', 'CRON', 'TARGET', 'ACCESS', 'NEXT RUN', 'LAST RUN'],
        ...jobs.map((j) => [
          j.id,
          j.name,
          // A webhook job shows its URL where a cron job shows its cron.
          j.trigger
            ? `POST ${hookUrl(http, j.trigger.webhook)}`
            : `${j.cron ?? ''}${j.timezone ? ` ${j.timezone}` : ''}`,
          j.target,
          j.access,
          nextRun(j),
          j.lastRunAt ?? '-',
        ]),
      ]),
    );
  return 0;
}

/** `job remove <id>`. */
export async function jobRemove(id: string, configFile?: string): Promise<number> {
  const removed = await withScheduler(configFile, (s) => s.remove(id));
  if (!removed) {
    process.stderr.write(`boxbot: no job ${JSON.stringify(id)} (see boxbot job list)\n`);
    return 1;
  }
  out(`removed job ${id}`);
  return 0;
}

/** `job run <id>`: runs here, prints the result; exit 1 if the run failed. */
export async function jobRun(id: string, flags: { format?: string }, configFile?: string): Promise<number> {
  const fmt = format(flags.format);
  const report = await withScheduler(configFile, async (s) => await (await s.runNow(id)).done);
  if (fmt === 'json') out(JSON.stringify({ ...report.entry, text: report.text, failed: report.failed }, null, 2));
  else {
    out(report.text);
    process.stderr.write(
      `(not delivered: boxbot job run runs the job here and prints the result; the running gateway posts scheduled ` +
        `runs to ${id}'s target)\n`,
    );
  }
  return report.failed ? 1 : 0;
}

/** `job logs <id>`. */
export async function jobLogs(
  id: string,
  flags: { format?: string; limit?: string },
  configFile?: string,
): Promise<number> {
  const fmt = format(flags.format);
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw new UsageError(`--limit: expected a whole number, got ${JSON.stringify(flags.limit)}`);
  const logs = await withScheduler(configFile, (s) => s.logs(id, limit));
  if (fmt === 'json') out(JSON.stringify(logs, null, 2));
  else if (!logs.length) out(`no runs of ${id} yet`);
  else {
    out(
      table([
        ['STARTED', 'FINISHED', 'OUTCOME', 'DELIVERED', 'COST', 'ERROR'],
        ...logs.map((l) => [
          l.startedAt,
          l.finishedAt,
          l.outcome,
          l.delivered ?? '-',
          `$${l.costUsd.toFixed(4)}`,
          l.error ?? '',
        ]),
      ]),
    );
  }
  return 0;
}
