// Every fuzz target over 200 inputs from a fixed seed, in process: the harness and each target's
// generators and checks work, and what the full run (`npm run fuzz`, 100,000 each) found stays
// fixed for the inputs this seed makes. The recorded, unmutated payloads pass every check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runTarget } from './harness.ts';
import { TARGETS } from './targets/index.ts';

describe('fuzz targets, 200 inputs each (seed 20261127)', () => {
  for (const target of TARGETS) {
    it(target.name, async () => {
      const r = await runTarget(target, { runs: 200, seed: 20261127, hangMs: 10_000 });
      assert.equal(r.runs, 200);
      assert.deepEqual(r.findings, []);
      assert.equal(r.crashes + r.hangs, 0);
    });
  }
});
