// Checks a job definition before it is stored: every refusal names the field and says what
// was expected. Cron patterns go through Bree's own validator, so what passes here schedules.
import Bree from 'bree';
import { decodeConversationKey, decodeUserKey } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import { type JobRecord, type JobStore, type JobTrigger, jobPolicySchema } from '../store/index.ts';
import { CRON_MACROS, cronFields, isTimeZone, nextOccurrence, standardCron } from './cron.ts';
import { JobValidationError } from './errors.ts';
import type { JobInput, TargetCheck } from './types.ts';

/** Default whole-run limit of a job (5 minutes). */
export const DEFAULT_JOB_TIMEOUT_MS = 300_000;
const MAX_TIMEOUT_MS = 24 * 3600_000;
const ACCESS = ['full', 'read-only', 'chat-only'] as const;
const OVERLAP = ['skip', 'queue'] as const;

let validator: Bree | undefined;
const noop = function scheduledJob(): void {};

/** The quick checks of a cron expression (present, 5 or 6 fields); returns it normalized. */
function checkCronShape(expr: unknown): string {
  if (typeof expr !== 'string' || !expr.trim())
    throw new JobValidationError('cron', 'expected a cron expression such as "0 9 * * 1-5" or @daily');
  const cron = expr.trim().replace(/\s+/g, ' ');
  if (cron.startsWith('@') && cronFields(cron) === 1)
    throw new JobValidationError('cron', `unknown macro "${cron}"; expected one of ${CRON_MACROS.join(' ')}`);
  const n = cronFields(cron);
  if (n !== 5 && n !== 6) {
    throw new JobValidationError(
      'cron',
      `"${cron}" has ${n} field${n === 1 ? '' : 's'}; expected 5 (minute hour day month weekday) or 6 (second first)`,
    );
  }
  return cron;
}

/** Refuses a cron expression Bree would not schedule (or that never fires); returns it normalized. */
export async function validateCron(expr: unknown): Promise<string> {
  const cron = checkCronShape(expr);
  validator ??= new Bree({ root: false, doRootCheck: false, logger: false });
  try {
    await validator.validateJob(
      // Bree is given the translated form, exactly as bree-jobs schedules it.
      { name: 'cron-check', path: noop, cron: standardCron(cron), hasSeconds: cronFields(cron) === 6 },
      0,
      [],
      validator.config,
    );
  } catch (e) {
    const reasons = String(errorMessage(e))
      .split('\n')
      .map((l) =>
        l
          .replace(/^.*had an invalid cron pattern: /, '')
          .replace(/\s*\(Input cron: .*\)\s*$/, '')
          .trim(),
      )
      .filter(Boolean);
    throw new JobValidationError(
      'cron',
      `"${cron}" is not a valid cron expression: ${reasons.join('; ') || 'rejected'}`,
    );
  }
  let next: Date | undefined;
  try {
    next = nextOccurrence(cron, new Date());
  } catch (e) {
    throw new JobValidationError('cron', `"${cron}" is not a valid cron expression: ${errorMessage(e)}`);
  }
  if (!next || next.getFullYear() > new Date().getFullYear() + 10)
    throw new JobValidationError('cron', `"${cron}" never fires`);
  return cron;
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new JobValidationError(
    field,
    `expected ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}, got ${JSON.stringify(value)}`,
  );
}

/** Refuses a target that is not a conversation key, or that `isKnownTarget` rejects. */
export function checkTarget(target: unknown, isKnownTarget?: TargetCheck): string {
  if (typeof target !== 'string' || !target.trim())
    throw new JobValidationError('target', 'expected a conversation key such as telegram:-100123 or slack:T01:C02');
  const key = target.trim();
  let platform: string;
  try {
    platform = decodeConversationKey(key).platform;
  } catch (e) {
    throw new JobValidationError('target', errorMessage(e));
  }
  if (platform === 'terminal')
    throw new JobValidationError('target', `${key} is a terminal session; scheduled jobs post to chat channels`);
  const known = isKnownTarget ? isKnownTarget(key) : true;
  if (known !== true) throw new JobValidationError('target', known);
  return key;
}

function positive(field: string, value: unknown, opts: { integer?: boolean; max?: number } = {}): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || (opts.integer && !Number.isInteger(n))) {
    throw new JobValidationError(
      field,
      `expected a positive ${opts.integer ? 'whole ' : ''}number, got ${JSON.stringify(value)}`,
    );
  }
  if (opts.max !== undefined && n > opts.max) throw new JobValidationError(field, `at most ${opts.max}, got ${n}`);
  return n;
}

function text(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || !value.trim()) throw new JobValidationError(field, 'expected a non-empty text');
  if (value.length > max) throw new JobValidationError(field, `at most ${max} characters, got ${value.length}`);
  return value.trim();
}

/** Whether `text` is a user key on a platform boxbot speaks (`telegram:4242`). */
function isUserKey(text: string): boolean {
  try {
    decodeUserKey(text);
    return true;
  } catch {
    return false;
  }
}

const HOOK_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Refuses a webhook trigger that is not `{webhook: <name>, secretEnv: <VARIABLE>}`; returns it trimmed. */
export function checkTrigger(trigger: unknown): JobTrigger {
  if (typeof trigger !== 'object' || trigger === null || Array.isArray(trigger))
    throw new JobValidationError('trigger', 'expected {"webhook": "<name>", "secretEnv": "<VARIABLE>"}');
  const { webhook, secretEnv } = trigger as Record<string, unknown>;
  if (typeof webhook !== 'string' || !HOOK_NAME.test(webhook.trim()))
    throw new JobValidationError(
      'webhook',
      `expected a hook name of a-z, 0-9, - and _ (at most 64, e.g. github-push), got ${JSON.stringify(webhook)}`,
    );
  if (typeof secretEnv !== 'string' || !ENV_NAME.test(secretEnv.trim()))
    throw new JobValidationError(
      'secretEnv',
      `expected the name of the environment variable holding the hook's secret (e.g. GITHUB_WEBHOOK_SECRET), got ${
        typeof secretEnv === 'string' ? JSON.stringify(secretEnv) : 'nothing'
      }`,
    );
  return { webhook: webhook.trim(), secretEnv: secretEnv.trim() };
}

