// The swap race: another process flips `ws/sub` between a real directory and a symlink to an
// outside directory as fast as it can, while the host opens and reads `sub/secret.txt` 20,000
// times; then the same with the final component (`ws/secret.txt` flipping between a file and a
// symlink to the outside file) under open, set-times-at and stat-at. Nothing may reach outside.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { callOn, temp } from './harness.ts';

/**
 * Attempts per race: enough to catch a check-then-open lookup (an lstat, then an open that follows):
 * with that flaw put in fs-walk.ts's lookup, 20,000 attempts read the outside file 8 to 12 times
 * per race (2 runs at load 13) and every test failed; 100,000 took 28.2 s of CPU (quiet), 20,000 7.0 s (load 16).
 */
const ATTEMPTS = 20_000;
const SECRET = 'TOP-SECRET from outside';

/** Swaps a race must see before it ends: the attempts go on until the swapper has made them. */
const MIN_SWAPS = 1001;

/**
 * Flips `ws/NAME` between the real entry and a symlink to TARGET until `stop` appears; writes
 * `swapped` once it has made MIN_SWAPS swaps.
 */
const SWAPPER = `
const MIN_SWAPS = ${MIN_SWAPS};
const fs = require('node:fs');
const { WS, NAME, TARGET } = process.env;
const sub = WS + '/' + NAME, real = sub + '.real', stop = WS + '/../stop', many = WS + '/../swapped';
let swaps = 0;
process.stdout.write('ready\\n');
for (;;) {
  try { fs.renameSync(sub, real); } catch {}
  try { fs.symlinkSync(TARGET, sub); } catch {}
  try { fs.unlinkSync(sub); } catch {}
  try { fs.renameSync(real, sub); } catch {}
  // Also leave the symlink in place while the real directory is away, half of the time.
  try { fs.renameSync(sub, real); fs.symlinkSync(TARGET, sub); fs.unlinkSync(sub); fs.renameSync(real, sub); } catch {}
  if (++swaps === MIN_SWAPS) fs.writeFileSync(many, '');
  if (swaps % 256 === 0 && fs.existsSync(stop)) break;
}
process.stdout.write(JSON.stringify({ swaps }) + '\\n');
`;

interface Setup {
  ws: string;
  outside: string;
  swapper: ChildProcess;
  /** The swapper has made MIN_SWAPS swaps (how long that takes depends on the machine, not the test). */
  swapped(): boolean;
  stop(): Promise<number>;
}

async function setup(name: string, target: (outside: string) => string): Promise<Setup> {
  const base = temp('boxbot-fs-race-');
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'sub/secret.txt'), 'inside');
  writeFileSync(join(ws, 'secret.txt'), 'inside');
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  utimesSync(join(outside, 'secret.txt'), 1000, 1000);
  const swapper = spawn(process.execPath, ['-e', SWAPPER], {
    env: { WS: ws, NAME: name, TARGET: target(outside) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  swapper.stdout!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    swapper.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready\n')) resolve();
    });
    swapper.once('exit', () => reject(new Error(`swapper exited early: ${out}`)));
  });
  const stop = async () => {
    writeFileSync(join(base, 'stop'), '');
    await new Promise((resolve) => swapper.once('exit', resolve));
    return (JSON.parse(out.slice('ready\n'.length)) as { swaps: number }).swaps;
  };
  return { ws, outside, swapper, swapped: () => existsSync(join(base, 'swapped')), stop };
}

function tally(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

// A guard, not a speed target: the three races took 6.9 s at load 16.
describe('filesystem host: directory/symlink swap race', { timeout: 480_000 }, () => {
  for (const [kind, target] of [
    ['absolute', (outside: string) => outside],
    ['relative', () => '../outside'],
  ] as const) {
    it(`${ATTEMPTS} open+read of sub/secret.txt never read the outside file (${kind} symlink)`, async () => {
      const { ws, stop, swapped } = await setup('sub', target);
      const counts: Record<string, number> = {};
      let leaked = 0;
      const call = callOn(ws);
      const root = call.dir();
      let tried = 0;
      try {
        for (; tried < ATTEMPTS || !(tried % 256 === 0 && swapped()); tried++) {
          try {
            const f = root.openAt({ symlinkFollow: true }, 'sub/secret.txt', {}, { read: true });
            try {
              const text = Buffer.from(f.read(100n, 0n)[0]).toString();
              if (text === SECRET) leaked++;
              tally(counts, `read:${text}`);
            } finally {
              f[Symbol.dispose]();
            }
          } catch (e) {
            if (typeof e !== 'string') throw e;
            tally(counts, `refused:${e}`);
          }
        }
      } finally {
        call.end();
      }
      const swaps = await stop();
      console.log(`swap race (${kind}): ${tried} attempts, ${swaps} swaps: ${JSON.stringify(counts)}`);
      assert.equal(leaked, 0, 'a read reached the outside file');
      assert.ok((counts['read:inside'] ?? 0) > 0, 'some reads succeeded (the real directory was there)');
      const refused = Object.entries(counts)
        .filter(([k]) => k.startsWith('refused:'))
        .reduce((n, [, v]) => n + v, 0);
      assert.ok(refused > 0, 'some attempts met the symlink (the race was exercised)');
      assert.ok(swaps >= MIN_SWAPS, `the swapper kept swapping (${swaps})`);
    });
  }

  it(`${ATTEMPTS / 2} open, set-times-at and stat-at of a final component never reach the outside file`, async () => {
    const { ws, outside, stop, swapped } = await setup('secret.txt', (o) => join(o, 'secret.txt'));
    const counts: Record<string, number> = {};
    let leaked = 0;
    const call = callOn(ws);
    const root = call.dir();
    const ts = { tag: 'timestamp' as const, val: { seconds: 99_999n, nanoseconds: 0 } };
    const attempt = (what: string, f: () => void) => {
      try {
        f();
        tally(counts, `${what}:ok`);
      } catch (e) {
        if (typeof e !== 'string') throw e;
        tally(counts, `${what}:${e}`);
      }
    };
    let rounds = 0;
    try {
      for (; rounds < ATTEMPTS / 2 || !(rounds % 256 === 0 && swapped()); rounds++) {
        attempt('open', () => {
          const f = root.openAt({ symlinkFollow: true }, 'secret.txt', {}, { read: true });
          try {
            if (Buffer.from(f.read(100n, 0n)[0]).toString() === SECRET) leaked++;
          } finally {
            f[Symbol.dispose]();
          }
        });
        attempt('times', () => root.setTimesAt({ symlinkFollow: true }, 'secret.txt', ts, ts));
        attempt('stat', () => {
          if (root.statAt({ symlinkFollow: true }, 'secret.txt').size === BigInt(SECRET.length)) leaked++;
        });
      }
    } finally {
      call.end();
    }
    const swaps = await stop();
    console.log(`final-component race: ${rounds} rounds, ${swaps} swaps: ${JSON.stringify(counts)}`);
    assert.equal(statSync(join(outside, 'secret.txt')).mtimeMs, 1_000_000, 'set-times-at changed the outside file');
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), SECRET);
    assert.equal(leaked, 0, 'open or stat-at reached the outside file');
    for (const what of ['open', 'times', 'stat']) {
      assert.ok((counts[`${what}:ok`] ?? 0) > 0, `some ${what} attempts succeeded`);
      assert.ok(
        Object.keys(counts).some((k) => k.startsWith(`${what}:`) && k !== `${what}:ok`),
        `some ${what} attempts were refused`,
      );
    }
  });
});
