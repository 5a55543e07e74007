// One store contract case: a fresh harness of the backend under test, cleaned up whatever the case does.
import { test } from 'node:test';
import type { StoreHarness } from './contract.ts';

/** The `it` of a contract part: `${backend}: ${part}: ${name}`, each case on a fresh harness. */
export function harnessCases(
  backend: string,
  part: string,
  makeHarness: () => Promise<StoreHarness>,
): (name: string, fn: (h: StoreHarness) => Promise<void>) => void {
  return (name, fn) => {
    test(`${backend}: ${part}: ${name}`, async () => {
      const h = await makeHarness();
      try {
        await fn(h);
      } finally {
        await h.cleanup();
      }
    });
  };
}