/**
 * `current` with `patch` applied, as one input to validate: a patch giving a cron drops the
 * webhook trigger and one giving a trigger drops the cron (a job has one of them).
 */
export function mergeJob(current: JobRecord, patch: Partial<JobInput>): JobInput {
  const { cron, trigger, ...rest } = current;
  const keepCron = cron !== undefined && !(patch.trigger !== undefined && patch.cron === undefined);
  const keepTrigger = trigger !== undefined && !(patch.cron !== undefined && patch.trigger === undefined);
  return { ...rest, ...(keepCron ? { cron } : {}), ...(keepTrigger ? { trigger } : {}), ...patch };
}

/** Refuses `job` when another job already answers its webhook (one URL starts one job). */
export async function checkHookFree(jobs: Pick<JobStore, 'list'>, job: JobRecord): Promise<void> {
  const hook = job.trigger?.webhook;
  if (!hook) return;
  const other = (await jobs.list()).find((j) => j.id !== job.id && j.trigger?.webhook === hook);
  if (other) throw new JobValidationError('webhook', `the hook "${hook}" already starts job ${other.id}`);
}

/** The job fields of `input`, checked and with defaults; throws JobValidationError naming the field. */
export async function validateJobInput(
  input: JobInput,
  isKnownTarget?: TargetCheck,
): Promise<Omit<JobRecord, 'id' | 'createdAt' | 'lastRunAt'>> {
  const name = text('name', input.name, 100);
  const hasCron = input.cron !== undefined && input.cron !== null && input.cron !== '';
  const hasTrigger = input.trigger !== undefined && input.trigger !== null;
  if (hasCron && hasTrigger) throw new JobValidationError('trigger', 'a job has a cron or a webhook trigger, not both');
  // A job without either is asked for its cron, as before webhook triggers existed.
  const trigger = hasTrigger ? checkTrigger(input.trigger) : undefined;
  const cron = trigger ? undefined : await validateCron(input.cron);
  const prompt = text('prompt', input.prompt, 20_000);
  const target = checkTarget(input.target, isKnownTarget);
  if (
    input.timezone !== undefined &&
    input.timezone !== '' &&
    (typeof input.timezone !== 'string' || !isTimeZone(input.timezone))
  ) {
    throw new JobValidationError(
      'timezone',
      `unknown time zone ${JSON.stringify(input.timezone)}; use an IANA name such as Europe/Berlin or UTC`,
    );
  }
  if (
    input.model !== undefined &&
    input.model !== '' &&
    (typeof input.model !== 'string' || !/^[^/\s]+\/\S+$/.test(input.model))
  ) {
    throw new JobValidationError(
      'model',
      `expected provider/model such as anthropic/claude-sonnet-5-5, got ${JSON.stringify(input.model)}`,
    );
  }
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean')
    throw new JobValidationError('enabled', `expected true or false, got ${JSON.stringify(input.enabled)}`);
  const budgetUsd = positive('budgetUsd', input.budgetUsd);
  if (input.createdBy !== undefined && (typeof input.createdBy !== 'string' || !isUserKey(input.createdBy)))
    throw new JobValidationError(
      'createdBy',
      `expected a platform user such as telegram:4242, got ${JSON.stringify(input.createdBy)}`,
    );
  if (input.untrusted !== undefined && typeof input.untrusted !== 'string')
    throw new JobValidationError('untrusted', `expected text, got ${JSON.stringify(input.untrusted)}`);
  let policy: JobRecord['policy'];
  if (input.policy !== undefined && input.policy !== null) {
    const parsed = jobPolicySchema.safeParse(input.policy);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = `${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`;
      throw new JobValidationError('policy', `expected {access, tools, network, model?, models?}: ${where}`.trim());
    }
    policy = parsed.data as JobRecord['policy'];
  }
  return {
    name,
    ...(cron ? { cron } : {}),
    ...(trigger ? { trigger } : {}),
    prompt,
    target,
    ...(input.timezone ? { timezone: input.timezone } : {}),
    ...(input.model ? { model: input.model } : {}),
    access: oneOf('access', input.access, ACCESS, 'read-only'),
    timeoutMs: positive('timeoutMs', input.timeoutMs, { integer: true, max: MAX_TIMEOUT_MS }) ?? DEFAULT_JOB_TIMEOUT_MS,
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    enabled: input.enabled ?? true,
    // An event is not dropped while the previous one's run goes on: webhook jobs queue by default.
    overlap: oneOf('overlap', input.overlap, OVERLAP, trigger ? 'queue' : 'skip'),
    ...(policy ? { policy } : {}),
    ...(input.createdBy ? { createdBy: input.createdBy } : {}),
    ...(input.untrusted ? { untrusted: input.untrusted } : {}),
  };
}

/** A readable, unique job id from its name: `daily-digest-3f9a2c`. */
export function newJobId(name: string): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 30)
      .replace(/-+$/, '') || 'job';
  return `${slug === 'index' ? 'job-index' : slug}-${Math.random().toString(16).slice(2, 8).padEnd(6, '0')}`;
}
