// The built-in `schedule` tool: lets a chat user create, list and remove scheduled jobs ("every
// weekday at 9 post a digest of this channel here"). Level Write, so only `full` access sees it.
// Rule: a job targets the current conversation; only admins may target another one, list all
// jobs or remove jobs of other conversations. A job made here fires at most every few minutes
// (read from its fire times) and one conversation holds a bounded number of them: a model's
// invention never posts every few seconds or fills the scheduler.
import { encodeUserKey, platformOf } from '../adapters/index.ts';
import type { BuiltinResult, BuiltinTool } from '../agent/index.ts';
import { BoxbotError } from '../core/errors.ts';
import { createKeyedLock, type KeyedLock } from '../core/keyed-lock.ts';
import { lowerAccess } from '../runner/policy.ts';
import { nextRunText, shortestGapMs } from './cron.ts';
import type { Scheduler } from './scheduler.ts';
import type { JobPolicy, JobRecord } from './types.ts';
import { validateCron } from './validate.ts';

/** What jobs made from chat may do (config `scheduler.chatJobs`). */
export interface ChatJobLimits {
  /** Shortest time between two runs, in minutes. */
  minIntervalMinutes: number;
  /** Jobs made from chat that target one conversation, at most. */
  maxPerConversation: number;
}

/** The limits unless configured (the config's defaults). */
export const DEFAULT_CHAT_JOB_LIMITS: ChatJobLimits = { minIntervalMinutes: 5, maxPerConversation: 10 };

// Creations per target conversation, one at a time across the tool's instances (each run gets its
// own): two parallel calls never both see room for one more job.
const creating = new WeakMap<Scheduler, KeyedLock>();

/** Who is asking, and where. */
export interface ScheduleToolContext {
  /** The conversation the tool is called from (the default target). */
  conversationKey: string;
  /** The platform user id of the person talking. */
  userId: string;
  /**
   * Who is talking as a user key, when it is not `<platform>:<userId>` (a web chat browser signed in
   * from chat as `telegram:4242`): the job's creator, whose budget and rights it is held to.
   */
  userKey?: string;
  /** Admin user ids (`4242` or `telegram:4242`); admins may target any conversation. */
  admins?: string[];
  /**
   * The conversation's resolved policy. A job created here carries it (its access capped at this
   * one), so a run can never do more than the conversation that scheduled it.
   */
  policy?: JobPolicy;
  /** How often jobs made here may fire and how many a conversation may have; default DEFAULT_CHAT_JOB_LIMITS. */
  chatJobs?: ChatJobLimits;
}

/** A duration for people: `6 seconds`, `1 minute`, `2.5 minutes`. */
function spoken(ms: number): string {
  const [n, unit] = ms < 60_000 ? [ms / 1000, 'second'] : [ms / 60_000, 'minute'];
  const shown = Number(n.toFixed(2));
  return `${shown} ${unit}${shown === 1 ? '' : 's'}`;
}

/** The fields of a resolved policy a job keeps (not who may talk or the prompt). */
function jobPolicyOf(p: JobPolicy): JobPolicy {
  return {
    access: p.access,
    tools: {
      ...(p.tools.allow ? { allow: [...p.tools.allow] } : {}),
      ...(p.tools.deny ? { deny: [...p.tools.deny] } : {}),
    },
    network: { allow: [...p.network.allow] },
    ...(p.model ? { model: p.model } : {}),
    ...(p.models ? { models: [...p.models] } : {}),
    ...(p.approvals ? { approvals: structuredClone(p.approvals) } : {}),
  };
}

const DESCRIPTION = [
  'Create, list or remove scheduled jobs: at each cron time a fresh agent runs the prompt and its answer is posted' +
    ' to the target conversation.',
  'cron has 5 fields: minute hour day-of-month month day-of-week (0 or 7 = Sunday), e.g. "0 9 * * 1-5" or' +
    ' "0 9 * * MON-FRI" = weekdays at 9:00 (@daily, @hourly, @weekly also work); give timezone (IANA, e.g.' +
    ' Europe/Berlin) when the user names one.',
  'For a digest of the conversation, use the prompt "/daily-digest" (optionally followed by the period, e.g.' +
    ' "/daily-digest the last week"); a prompt may also contain {{history}} for the conversation\'s recent messages.',
  'Rules: the target is this conversation unless the user is an admin; users see and remove only the jobs of this' +
    ' conversation. Jobs run read-only unless access says otherwise, and never with more access or tools than this' +
    ' conversation has.',
].join(' ');

const ok = (content: string): BuiltinResult => ({ content, isError: false });
const refuse = (content: string): BuiltinResult => ({ content, isError: true });

function describe(job: JobRecord, here: string): string {
  const where = job.target === here ? 'this conversation' : job.target;
  const zone = job.timezone ? ` (${job.timezone})` : '';
  const when = job.enabled ? `next run ${nextRunText(job)}` : 'disabled';
  const prompt = job.prompt.length > 120 ? `${job.prompt.slice(0, 117)}...` : job.prompt;
  const starts = job.cron ?? `webhook ${job.trigger?.webhook ?? '?'}`;
  return `${job.id} "${job.name}": ${starts}${zone} → ${where}; ${when}; prompt: ${prompt}`;
}

