// The daily budget rule of a job's run: the one chat runs follow (runner/budget-rule.ts), with
// the job's target as the conversation and its creator as the person. The target's budget is its
// policy as the config says now; the creator's is theirs for their own messages there.
import { decodeConversationKey, decodeUserKey } from '../adapters/index.ts';
import type { Config } from '../config/schema.ts';
import { type BudgetRule, createBudgetRule } from '../runner/budget-rule.ts';
import type { DailySpend } from '../runner/daily-spend.ts';
import { conversationPolicy, resolvePolicy } from '../runner/policy.ts';
import type { JobRecord } from '../store/index.ts';

/**
 * The daily budget of the job's creator, as for their own messages in the target conversation
 * (their policy there; another platform's defaults for a job they made for elsewhere); undefined
 * when there is no creator (older jobs, CLI and API jobs) or no such budget.
 */
export function creatorBudget(config: Config, job: Pick<JobRecord, 'target' | 'createdBy'>): number | undefined {
  if (!job.createdBy) return undefined;
  const { platform, userId } = decodeUserKey(job.createdBy);
  const target = decodeConversationKey(job.target);
  const where =
    target.platform === platform
      ? { chatId: target.chatId, ...(target.threadId ? { threadId: target.threadId } : {}) }
      : { chatId: '' };
  return resolvePolicy(config, { platform, userId, ...where }).budget?.userUsdPerDay;
}

/**
 * The budget rule of a run of `job`: charged to the target conversation (its channel's too, for a
 * thread) and to the job's creator, held against the target's and the creator's daily budgets.
 */
export function jobBudgetRule(
  spend: DailySpend,
  config: Config,
  job: Pick<JobRecord, 'target' | 'createdBy'>,
  now: () => number,
): BudgetRule {
  const chatUsd = conversationPolicy(config, job.target).budget?.conversationUsdPerDay;
  const creatorUsd = creatorBudget(config, job);
  return createBudgetRule(
    spend,
    { conversationKey: job.target, ...(job.createdBy ? { userKey: job.createdBy } : {}) },
    {
      ...(chatUsd !== undefined ? { conversationUsdPerDay: chatUsd } : {}),
      ...(creatorUsd !== undefined ? { userUsdPerDay: creatorUsd } : {}),
    },
    now,
  );
}
