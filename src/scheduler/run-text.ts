// What a run posts to its target: the agent's answer, or a short notice saying why there is
// none (failure, timeout, spent budget, shutdown), so no run fails silently.
import { redactLine } from '../config/env.ts';
import { usd } from '../runner/usd.ts';
import type { JobRecord } from '../store/index.ts';
import type { BudgetLimit } from './run-budget.ts';

/** What a job's worker reports back for one run. */
export interface WorkerRunResult {
  outcome: string;
  text: string;
  error?: string;
  usage: RunUsage;
  costUsd: number;
  /** A digest's size and spending: what was read, in how many parts, under which token budget. */
  digest?: DigestReport;
}

/** What a digest run read and spent (kept in the job's run log). */
export interface DigestReport {
  messages: number;
  /** Parts summarised first (0: the history fit the model at once). */
  chunks: number;
  /** Tokens of history one model call may take. */
  tokenBudget: number;
  /** Estimated tokens of the whole history. */
  historyTokens: number;
}

/**
 * One model call as charged, under the model that answered it (the resolved one, a sub-agent's
 * own); a run's spending is recorded as these, each as the worker reports it.
 */
export interface RunCharge {
  model: string;
  usage: RunUsage;
  costUsd?: number;
}

/** Token counts of a run or of one model call. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** One line, without anything that looks like a credential or one of `secrets`. */
export const oneLine = redactLine;

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`);

/** The text to post for a run's result, and whether it is a failure notice. */
export function runText(
  job: Pick<JobRecord, 'name' | 'timeoutMs' | 'budgetUsd' | 'createdBy'>,
  result: WorkerRunResult,
  secrets: string[] = [],
  /** Which budget capped the run (see run-budget.ts): the one a `budget-exceeded` notice names. */
  limitedBy: BudgetLimit = 'job',
): { text: string; failed: boolean } {
  const label = `Scheduled job "${job.name}"`;
  const text = result.text.trim();
  switch (result.outcome) {
    case 'final':
      return text ? { text, failed: false } : { text: `${label} finished without an answer.`, failed: true };
    case 'max-turns':
      return text
        ? { text: `${text}\n\n(${label} stopped after too many steps.)`, failed: false }
        : { text: `${label} stopped after too many steps without an answer.`, failed: true };
    case 'max-tokens':
      return text
        ? { text: `${text}\n\n(The answer was cut off.)`, failed: false }
        : { text: `${label} produced no answer (output limit reached).`, failed: true };
    case 'timeout':
      return {
        text:
          `${label} timed out ` +
          `after ${seconds(job.timeoutMs)}${result.error ? `: ${oneLine(result.error, secrets)}` : ''}.`,
        failed: true,
      };
    case 'budget-exceeded': {
      // Nothing spent: the run never started (a daily budget was already spent), it was skipped.
      const spent = result.costUsd > 0 || result.usage.inputTokens + result.usage.outputTokens > 0;
      const stopped = `${label} ${spent ? 'stopped' : 'skipped'}:`;
      if (limitedBy === 'creator' && job.createdBy)
        return { text: `${stopped} the daily budget of ${job.createdBy}, who set it up, is spent.`, failed: true };
      if (limitedBy === 'conversation')
        return { text: `${stopped} this conversation’s daily budget is spent.`, failed: true };
      return {
        text: `${label} stopped: its budget${job.budgetUsd !== undefined ? ` of ${usd(job.budgetUsd)}` : ''} is spent.`,
        failed: true,
      };
    }
    case 'cancelled':
      return {
        text: `${label} was interrupted before it finished (boxbot stopped or the job was removed).`,
        failed: true,
      };
    default:
      return {
        text: `${label} failed: ${oneLine(result.error ?? 'unknown error', secrets) || 'unknown error'}`,
        failed: true,
      };
  }
}
