// Money as people read it, in one place for the runner's and the scheduler's messages (a module of
// its own so that a job's text needs none of the agent runner's imports).

/** Dollars for people: cents, or more digits below one cent. */
export function usd(n: number): string {
  return n >= 0.01 || n === 0 ? `$${n.toFixed(2)}` : `$${n.toPrecision(2)}`;
}
