// CLI start-up benchmark: wall time of `boxbot --help` and `boxbot --version` (the built CLI,
// bin/boxbot.cjs, in a fresh process each time) against `node -e 0` measured in the same run,
// interleaved so the machine's load hits every series alike. Target: <= 0.5 s each, which on
// a small machine means the CLI must not load any command's module before it needs it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { quantile, r2 } from './stats.ts';

const SAMPLES = 15;
const bin = fileURLToPath(new URL('../bin/boxbot.cjs', import.meta.url));
if (!existsSync(fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))))
  throw new Error('dist/ is not built: run npm run build');

function timed(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const series = { baseline: [] as number[], help: [] as number[], version: [] as number[] };
timed([bin, '--help']); // warm the file cache, not measured
for (let i = 0; i < SAMPLES; i++) {
  series.baseline.push(timed(['-e', '0']));
  series.help.push(timed([bin, '--help']));
  series.version.push(timed([bin, '--version']));
}
const p50 = (xs: number[]): number => quantile(xs, 0.5);
const figures = {
  nodeBaselineP50Ms: r2(p50(series.baseline)),
  helpP50Ms: r2(p50(series.help)),
  versionP50Ms: r2(p50(series.version)),
  helpVsNode: r2(p50(series.help) / p50(series.baseline)),
  versionVsNode: r2(p50(series.version) / p50(series.baseline)),
};
console.log(`cli bench (${SAMPLES} runs per series, fresh process each, interleaved)`);
console.log(`  node -e 0          p50 ${figures.nodeBaselineP50Ms} ms`);
console.log(`  boxbot --help      p50 ${figures.helpP50Ms} ms = ${figures.helpVsNode}x node   target <= 500 ms`);
console.log(`  boxbot --version   p50 ${figures.versionP50Ms} ms = ${figures.versionVsNode}x node   target <= 500 ms`);
console.log(JSON.stringify(figures));
