// The sandbox's entry point: run one WASI tool call with exactly a SandboxGrant.
// Example:
//   const sandbox = createSandbox({ cacheDir: 'data/cache/sandbox' });
//   const r = await sandbox.run('tools/read.wasm', { args: ['--file-path', 'a.txt'], env: {},
//     mounts: [{ host: ws, guest: '/', readOnly: true }], network: { allow: [], block: ['private'] },
//     limits: DEFAULT_LIMITS });
import { availableParallelism } from 'node:os';
import { basename, extname } from 'node:path';
import { type Logger, silentLogger } from '../core/log.ts';
import { type PreparedComponent, prepare } from './compile.ts';
import { SandboxError } from './errors.ts';
import { validateGrant } from './grant.ts';
import { createNetBroker, type NetBrokerOptions } from './net/broker.ts';
import { WorkerPool } from './pool.ts';
import { type ProtectedPaths, packageCodePaths } from './protected-paths.ts';
import { SHARED_COMPILE_CACHE } from './shared-cache.ts';
import { DEFAULT_LIMITS, type SandboxGrant, type SandboxResult } from './types.ts';

/** How a sandbox is set up (not per call). */
export interface SandboxOptions {
  /** Where transpiled and instrumented modules are cached (content-addressed). */
  cacheDir: string;
  /**
   * Read-only caches looked in first, never written (default: the bundled tools' cache built at
   * install, SHARED_COMPILE_CACHE; the install step itself passes none).
   */
  sharedCacheDirs?: string[];
  /** Worker threads running guests; default: the number of cores. */
  workers?: number;
  /** Network broker settings (DNS resolver, response caps). */
  net?: NetBrokerOptions;
  /**
   * boxbot's own files, kept out of every mount (the cache dir is always added): the data dir,
   * the config file (out of writable mounts, as boxbot's own code always is), and the data dir's
   * workspaces that may still be mounted.
   */
  protect?: Partial<ProtectedPaths>;
  /** Where cache problems (warn) and workers' notes (debug) are reported (default: silent). */
  log?: Logger;
  /**
   * JS heap of each worker in MB (default defaultWorkerHeapMb: 2 GB with memory to spare, else
   * 512 MB); past it only the running call fails.
   */
  workerHeapMb?: number;
  /**
   * The workers' module file (default: the sandbox's own worker, in the form this module runs as);
   * tests running from TypeScript pass the compiled worker.js so each worker skips tsx's start.
   */
  workerFile?: string;
}

/** Runs WASI tools; one instance per process is enough. */
export interface Sandbox {
  /** One call of the tool at `file`, with exactly `grant`. Rejects only when the tool cannot run at all. */
  /**
   * `signal`: aborting it stops the call at once (its worker is replaced) and rejects with SandboxError `cancelled`.
   */
  run(file: string, grant: SandboxGrant, opts?: { name?: string; signal?: AbortSignal }): Promise<SandboxResult>;
  /** Compiles (or loads from cache) without running; throws SandboxError with the reason. */
  prepare(file: string, maxMemoryBytes: number): Promise<PreparedComponent>;
  /** Starts the workers and loads the tool into each, so the first calls are warm. */
  warm(file: string, maxMemoryBytes: number): Promise<void>;
  close(): Promise<void>;
  readonly pool: WorkerPool;
}

/** Creates a sandbox. */
export function createSandbox(opts: SandboxOptions): Sandbox {
  const broker = createNetBroker(opts.net ?? {});
  const log = opts.log ?? silentLogger;
  const pool = new WorkerPool(
    opts.workers ?? Math.max(1, availableParallelism()),
    broker,
    opts.workerHeapMb,
    (m) => log.debug(m),
    opts.workerFile,
  );
  const sharedCacheDirs = opts.sharedCacheDirs ?? [SHARED_COMPILE_CACHE];
  const protect: ProtectedPaths = {
    dirs: [opts.cacheDir, ...(opts.protect?.dirs ?? [])],
    // A shared cache holds only what is built from the package's own tools, so reading it reveals
    // nothing (a clone stays mountable read-only); writing it would let a tool plant code the
    // workers later import, so no writable mount may touch it.
    noWrite: [...packageCodePaths(), ...sharedCacheDirs, ...(opts.protect?.noWrite ?? [])],
    mountableInside: opts.protect?.mountableInside ?? [],
  };
  const compileOpts = (maxMemoryBytes: number) => ({
    cacheDir: opts.cacheDir,
    sharedCacheDirs,
    maxMemoryBytes,
    onLocated: (key: string, glueUrl: string) => pool.preload(key, glueUrl),
    onRejected: (entry: string, reason: string) =>
      log.warn({ entry, reason }, 'compile cache entry failed its check; rebuilt instead of loaded'),
  });
  return {
    pool,
    async run(file, grant, runOpts) {
      // A first call starts its worker while the tool is hashed, read and compiled.
      pool.prestart();
      const checked = await validateGrant(grant, protect);
      const prepared = await prepare(file, compileOpts(checked.limits.maxMemoryBytes));
      const name = runOpts?.name ?? basename(file, extname(file));
      return pool.run({
        prepared,
        ...(runOpts?.signal ? { signal: runOpts.signal, tool: name } : {}),
        timeoutMs: checked.limits.timeoutMs,
        maxResponseBytes: checked.limits.maxResponseBytes ?? DEFAULT_LIMITS.maxResponseBytes!,
        message: {
          argv: [name, ...checked.args],
          env: checked.env,
          mounts: checked.mounts,
          network: checked.network,
          fuel: checked.limits.fuel,
          maxOutputBytes: checked.limits.maxOutputBytes,
          maxWriteBytes: checked.limits.maxWriteBytes ?? DEFAULT_LIMITS.maxWriteBytes!,
          maxDiskBytes: checked.limits.maxDiskBytes ?? DEFAULT_LIMITS.maxDiskBytes!,
          maxEntries: checked.limits.maxEntries ?? DEFAULT_LIMITS.maxEntries!,
          ...(checked.stdin ? { stdin: checked.stdin } : {}),
        },
      });
    },
    prepare: (file, maxMemoryBytes) => prepare(file, compileOpts(maxMemoryBytes)),
    async warm(file, maxMemoryBytes) {
      await pool.warm(await prepare(file, compileOpts(maxMemoryBytes)));
    },
    async close() {
      await pool.close();
      broker.close?.();
    },
  };
}

export { SandboxError };
