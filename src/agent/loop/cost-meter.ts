// Tokens and money of a session: each model call's usage is priced by the injected `costOf`
// (undefined = unknown, kept apart from known spending, never read as zero). A sub-agent's meter
// forwards to its parent's, so children count against the parent's budget.
import type { Usage } from '../types.ts';
import type { CostFigures } from './types.ts';

/** Prices one call's usage in USD; undefined when the model's price is unknown. */
export type CostOf = (model: string, usage: Usage) => number | undefined;

/** Accumulates usage and cost; `limitUsd` is checked on the root meter. */
export interface CostMeter {
  /** Records one model call; without usage its cost is unknown. */
  add(model: string, usage: Usage | undefined): void;
  readonly usage: Usage;
  figures(): CostFigures;
  /** Known spending of the whole session (root) has reached the limit. */
  exceeded(): boolean;
  /** A meter whose calls also count here (for a sub-agent). */
  child(): CostMeter;
}

/** Sums two usages; optional cache fields stay absent unless one side has them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined)
    out.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined)
    out.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  return out;
}

/** What a root meter reports to and consults beyond its own limit (durable usage, daily budgets). */
export interface MeterHooks {
  /** Every model call of the session, children's included, as it is recorded. */
  onCharge?(model: string, usage: Usage, costUsd: number | undefined): void;
  /** Spending outside this session (today's, in the store) has reached a limit. */
  overBudget?(): boolean;
}

/** Creates a root meter. */
export function createCostMeter(costOf: CostOf, limitUsd?: number, hooks?: MeterHooks): CostMeter {
  return makeMeter(costOf, limitUsd, undefined, hooks);
}

function makeMeter(
  costOf: CostOf,
  limitUsd: number | undefined,
  parent: CostMeter | undefined,
  hooks?: MeterHooks,
): CostMeter {
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let knownUsd = 0;
  let unknownCalls = 0;
  const meter: CostMeter & { record(model: string, usage: Usage, cost: number | undefined): void } = {
    get usage() {
      return usage;
    },
    add(model, u) {
      meter.record(model, u ?? { inputTokens: 0, outputTokens: 0 }, u ? costOf(model, u) : undefined);
    },
    record(_model, u, cost) {
      usage = addUsage(usage, u);
      if (cost === undefined || !Number.isFinite(cost)) unknownCalls++;
      else knownUsd += cost;
      if (parent) (parent as typeof meter).record(_model, u, cost);
      else hooks?.onCharge?.(_model, u, cost === undefined || !Number.isFinite(cost) ? undefined : cost);
    },
    figures: () => ({ knownUsd, unknownCalls, ...(limitUsd !== undefined ? { limitUsd } : {}) }),
    exceeded: () =>
      parent ? parent.exceeded() : (limitUsd !== undefined && knownUsd >= limitUsd) || !!hooks?.overBudget?.(),
    child: () => makeMeter(costOf, undefined, meter),
  };
  return meter;
}

/** The total in USD, or null when some call's cost is unknown. */
export function totalUsd(f: CostFigures): number | null {
  return f.unknownCalls > 0 ? null : Math.round(f.knownUsd * 1e6) / 1e6;
}
