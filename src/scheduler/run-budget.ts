// Which budget caps a job's run, worked out once where the run starts: the job's own budget, what
// the target conversation's daily budget has left, or what its creator's daily budget has left.
// The worker gets only the resulting cap; the notice of a run stopped (or skipped) by a budget
// names the one that was the limit.

/** The budget that limits a run. */
export type BudgetLimit = 'job' | 'conversation' | 'creator';

/** A run's budget (absent: none applies) and which budget it comes from. */
export interface RunBudget {
  budgetUsd?: number;
  limitedBy: BudgetLimit;
}

/**
 * The smallest of the caps that apply. Ties go to the job's own budget (what its notice names is
 * then exactly what ran out), then to the creator's (a creator whose budget is spent is told so,
 * even when the conversation's happens to be spent too).
 */
export function runBudget(caps: { jobUsd?: number; conversationLeftUsd?: number; creatorLeftUsd?: number }): RunBudget {
  const order: [BudgetLimit, number | undefined][] = [
    ['job', caps.jobUsd],
    ['creator', caps.creatorLeftUsd],
    ['conversation', caps.conversationLeftUsd],
  ];
  let best: RunBudget = { limitedBy: 'job' };
  for (const [limitedBy, usd] of order)
    if (usd !== undefined && (best.budgetUsd === undefined || usd < best.budgetUsd))
      best = { budgetUsd: usd, limitedBy };
  return best;
}
