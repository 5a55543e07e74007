// Token counts as an API reports them, checked. A server behind an OpenAI-compatible URL (or a
// proxy) may send a count that is missing, null, text or negative; NaN or a string would reach
// the cost ledger, and a NaN spend passes every budget check.

/** `v` when it is a finite, non-negative number of tokens; otherwise undefined. */
export function tokenCount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}
