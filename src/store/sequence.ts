// Ordering for records that must come back in the order they were written: milliseconds since
// the epoch, bumped by one when two writes share a millisecond (or the clock steps back).

/** A strictly increasing counter seeded by the clock. */
export function createSequence(now: () => number): () => number {
  let last = 0;
  return () => (last = Math.max(now(), last + 1));
}
