// Small statistics helpers for benchmarks.

/** The q-quantile (0..1) of `xs`. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

/** Rounds for printing. */
export const r2 = (x: number): number => Math.round(x * 100) / 100;

/** Milliseconds `f` takes. */
export async function timeMs(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

/**
 * Times each of `runs` once per round, `warmup + samples` rounds, keeping the last `samples`.
 * Interleaved, so load from others on the machine hits every series alike.
 */
export async function interleaved<K extends string>(
  runs: Record<K, () => Promise<unknown>>,
  warmup: number,
  samples: number,
): Promise<Record<K, number[]>> {
  const names = Object.keys(runs) as K[];
  const series = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < warmup + samples; i++) {
    for (const k of names) {
      const ms = await timeMs(runs[k]);
      if (i >= warmup) series[k].push(ms);
    }
  }
  return series;
}
