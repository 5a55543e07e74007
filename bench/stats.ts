// Small statistics helpers for benchmarks.

/** The q-quantile (0..1) of `xs`. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

/** Rounds for printing. */
export const r2 = (x: number): number => Math.round(x * 100) / 100;
