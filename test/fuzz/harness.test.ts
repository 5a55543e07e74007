// The fuzz harness itself: it counts every crash instead of stopping at the first, shrinks the
// first to a minimal input with the same seed, and counts an input that never answers as a hang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type FuzzTarget, runTarget } from './harness.ts';
import { mutated } from './inputs.ts';

test('crashes are counted over the whole run and the first is shrunk to a minimal input', async () => {
  const target: FuzzTarget<string> = {
    name: 'throws on x',
    input: fc.string({ maxLength: 20, unit: fc.constantFrom('a', 'b', 'x') }),
    check(s) {
      if (s.includes('x')) throw new TypeError('saw an x');
    },
  };
  const r = await runTarget(target, { runs: 300, seed: 7 });
  assert.equal(r.runs, 300);
  assert.equal(r.hangs, 0);
  assert.ok(r.crashes > 1, `${r.crashes} crashes`);
  assert.ok(r.crashes < 300);
  assert.equal(r.findings.length, 3, 'the first three are kept');
  assert.match(r.findings[0]!.error, /^TypeError: saw an x/);
  assert.deepEqual(r.minimal, { kind: 'crash', input: '"x"', error: r.minimal?.error });
});

test('an input that keeps the CPU busy past the limit is a hang', async () => {
  const target: FuzzTarget<number> = {
    name: 'spins on 3',
    input: fc.integer({ min: 0, max: 5 }),
    check(n) {
      const cpu = process.cpuUsage();
      while (n === 3 && process.cpuUsage(cpu).user < 30_000) {}
    },
  };
  const r = await runTarget(target, { runs: 40, seed: 1, hangMs: 20 });
  assert.equal(r.runs, 40);
  assert.ok(r.hangs > 0);
  assert.equal(r.crashes, 0);
  assert.equal(r.minimal?.input, '3');
  assert.match(r.minimal?.error ?? '', /^took \d+ ms of CPU$/);
});

test('an input whose check never settles is a hang, and the run goes on', async () => {
  const target: FuzzTarget<number> = {
    name: 'never answers 3',
    input: fc.integer({ min: 0, max: 5 }),
    check: (n) => (n === 3 ? new Promise<void>(() => {}) : undefined),
  };
  const r = await runTarget(target, { runs: 40, seed: 1, hangMs: 20 });
  assert.equal(r.runs, 40);
  assert.equal(r.crashes, 0);
  assert.ok(r.hangs > 0);
  assert.equal(r.minimal?.input, '3');
  assert.equal(r.minimal?.error, 'no answer after 200 ms');
});

test('mutated payloads copy what they insert, so no generated value grows from run to run', () => {
  // fast-check hands out the same constant objects ([] and {} among the edge values) again and again:
  // a mutation that edited one in place made it grow with every run (and finally hold itself).
  const samples = fc.sample(mutated([{ a: [], b: { c: 1 } }], 4), { seed: 5, numRuns: 5000 });
  const longest = Math.max(...samples.map((s) => JSON.stringify(s).length));
  assert.ok(longest < 20_000, `a payload of ${longest} characters`);
});
