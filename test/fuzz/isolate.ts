// Runs one fuzz target in a worker thread with a heap cap, so an input that never returns or
// exhausts memory ends the worker, not the run: a watchdog ends a worker whose case counter has
// not moved for `stallMs`, and the input it was on is read from shared memory (the worker writes
// each input there before checking it). Both count as findings with that input.
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FuzzReport } from './harness.ts';

/** How long a worker may take to load its target before the first input (a busy machine is slow). */
const STARTUP_MS = 120_000;
/** Bytes kept of the current input's text (a longer one is cut). */
const INPUT_BYTES = 1024 * 1024;

/** How one isolated run goes. */
export interface IsolateOptions {
  runs: number;
  seed: number;
  hangMs?: number;
  /** A worker whose case counter stays still this long is ended and its input reported as a hang. */
  stallMs?: number;
  /** The worker's heap cap (MB); an input that needs more is a crash. */
  heapMb?: number;
  /** The module whose `targetNamed` finds the target (default: targets/index.ts). */
  module?: URL;
}

/** What the worker is told. */
export interface WorkerTask {
  /** URL of a module exporting `targetNamed(name)`. */
  module: string;
  target: string;
  opts: { runs: number; seed: number; hangMs?: number };
  /** [case counter, input length], then the input's UTF-8 bytes. */
  shared: SharedArrayBuffer;
}

/**
 * Runs the target named `target` (see targets/index.ts) in a worker; resolves with its report, never rejects.
 * @example await runIsolated('cron', { runs: 100_000, seed: 42 }) // { crashes: 0, hangs: 0, ... }
 */
export function runIsolated(target: string, opts: IsolateOptions): Promise<FuzzReport> {
  const shared = new SharedArrayBuffer(8 + INPUT_BYTES);
  const counter = new Int32Array(shared, 0, 2);
  const entry = new URL('./worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const code =
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return ` +
    `import(${JSON.stringify(pathToFileURL(new URL(entry).pathname).href)}); });`;
  const module = (opts.module ?? new URL('./targets/index.ts', import.meta.url)).href;
  const task: WorkerTask = { module, target, opts: { runs: opts.runs, seed: opts.seed, hangMs: opts.hangMs }, shared };
  const worker = new Worker(code, {
    eval: true,
    workerData: task,
    resourceLimits: { maxOldGenerationSizeMb: opts.heapMb ?? 1024 },
  });
  const started = performance.now();
  const current = (): string => {
    const length = Atomics.load(counter, 1);
    return Buffer.from(new Uint8Array(shared, 8, Math.min(length, INPUT_BYTES))).toString('utf8');
  };
  return new Promise((resolve) => {
    let done = false;
    const finish = (report: FuzzReport) => {
      if (done) return;
      done = true;
      clearInterval(watchdog);
      void worker.terminate();
      resolve(report);
    };
    const lost = (kind: 'crash' | 'hang', error: string): FuzzReport => {
      const finding = { kind, input: current(), error };
      return {
        target,
        seed: opts.seed,
        runs: Atomics.load(counter, 0),
        crashes: kind === 'crash' ? 1 : 0,
        hangs: kind === 'hang' ? 1 : 0,
        ms: Math.round(performance.now() - started),
        findings: [finding],
        minimal: finding,
        stopped: true,
      };
    };
    let seen = 0;
    let still = performance.now();
    const stallMs = opts.stallMs ?? 10_000;
    const watchdog = setInterval(() => {
      const n = Atomics.load(counter, 0);
      if (n !== seen) {
        seen = n;
        still = performance.now();
      } else if (performance.now() - still > (n === 0 ? STARTUP_MS : stallMs)) {
        finish(
          lost('hang', `no answer after ${Math.round((performance.now() - still) / 1000)} s (the worker was ended)`),
        );
      }
    }, 250);
    worker.on('message', (report: FuzzReport) => finish(report));
    worker.on('error', (e) => finish(lost('crash', `the worker died: ${e.message}`)));
    worker.on('exit', (code) => finish(lost('crash', `the worker exited with code ${code} before reporting`)));
  });
}
