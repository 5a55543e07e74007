// Each budget the config and the jobs set, with what was spent under it today (UTC): the channel
// budgets (`budget.conversationUsdPerDay`, a channel with all its threads), the person budgets
// (`budget.userUsdPerDay`), each limit resolved by the runner's own policy rules, and each job's cap
// per run (`budgetUsd`) against its largest run today. The Usage page draws one bar per row.
import { decodeUserKey } from '../adapters/index.ts';
import type { Config } from '../config/schema.ts';
import { budgetChannelOf, conversationPolicy, resolvePolicy } from '../runner/policy.ts';
import type { JobLogEntry, JobRecord, UsageDay } from '../store/index.ts';

/** One budget with today's spending under it. */
export interface BudgetUse {
  /** `channel`: a channel's day; `user`: a person's day; `job`: one run of a job. */
  kind: 'channel' | 'user' | 'job';
  /** Where the limit is set: a config path (`channels.web.budget`), or `jobs.<name>.budgetUsd`. */
  source: string;
  /** Whom it limits: a channel's conversation key, a user key or a job's name; absent: nobody spent under it today. */
  subject?: string;
  limitUsd: number;
  /** Spent today (for a job: its largest run today). */
  spentUsd: number;
  per: 'day' | 'run';
  /** A job's runs today. */
  runs?: number;
}

type Field = 'conversationUsdPerDay' | 'userUsdPerDay';
type Obj = Record<string, unknown>;

const objAt = (root: unknown, path: string[]): Obj | undefined => {
  let at: unknown = root;
  for (const k of path) at = at && typeof at === 'object' ? (at as Obj)[k] : undefined;
  return at && typeof at === 'object' && !Array.isArray(at) ? (at as Obj) : undefined;
};

/**
 * The config path of the `budget` that sets `field` for a chat (and a user) on `platform`: the narrowest of the
 * user override, the chat override and the platform, as resolvePolicy applies them.
 */
function sourceOf(config: Config, platform: string, chatId: string, userId: string | undefined, field: Field) {
  const p = ['channels', platform];
  const table = objAt(config, [...p, 'chats']) ? 'chats' : 'channels';
  const levels = [...(userId ? [[...p, 'users', userId]] : []), [...p, table, chatId], p];
  const hit = levels.find((path) => typeof objAt(config, [...path, 'budget'])?.[field] === 'number');
  return hit ? [...hit, 'budget'].join('.') : 'config';
}

/** The channel budgets with today's spending of the channels that spent. */
function channelRows(config: Config, today: UsageDay | undefined): BudgetUse[] {
  const spent = new Map<string, number>();
  for (const [key, t] of Object.entries(today?.conversations ?? {})) {
    let channel: string;
    try {
      channel = budgetChannelOf(key);
    } catch {
      continue; // a key no platform speaks (a hand-edited store) has no policy
    }
    spent.set(channel, (spent.get(channel) ?? 0) + t.costUsd);
  }
  return [...spent].flatMap(([channel, spentUsd]) => {
    const policy = conversationPolicy(config, channel);
    const limitUsd = policy.budget?.conversationUsdPerDay;
    if (limitUsd === undefined) return [];
    const [platform, ...rest] = channel.split(':');
    // The chat override's key is the chat id: the last part of a channel key (`slack:T1:C9` → C9).
    const source = sourceOf(config, platform!, rest.at(-1) ?? '', undefined, 'conversationUsdPerDay');
    return [{ kind: 'channel' as const, source, subject: channel, limitUsd, spentUsd, per: 'day' as const }];
  });
}

/** The person budgets with today's spending of the people who spent (as in their private chat with the bot). */
function userRows(config: Config, today: UsageDay | undefined): BudgetUse[] {
  return Object.entries(today?.users ?? {}).flatMap(([key, t]) => {
    let who: ReturnType<typeof decodeUserKey>;
    try {
      who = decodeUserKey(key);
    } catch {
      return [];
    }
    const policy = resolvePolicy(config, { platform: who.platform, chatId: who.userId, userId: who.userId });
    const limitUsd = policy.budget?.userUsdPerDay;
    if (limitUsd === undefined) return [];
    const source = sourceOf(config, who.platform, who.userId, who.userId, 'userUsdPerDay');
    return [{ kind: 'user' as const, source, subject: key, limitUsd, spentUsd: t.costUsd, per: 'day' as const }];
  });
}

/** Every `budget` in the config that nobody spent under today, as a row with nothing spent. */
function idleRows(rows: BudgetUse[], found: { path: string; budget: unknown }[]): BudgetUse[] {
  return found.flatMap(({ path, budget }) => {
    const b = (budget ?? {}) as Partial<Record<Field, unknown>>;
    const pairs: [Field, BudgetUse['kind']][] = [
      ['conversationUsdPerDay', 'channel'],
      ['userUsdPerDay', 'user'],
    ];
    return pairs.flatMap(([field, kind]) => {
      const limitUsd = b[field];
      if (typeof limitUsd !== 'number' || rows.some((r) => r.kind === kind && r.source === path)) return [];
      return [{ kind, source: path, limitUsd, spentUsd: 0, per: 'day' as const }];
    });
  });
}

/** Each job's cap per run against its largest run today. */
export function jobRows(jobs: { job: JobRecord; logs: JobLogEntry[] }[], day: string): BudgetUse[] {
  return jobs.flatMap(({ job, logs }) => {
    if (job.budgetUsd === undefined) return [];
    const runs = logs.filter((l) => l.startedAt.slice(0, 10) === day);
    const spentUsd = Math.max(0, ...runs.map((l) => l.costUsd));
    return [
      {
        kind: 'job' as const,
        source: `jobs.${job.name}.budgetUsd`,
        subject: job.name,
        limitUsd: job.budgetUsd,
        spentUsd,
        per: 'run' as const,
        runs: runs.length,
      },
    ];
  });
}

/**
 * The config's daily budgets with today's spending under each: one row per channel or person that
 * spent today under a limit, and one per `budget` setting nobody spent under; fullest first.
 */
export function budgetUse(
  config: Config,
  today: UsageDay | undefined,
  configured: { path: string; budget: unknown }[],
): BudgetUse[] {
  const rows = [...channelRows(config, today), ...userRows(config, today)];
  return [...rows, ...idleRows(rows, configured)].sort(
    (a, b) => b.spentUsd / (b.limitUsd || 1e-9) - a.spentUsd / (a.limitUsd || 1e-9),
  );
}
