// The dashboard's usage per day as chart series: the store's days (UsageStore.daily) turned into
// one series of numbers per channel, per user, per model and per conversation, the biggest
// spenders first and the long tail summed into one, so an answer stays small however many users
// and conversations spent.
import { platformOf } from '../adapters/index.ts';
import type { UsageDay, UsageTotals } from '../store/index.ts';

/** One subject's figures, one number per day of the span. */
export interface UsageSeries {
  costUsd: number[];
  /** Input plus output tokens. */
  tokens: number[];
  inputTokens: number[];
  outputTokens: number[];
  calls: number[];
}

/** Most subjects listed by name in one breakdown; the rest are summed under REST. */
export const SERIES_MAX = 100;
/** The name the subjects past SERIES_MAX are summed under. */
export const REST = '(all others)';

const empty = (n: number): UsageSeries => ({
  costUsd: Array(n).fill(0),
  tokens: Array(n).fill(0),
  inputTokens: Array(n).fill(0),
  outputTokens: Array(n).fill(0),
  calls: Array(n).fill(0),
});

function addAt(s: UsageSeries, i: number, t: UsageTotals): void {
  s.costUsd[i]! += t.costUsd;
  s.tokens[i]! += t.inputTokens + t.outputTokens;
  s.inputTokens[i]! += t.inputTokens;
  s.outputTokens[i]! += t.outputTokens;
  s.calls[i]! += t.calls;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Series by the name `nameOf` gives each entry of `pick(day)`, the biggest cost first (then the
 * most tokens, then by name); past SERIES_MAX the rest are summed under REST.
 */
function breakdown(
  days: UsageDay[],
  pick: (d: UsageDay) => Record<string, UsageTotals>,
  nameOf: (key: string) => string = (k) => k,
): { series: Record<string, UsageSeries>; cut: boolean } {
  const all = new Map<string, UsageSeries>();
  days.forEach((d, i) => {
    for (const [key, t] of Object.entries(pick(d))) {
      const name = nameOf(key);
      let s = all.get(name);
      if (!s) all.set(name, (s = empty(days.length)));
      addAt(s, i, t);
    }
  });
  const ranked = [...all].sort(
    ([an, a], [bn, b]) => sum(b.costUsd) - sum(a.costUsd) || sum(b.tokens) - sum(a.tokens) || an.localeCompare(bn),
  );
  const series = Object.fromEntries(ranked.slice(0, SERIES_MAX));
  const rest = ranked.slice(SERIES_MAX);
  if (rest.length) {
    const r = empty(days.length);
    for (const [, s] of rest)
      for (let i = 0; i < days.length; i++)
        addAt(r, i, {
          calls: s.calls[i]!,
          inputTokens: s.inputTokens[i]!,
          outputTokens: s.outputTokens[i]!,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: s.costUsd[i]!,
          unknownCostCalls: 0,
        });
    series[REST] = r;
  }
  return { series, cut: rest.length > 0 };
}

/** The per-day figures of `days` by channel (platform), user, model and conversation, with today's (the last day's). */
export function usageSeries(days: UsageDay[]) {
  const byChannel = breakdown(days, (d) => d.conversations, platformOf);
  const byUser = breakdown(days, (d) => d.users);
  const byModel = breakdown(days, (d) => d.models);
  const byConversation = breakdown(days, (d) => d.conversations);
  const last = days.at(-1);
  const today = Object.values(last?.conversations ?? {});
  return {
    byChannel: byChannel.series,
    byUser: byUser.series,
    byModel: byModel.series,
    conversations: Object.entries(byConversation.series).map(([key, s]) => ({ key, ...s })),
    today: {
      date: last?.day ?? null,
      costUsd: sum(today.map((t) => t.costUsd)),
      tokens: sum(today.map((t) => t.inputTokens + t.outputTokens)),
      calls: sum(today.map((t) => t.calls)),
    },
    /** Some users or conversations are summed under REST. */
    cut: byUser.cut || byConversation.cut,
  };
}
