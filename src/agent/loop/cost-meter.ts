// Tokens and money of a session: each model call's usage is priced by the injected `costOf`
// (undefined = unknown, kept apart from known spending, never read as zero). A sub-agent's meter
// forwards to its parent's, so children count against the parent's budget. A call about to be made
// reserves its estimated cost first, so calls in flight at once cannot together pass a budget.
import type { Usage } from '../types.ts';
import type { CostFigures } from './types.ts';

/** Prices one call's usage in USD; undefined when the model's price is unknown. */
export type CostOf = (model: string, usage: Usage) => number | undefined;

/** Money held for one model call in flight, given back once the call is recorded (or failed). */
export interface Reservation {
  /** Gives it back (once; later calls do nothing). */
  release(): void;
}

/** Accumulates usage and cost; `limitUsd` is checked on the root meter. */
export interface CostMeter {
  /**
   * Holds the estimated cost of a model call about to be made, so that calls in flight at once (parallel
   * sub-agents, other runs sharing a daily budget) together stay within the limits; undefined when a
   * limit is already taken up and the call must not be made. Release it right after `add`.
   */
  reserve(model: string, estimate: Usage): Promise<Reservation | undefined>;
  /** Records one model call; without usage its cost is unknown. */
  add(model: string, usage: Usage | undefined): void;
  readonly usage: Usage;
  figures(): CostFigures;
  /** Known spending of the whole session (root) has reached the limit. */
  exceeded(): boolean;
  /** A meter whose calls also count here (for a sub-agent), with its own cap in USD if given. */
  child(limitUsd?: number): CostMeter;
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
  /**
   * Holds a call's estimated cost against the budgets shared with other runs until its charge
   * replaces it; undefined when one of them is taken up (spent plus held by calls in flight).
   * A job's worker asks the scheduler's ledger, hence the promise.
   */
  reserve?(estimateUsd: number): Reservation | undefined | Promise<Reservation | undefined>;
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
  // What this session's calls in flight hold against its own limit (parallel sub-agents).
  let heldUsd = 0;
  const meter: CostMeter & { record(model: string, usage: Usage, cost: number | undefined): void } = {
    get usage() {
      return usage;
    },
    async reserve(model, estimate) {
      // A child with its own cap (an executor's budget) is checked first, then everything above it.
      if (parent && (limitUsd === undefined || knownUsd < limitUsd)) return parent.reserve(model, estimate);
      if (parent) return undefined;
      const cost = costOf(model, estimate);
      // An unknown price reserves nothing (it is never read as zero spent either), but a budget
      // already taken up still refuses the call.
      const usd = cost !== undefined && Number.isFinite(cost) && cost > 0 ? cost : 0;
      // Checked and held here before the shared budgets are asked: parallel sub-agents waiting
      // for that answer see each other.
      if (limitUsd !== undefined && knownUsd + heldUsd >= limitUsd) return undefined;
      heldUsd += usd;
      const shared = hooks?.reserve ? await hooks.reserve(usd) : { release: () => {} };
      if (!shared) {
        heldUsd -= usd;
        return undefined;
      }
      let open = true;
      return {
        release() {
          if (!open) return;
          open = false;
          heldUsd -= usd;
          shared.release();
        },
      };
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
      (limitUsd !== undefined && knownUsd >= limitUsd) || (parent ? parent.exceeded() : !!hooks?.overBudget?.()),
    child: (childLimitUsd) => makeMeter(costOf, childLimitUsd, meter),
  };
  return meter;
}

/** The total in USD, or null when some call's cost is unknown. */
export function totalUsd(f: CostFigures): number | null {
  return f.unknownCalls > 0 ? null : Math.round(f.knownUsd * 1e6) / 1e6;
}
