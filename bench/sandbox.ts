// Sandbox benchmark: cold first call (fresh process, disk cache warm), warm call latency of a
// componentize-js tool reading a small file, throughput with every core busy, memory per warm
// worker — against spawning /bin/cat and `node -e` for the same read, measured in this run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxGrant } from '../src/sandbox/index.ts';
import { quantile, r2 } from './stats.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
// Measure what users run: the compiled JavaScript (`npm run bench` builds it first).
const { createSandbox, DEFAULT_LIMITS } = (await import(new URL('../dist/sandbox/index.js', import.meta.url).href)) as typeof import('../src/sandbox/index.ts');
const cacheDir = join(root, '.cache', 'bench-sandbox');
const tool = join(root, '.cache', 'guests', 'cat.wasm');
const workDir = join(root, '.cache', 'bench-work');

if (process.argv[2] !== '--cold-child') {
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build-guests.ts')], { stdio: 'inherit' });
  mkdirSync(workDir, { recursive: true });
  writeFileSync(join(workDir, 'small.txt'), 'hello from a small file\n'.repeat(20));
}

const grant: SandboxGrant = {
  args: ['small.txt'],
  env: {},
  mounts: [{ host: workDir, guest: '/', readOnly: true }],
  network: { allow: [], block: ['private'] },
  limits: { ...DEFAULT_LIMITS, timeoutMs: 10_000 },
};

function spawnOnce(cmd: string, args: string[]): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    p.stdout.resume();
    p.on('error', reject);
    p.on('close', () => resolve(performance.now() - t));
  });
}

async function timeSeq(n: number, f: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  return out;
}

if (process.argv[2] === '--cold-child') {
  // Fresh process: only the disk cache is warm. Time from nothing to the first result.
  const t = performance.now();
  const sb = createSandbox({ cacheDir, workers: 1 });
  const r = await sb.run(tool, grant);
  const ms = performance.now() - t;
  await sb.close();
  if (r.exitCode !== 0) throw new Error(`cold call failed: ${new TextDecoder().decode(r.stderr)}`);
  process.stdout.write(JSON.stringify({ ms }));
  process.exit(0);
}

// Prime the disk cache, then measure a cold first call in fresh processes.
{
  const sb = createSandbox({ cacheDir, workers: 1 });
  const r = await sb.run(tool, grant);
  if (r.exitCode !== 0 || !new TextDecoder().decode(r.stdout).includes('hello')) {
    throw new Error(`tool did not read the file: ${new TextDecoder().decode(r.stderr)}`);
  }
  await sb.close();
}
const colds: number[] = [];
for (let i = 0; i < 5; i++) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--cold-child'], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  colds.push((JSON.parse(child.stdout) as { ms: number }).ms);
}

const cores = availableParallelism();
const rssBefore = process.memoryUsage().rss;
const sandbox = createSandbox({ cacheDir, workers: cores });
await sandbox.warm(tool, grant.limits.maxMemoryBytes);
const workerRssMb = (process.memoryUsage().rss - rssBefore) / cores / 1048576;

// Warm sequential latency.
await timeSeq(50, () => sandbox.run(tool, grant));
const warm = await timeSeq(400, () => sandbox.run(tool, grant));

// Throughput: keep every worker busy.
const total = 1000;
let issued = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: cores * 2 }, async () => {
    while (issued < total) {
      issued++;
      const r = await sandbox.run(tool, grant);
      if (r.exitCode !== 0) throw new Error('call failed under load');
    }
  }),
);
const callsPerSec = total / ((performance.now() - t0) / 1000);
await sandbox.close();

// Baselines: the same read by spawning a process.
await timeSeq(10, () => spawnOnce('/bin/cat', [join(workDir, 'small.txt')]));
const cat = await timeSeq(200, () => spawnOnce('/bin/cat', [join(workDir, 'small.txt')]));
const nodeE = await timeSeq(30, () =>
  spawnOnce(process.execPath, ['-e', `process.stdout.write(require('fs').readFileSync(${JSON.stringify(join(workDir, 'small.txt'))}))`]),
);

const figures = {
  coldFirstCallMs: r2(quantile(colds, 0.5)),
  warmP50Ms: r2(quantile(warm, 0.5)),
  warmP99Ms: r2(quantile(warm, 0.99)),
  callsPerSec: r2(callsPerSec),
  workerRssMb: r2(workerRssMb),
  spawnCatMs: r2(quantile(cat, 0.5)),
  spawnNodeMs: r2(quantile(nodeE, 0.5)),
  warmVsCatRatio: r2(quantile(warm, 0.5) / quantile(cat, 0.5)),
};
console.log(`sandbox bench (${cores} cores; tool: componentize-js cat of a 480-byte file)`);
console.log(`  cold first call (fresh process, disk cache warm): ${figures.coldFirstCallMs} ms   target <= 200 ms`);
console.log(`  warm call p50 ${figures.warmP50Ms} ms, p99 ${figures.warmP99Ms} ms`);
console.log(`  spawn /bin/cat p50 ${figures.spawnCatMs} ms, node -e p50 ${figures.spawnNodeMs} ms`);
console.log(`  warm p50 / cat spawn = ${figures.warmVsCatRatio}x   target <= 1.0x;  / node -e = ${r2(figures.warmP50Ms / figures.spawnNodeMs)}x`);
console.log(`  throughput ${figures.callsPerSec} calls/s on ${cores} workers   target >= 200`);
console.log(`  memory per warm worker ~${figures.workerRssMb} MiB`);
console.log(JSON.stringify(figures));
