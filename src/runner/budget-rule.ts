// The daily budget rule, one for chat turns and scheduled jobs: a run is charged to its
// conversation (and the channel of a thread) and to the person it runs for (the sender, or the
// job's creator); before every model call the call's estimate is held in the process's ledger
// unless a daily budget of the conversation's channel or of that person is taken up (spent today
// plus held by calls in flight). The chat runner and the scheduler both build their meter hooks
// here; only how a refusal is worded is theirs.
import type { MeterHooks, Reservation } from '../agent/loop/cost-meter.ts';
import type { Usage } from '../agent/types.ts';
import type { UsageSubject } from '../store/index.ts';
import type { ChargeWrite, DailyLimit, DailySpend } from './daily-spend.ts';
import type { Persist } from './persist.ts';
import { type Budget, budgetChannelOf } from './policy.ts';

/** Whom a run's spending is charged to: its conversation, and the person it runs for (if known). */
export interface Payer {
  conversationKey: string;
  /** `<platform>:<userId>` of the sender, or of the job's creator. */
  userKey?: string;
}

/** A daily limit taken up, with what counts toward it now. */
export interface TakenUp {
  limit: DailyLimit;
  /** Spent today (the store's figure and this process's charges). */
  spent: number;
  /** Held by model calls in flight in this process. */
  held: number;
}

/** One run's budget rule over the process's ledger. */
export interface BudgetRule {
  /** The daily limits that apply (conversation first, then the person's). */
  readonly limits: DailyLimit[];
  /** Reads today's spending of the limited subjects from the store (none without a budget). */
  prepare(): Promise<void>;
  /** Holds one model call's estimate, unless a limit is taken up (then nothing is held). */
  reserve(estimateUsd: number): Reservation | { refused: DailyLimit };
  /** The limits taken up now, in the order of `limits`. */
  takenUp(): TakenUp[];
  /** What a limit of this kind has left today by what is spent (calls in flight not counted); undefined: none. */
  left(kind: DailyLimit['kind']): number | undefined;
  /** Counts one model call now and queues its durable write through `persist`. */
  charge(model: string, usage: Usage, costUsd: number | undefined, persist: Persist): void;
  /** Resolves once every charge made through this rule so far is in the store's line (see ChargeWrite). */
  inLine(): Promise<void>;
  /** Resolves once every charge made through this rule so far is finished (see ChargeWrite). */
  flush(): Promise<void>;
}

/** The space of a conversation in a thread: its channel (absent for a conversation that is no thread). */
export function spaceOf(conversationKey: string): { spaceKey?: string } {
  const channel = budgetChannelOf(conversationKey);
  return channel === conversationKey ? {} : { spaceKey: channel };
}

/**
 * What a conversation budget counts (a channel-level setting covers all of the channel's threads):
 * the channel's own spending and its threads' (their space's).
 */
export function channelSubjects(conversationKey: string): UsageSubject[] {
  const channel = budgetChannelOf(conversationKey);
  return [{ conversationKey: channel }, { spaceKey: channel }];
}

/** The daily limits `budget` puts on the payer: its conversation's channel, then its person. */
export function dailyLimits(payer: Payer, budget: Budget | undefined): DailyLimit[] {
  const chat = budget?.conversationUsdPerDay;
  const user = budget?.userUsdPerDay;
  return [
    ...(chat !== undefined
      ? [{ kind: 'conversation' as const, subjects: channelSubjects(payer.conversationKey), usd: chat }]
      : []),
    ...(user !== undefined && payer.userKey !== undefined
      ? [{ kind: 'user' as const, subjects: [{ userKey: payer.userKey }], usd: user }]
      : []),
  ];
}

/** The subjects a model call is charged to (and holds its reservation against). */
export function chargedSubjects(payer: Payer): UsageSubject[] {
  const { spaceKey } = spaceOf(payer.conversationKey);
  return [
    { conversationKey: payer.conversationKey },
    ...(payer.userKey !== undefined ? [{ userKey: payer.userKey }] : []),
    ...(spaceKey ? [{ spaceKey }] : []),
  ];
}

/** The rule for one run of `payer` under `budget` (the daily budgets as its policy says). */
export function createBudgetRule(
  spend: DailySpend,
  payer: Payer,
  budget: Budget | undefined,
  now: () => number,
): BudgetRule {
  const limits = dailyLimits(payer, budget);
  const charged = chargedSubjects(payer);
  const writes: ChargeWrite[] = [];
  const sum = (subjects: UsageSubject[], of: (s: UsageSubject) => number) =>
    subjects.reduce((total, s) => total + of(s), 0);
  return {
    limits,
    async prepare() {
      const subjects = limits.flatMap((l) => l.subjects);
      if (subjects.length) await spend.prepare(subjects);
    },
    reserve: (estimateUsd) => spend.reserve(charged, estimateUsd, limits),
    takenUp() {
      const out: TakenUp[] = [];
      for (const limit of limits) {
        const spent = sum(limit.subjects, (s) => spend.today(s));
        const held = sum(limit.subjects, (s) => spend.reserved(s));
        if (spent + held >= limit.usd) out.push({ limit, spent, held });
      }
      return out;
    },
    left(kind) {
      const limit = limits.find((l) => l.kind === kind);
      return limit ? Math.max(0, limit.usd - sum(limit.subjects, (s) => spend.today(s))) : undefined;
    },
    charge(model, usage, costUsd, persist) {
      const w = spend.charge(
        {
          conversationKey: payer.conversationKey,
          ...spaceOf(payer.conversationKey),
          ...(payer.userKey !== undefined ? { userKey: payer.userKey } : {}),
          model,
          usage,
          ...(costUsd !== undefined ? { costUsd } : {}),
          at: new Date(now()).toISOString(),
        },
        persist,
      );
      writes.push(w);
    },
    // A run's own charges only: its turn never waits on another conversation's.
    inLine: async () => void (await Promise.all(writes.map((w) => w.inLine))),
    flush: async () => void (await Promise.all(writes.map((w) => w.written))),
  };
}

/** Meter hooks whose `reserve` answers at once (the ledger is in this process). */
export interface BudgetHooks extends MeterHooks {
  onCharge(model: string, usage: Usage, costUsd: number | undefined): void;
  overBudget(): boolean;
  reserve(estimateUsd: number): Reservation | undefined;
}

/**
 * The meter hooks of a run under `rule`: each model call charged as it is recorded, a call held
 * before it is made (refused when a daily limit is taken up: `onRefused` hears which), and the
 * run stopped after a call once a limit is taken up.
 */
export function budgetHooks(rule: BudgetRule, persist: Persist, onRefused?: (limit: DailyLimit) => void): BudgetHooks {
  return {
    onCharge: (model, usage, costUsd) => rule.charge(model, usage, costUsd, persist),
    overBudget: () => rule.takenUp().length > 0,
    reserve(estimateUsd) {
      const r = rule.reserve(estimateUsd);
      if (!('refused' in r)) return r;
      onRefused?.(r.refused);
      return undefined;
    },
  };
}
