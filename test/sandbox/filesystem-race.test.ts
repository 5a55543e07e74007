// A concurrent directory/symlink swap, attacked from a real wasm guest (test/guests/fs-probe.js),
// never lets a read through to the outside. A file of its own (it was the last test of
// filesystem.test.ts): its reads get the whole file limit on a busy machine, and run beside the
// other filesystem tests rather than after them.
// 25,000 reads (there were 100,000): this file proves the race through a real guest and the
// component glue; the host's own race test (test/sandbox/fs/race.test.ts) makes 50,000 attempts on
// the same host code. The attacker spins a core for as long as the reads last (most of the file's
// CPU time); each run still meets both outcomes thousands of times, which the asserts require.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, tempDir, text } from '../helpers.ts';

const READS = 25_000;

describe('sandbox: filesystem', () => {
  let sandbox: Sandbox;
  let outside: string;

  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 2 });
    outside = tempDir('boxbot-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET\n');
  });
  after(() => sandbox.close());

  it(`a directory/symlink swap race never leaks the outside file (${READS} reads)`, async () => {
    const race = tempDir('boxbot-race-');
    mkdirSync(join(race, 'real'));
    writeFileSync(join(race, 'real', 'secret.txt'), 'inside\n');
    symlinkSync(outside, join(race, 'evil'));
    // The attacker swaps `sub` between the real directory and a symlink to the outside, as fast as it can.
    const attacker = spawn(
      process.execPath,
      [
        '-e',
        `
      const fs = require('fs'); const p = require('path'); const d = ${JSON.stringify(race)};
      fs.renameSync(p.join(d, 'real'), p.join(d, 'sub'));
      let swaps = 0;
      for (;;) {
        try { fs.renameSync(p.join(d, 'sub'), p.join(d, 'real')); fs.renameSync(p.join(d, 'evil'), p.join(d, 'sub'));
              fs.renameSync(p.join(d, 'sub'), p.join(d, 'evil')); ` +
          `fs.renameSync(p.join(d, 'real'), p.join(d, 'sub')); swaps++; } catch {}
        if (swaps % 1000 === 0) { const b = new SharedArrayBuffer(4); Atomics.wait(new Int32Array(b), 0, 0, 0); }
      }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const g = grant({
        args: ['race-read', 'sub/secret.txt', String(READS)],
        mounts: [{ host: race, guest: '/', readOnly: true }],
      });
      // Only a bound on a hang, under the file's 10-minute limit: on a loaded machine the reads took over 5 minutes.
      g.limits.timeoutMs = 540_000;
      // Thousands of opens in an interpreter exceed the default budget; the timeout still bounds it
      g.limits.fuel = undefined;
      const r = await sandbox.run(guest('fs-probe'), g);
      assert.equal(r.trap, undefined, JSON.stringify(r.trap));
      const counts = (JSON.parse(text(r.stdout)) as { value: Record<string, number> }).value;
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      console.log('race outcomes:', JSON.stringify(counts));
      assert.equal(total, READS);
      assert.equal(counts['content:TOP-SECRET'] ?? 0, 0, 'a read escaped the mount');
      assert.ok((counts['content:inside'] ?? 0) > 0, 'the race was not exercised: no read succeeded');
      assert.ok(
        Object.keys(counts).some((k) => k.startsWith('error:')),
        'the race was not exercised: no read was refused',
      );
    } finally {
      attacker.kill('SIGKILL');
    }
  });
});
