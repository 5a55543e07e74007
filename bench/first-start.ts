// First-start benchmark: wall time from `boxbot start` (the built CLI, a fresh process) on a
// fresh data dir to its banner, against `node -e 0` in the same run, interleaved. The bundled
// tools come compiled from the shared cache built at install (tools/dist/cache), so a fresh data
// dir compiles nothing. Target: <= 5 s to the banner.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quantile, r2 } from './stats.ts';

const SAMPLES = 5;
const bin = fileURLToPath(new URL('../bin/boxbot.cjs', import.meta.url));
if (!existsSync(fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))))
  throw new Error('dist/ is not built: run npm run build');
if (!existsSync(fileURLToPath(new URL('../tools/dist/cache/specs', import.meta.url))))
  console.warn('no shared tool cache (tools/dist/cache): run npm run build:tools; measuring the slow path');

function nodeBaseline(): number {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t;
}

/** Starts boxbot on a new data dir; resolves with the ms until its banner, then stops it. */
function firstStart(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'boxbot-bench-start-'));
  writeFileSync(join(dir, 'boxbot.config.json'), JSON.stringify({ dataDir: './data', http: { port: 0 } }));
  const t = performance.now();
  const child = spawn(process.execPath, [bin, 'start'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('boxbot is running')) {
        const ms = performance.now() - t;
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve(ms);
        });
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!out.includes('boxbot is running')) reject(new Error(`boxbot start exited ${code}: ${err.slice(-500)}`));
    });
  });
}

const series = { baseline: [] as number[], firstStart: [] as number[] };
for (let i = 0; i < SAMPLES; i++) {
  series.baseline.push(nodeBaseline());
  series.firstStart.push(await firstStart());
}
const p50 = (xs: number[]): number => quantile(xs, 0.5);
const figures = {
  nodeBaselineP50Ms: r2(p50(series.baseline)),
  firstStartP50Ms: r2(p50(series.firstStart)),
  firstStartVsNode: r2(p50(series.firstStart) / p50(series.baseline)),
};
console.log(`first-start bench (${SAMPLES} runs, a fresh data dir and process each, interleaved)`);
console.log(`  node -e 0                     p50 ${figures.nodeBaselineP50Ms} ms`);
console.log(
  `  boxbot start → banner (fresh)  p50 ${figures.firstStartP50Ms} ms = ${figures.firstStartVsNode}x node   ` +
    'target <= 5000 ms',
);
console.log(JSON.stringify(figures));
