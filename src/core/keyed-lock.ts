// The one "promise chain per key": async work on one key runs one after another in call order
// (a failure does not break the chain), different keys run in parallel. The store keys it by file
// path (read-modify-write cycles never interleave), the tool registry by tool file, the Discord
// adapter by channel (inbound order kept per channel).

/** A lock table: `run(key, fn)` runs `fn` after every earlier `fn` of the same key settled. */
export interface KeyedLock {
  run<R>(key: string, fn: () => Promise<R>): Promise<R>;
  /** Resolves once nothing is queued or running. */
  idle(): Promise<void>;
}

/** A new, empty lock table. */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<void>>();
  return {
    run(key, fn) {
      const prev = tails.get(key) ?? Promise.resolve();
      const result = prev.then(fn);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    async idle() {
      while (tails.size > 0) await Promise.all(tails.values());
    },
  };
}
