// The decision after each model call, as one pure function over plain facts: the explicit
// next step instead of flags spread through the loop.
import type { FinishReason } from '../types.ts';
import type { NextStep } from './types.ts';

/** Continuations asked for after a reply cut off by the output limit. */
export const MAX_TOKEN_RECOVERIES = 3;

/** The facts the decision rests on. */
export interface StepFacts {
  aborted: 'cancelled' | 'timeout' | undefined;
  finish: FinishReason;
  toolCalls: number;
  /** Model calls made so far, this one included. */
  turns: number;
  maxTurns: number;
  /** Continuations already asked for in the current answer. */
  recoveries: number;
  budgetExceeded: boolean;
}

/** What the loop does next. */
export function nextStep(f: StepFacts): NextStep {
  if (f.aborted) return { type: f.aborted };
  const wantsMore = f.toolCalls > 0 || (f.finish === 'max-tokens' && f.recoveries < MAX_TOKEN_RECOVERIES);
  if (!wantsMore) return f.finish === 'max-tokens' ? { type: 'max-tokens' } : { type: 'final' };
  if (f.budgetExceeded) return { type: 'budget-exceeded' };
  if (f.turns >= f.maxTurns) return { type: 'max-turns' };
  return f.toolCalls > 0 ? { type: 'run-again' } : { type: 'recover-max-tokens', attempt: f.recoveries + 1 };
}
