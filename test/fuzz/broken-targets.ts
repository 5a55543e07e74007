// Targets that break the process the ways isolate.ts guards against (for its test).
import fc from 'fast-check';
import type { FuzzTarget } from './harness.ts';

const TARGETS: FuzzTarget<number>[] = [
  {
    name: 'loops on 7',
    input: fc.integer({ min: 0, max: 9 }),
    check(n) {
      while (n === 7) {}
    },
  },
  {
    name: 'fills memory on 7',
    input: fc.integer({ min: 0, max: 9 }),
    check(n) {
      const kept: number[][] = [];
      while (n === 7) kept.push(new Array(1e6).fill(n));
    },
  },
];

/** The broken target called `name`. */
export function targetNamed(name: string): FuzzTarget<never> {
  return TARGETS.find((t) => t.name === name)! as FuzzTarget<never>;
}