/** The `schedule` tool for one conversation and user. */
export function createScheduleTool(scheduler: Scheduler, ctx: ScheduleToolContext): BuiltinTool {
  const userKey = ctx.userKey ?? encodeUserKey({ platform: platformOf(ctx.conversationKey), userId: ctx.userId });
  const admin = (ctx.admins ?? []).some((a) => a === ctx.userId || a === userKey);
  const mine = (job: JobRecord) => admin || job.target === ctx.conversationKey;
  const limits = ctx.chatJobs ?? DEFAULT_CHAT_JOB_LIMITS;
  return {
    name: 'schedule',
    description:
      `${DESCRIPTION} A job made here runs at most every ${spoken(limits.minIntervalMinutes * 60_000)}, and a ` +
      `conversation has at most ${limits.maxPerConversation} of them.`,
    permissionLevel: 'Write',
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['create', 'list', 'remove'], description: 'What to do' },
        name: { type: 'string', description: 'create: a short name for the job' },
        cron: { type: 'string', description: 'create: when to run, 5 cron fields' },
        prompt: { type: 'string', description: 'create: what the agent does at each run; its answer is posted' },
        timezone: { type: 'string', description: "create: IANA time zone of the cron times (default: the server's)" },
        target: {
          type: 'string',
          description: 'create: conversation key to post to (default: this conversation; others need an admin)',
        },
        access: {
          type: 'string',
          enum: ['read-only', 'chat-only', 'full'],
          description: 'create: tool access of the runs (default read-only)',
        },
        id: { type: 'string', description: 'remove: the job id (from list)' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    async run(input, call) {
      const str = (k: string) =>
        typeof input[k] === 'string' && (input[k] as string).trim() ? (input[k] as string).trim() : undefined;
      try {
        switch (input.action) {
          case 'create': {
            const target = str('target') ?? ctx.conversationKey;
            if (target !== ctx.conversationKey && !admin) {
              return refuse(
                `only admins may schedule posts to another conversation; this job can only target this conversation ` +
                  `(${ctx.conversationKey})`,
              );
            }
            const cron = str('cron');
            const prompt = str('prompt');
            if (!cron || !prompt) return refuse('create needs cron and prompt');
            const asked = str('access');
            if (asked !== undefined && !['full', 'read-only', 'chat-only'].includes(asked))
              return refuse('access must be read-only, chat-only or full');
            const access = ctx.policy
              ? lowerAccess((asked ?? 'read-only') as JobPolicy['access'], ctx.policy.access)
              : asked;
            // The validator's words for an expression that is not one; then how often it fires.
            const gap = shortestGapMs(await validateCron(cron));
            const minMs = limits.minIntervalMinutes * 60_000;
            if (gap !== undefined && gap < minMs)
              return refuse(
                `"${cron}" runs every ${spoken(gap)} at times; jobs made from chat may run at most every ` +
                  `${spoken(minMs)} (scheduler.chatJobs.minIntervalMinutes); choose a less frequent schedule`,
              );
            let lock = creating.get(scheduler);
            if (!lock) creating.set(scheduler, (lock = createKeyedLock()));
            const made = await lock.run(target, async () => {
              const count = (await scheduler.list()).filter((j) => j.target === target && j.createdBy).length;
              if (count >= limits.maxPerConversation) return { count };
              const job = await scheduler.add({
                name: str('name') ?? prompt.slice(0, 40),
                cron,
                prompt,
                target,
                ...(str('timezone') ? { timezone: str('timezone')! } : {}),
                ...(access ? { access } : {}),
                ...(ctx.policy ? { policy: jobPolicyOf(ctx.policy) } : {}),
                createdBy: userKey,
                // A prompt the model wrote after reading untrusted content may carry it into every run.
                ...(call.untrusted?.length ? { untrusted: call.untrusted.join('; ') } : {}),
              });
              return { count, job };
            });
            const job = made.job;
            if (!job)
              return refuse(
                `${target === ctx.conversationKey ? 'this conversation' : target} already has ${made.count} jobs ` +
                  `made from chat; at most ${limits.maxPerConversation} are allowed ` +
                  '(scheduler.chatJobs.maxPerConversation); remove one first (list, then remove)',
              );
            const capped =
              asked && access !== asked
                ? ` It runs ${access}, as this conversation is (jobs never get more access than the conversation ` +
                  `that schedules them).`
                : '';
            return ok(`Scheduled. ${describe(job, ctx.conversationKey)}${capped}`);
          }
          case 'list': {
            const jobs = (await scheduler.list()).filter(mine);
            if (!jobs.length)
              return ok(admin ? 'There are no scheduled jobs.' : 'No jobs are scheduled for this conversation.');
            return ok(jobs.map((j) => describe(j, ctx.conversationKey)).join('\n'));
          }
          case 'remove': {
            const id = str('id');
            if (!id) return refuse('remove needs the job id (see list)');
            const job = await scheduler.get(id);
            if (!job || !mine(job)) return refuse(`there is no job ${JSON.stringify(id)} for this conversation`);
            await scheduler.remove(id);
            return ok(`Removed job ${id} "${job.name}".`);
          }
          default:
            return refuse('action must be create, list or remove');
        }
      } catch (e) {
        if (e instanceof BoxbotError) return refuse(e.message);
        throw e;
      }
    },
  };
}
