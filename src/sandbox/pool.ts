// A pool of guest workers on the main thread: routes each call to an idle worker (preferring
// one that already holds the tool), enforces the wall-clock timeout by terminating the worker
// and replacing it, and serves the workers' network requests through the broker.
import { totalmem } from 'node:os';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { entryFile } from '../core/package-paths.ts';
import type { PreparedComponent } from './compile.ts';
import { SandboxError } from './errors.ts';
import { NetCall, serveNetBridge } from './net/bridge.ts';
import type { NetBroker } from './net/broker.ts';
import { DEFAULT_LIMITS, type SandboxResult } from './types.ts';
import { applySandboxV8Flags } from './v8-flags.ts';
import type { CallMessage, WorkerReply } from './worker.ts';

const workerUrl = pathToFileURL(entryFile('sandbox/worker'));

/** How a worker thread is started: the module it runs, or code evaluated to load it. */
interface WorkerStart {
  source: URL | string;
  eval: boolean;
}

/**
 * How to start a worker on `url`. A `.ts` worker (boxbot running from its TypeScript sources: tsx)
 * gets a tiny bootstrap that registers tsx first, as Node 20 workers do not inherit tsx's loader
 * hooks. tsx is resolved here: an eval'd worker resolves bare names from the process's cwd.
 */
function workerStart(url: URL): WorkerStart {
  if (!url.pathname.endsWith('.ts')) return { source: url, eval: false };
  const source =
    `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return ` +
    `import(${JSON.stringify(url.href)}); })`;
  return { source, eval: true };
}

/** Bound on starting a worker and loading a tool into it (not part of the tool's timeout). */
const LOAD_LIMIT_MS = 120_000;

/** What the pool needs to run one call. */
export interface PoolCall {
  prepared: PreparedComponent;
  message: Omit<CallMessage, 'type' | 'id' | 'key'>;
  timeoutMs: number;
  /** Cancels the call: removed from the queue, or its worker terminated if it runs. */
  signal?: AbortSignal;
  /** The tool's name, for the cancellation error. */
  tool?: string;
  /** HTTP response body bytes the call may receive in all (default DEFAULT_LIMITS). */
  maxResponseBytes?: number;
}

const cancelledError = (call: PoolCall) =>
  new SandboxError('cancelled', `${call.tool ?? 'the tool'}: the call was cancelled`, call.tool ?? '');

interface Pending {
  call: PoolCall;
  resolve: (r: SandboxResult) => void;
  reject: (e: Error) => void;
}

class Slot {
  readonly worker: Worker;
  readonly loaded = new Map<string, Promise<void>>();
  private readonly preloaded = new Set<string>();
  /** Tools this worker holds a pre-created instance of (it said so): calls go there first. */
  readonly spares = new Set<string>();
  /** When the worker last finished a call: of two busy making spares, the earlier is done first. */
  lastDone = 0;
  /** Calls that found no instance made ahead and made theirs while the caller waited. */
  madeOnCall = 0;
  private lastCallId = -1;
  readonly ready: Promise<void>;
  busy = false;
  dead = false;
  /** The network of the call running now (a new one per call, so counts never carry over). */
  netCall: NetCall | undefined;
  private readonly net: { close(): void };
  private readonly waiters = new Map<number, (r: SandboxResult) => void>();
  private readonly loadWaiters = new Map<string, () => void>();
  onExit: ((reason: string, kind: 'memory' | 'crash') => void) | undefined;

  constructor(broker: NetBroker, heapMb: number, start: WorkerStart, onNote: (message: string) => void) {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(1024);
    this.net = serveNetBridge(channel.port2, signal, broker, () => this.netCall);
    this.worker = new Worker(start.source, {
      eval: start.eval,
      workerData: { netPort: channel.port1, netSignal: signal },
      transferList: [channel.port1],
      resourceLimits: { maxOldGenerationSizeMb: heapMb, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    // A guest can never reach these streams, but glue or host bugs might print: keep them off
    // the host's stdout so tool runs never interleave with the CLI's own output.
    this.worker.stdout.resume();
    this.worker.stderr.resume();
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.on('message', (msg: WorkerReply) => {
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'loaded') {
          this.spares.add(msg.key);
          this.loadWaiters.get(msg.key)?.();
        } else if (msg.type === 'spare') {
          // Said after an earlier call, it is stale once another call was sent (that one took it).
          if (msg.after === this.lastCallId) this.spares.add(msg.key);
        } else if (msg.type === 'result') {
          if (msg.made) this.madeOnCall++;
          const w = this.waiters.get(msg.id);
          this.waiters.delete(msg.id);
          w?.(msg.result);
        } else if (msg.type === 'note') {
          onNote(msg.message);
        }
      });
    });
    this.ready.catch(() => {});
    // Past its heap limit Node stops the worker with ERR_WORKER_OUT_OF_MEMORY: only this call
    // fails (with trap `memory`, the limit it hit) and the pool replaces the worker.
    this.worker.on('error', (e) => {
      const oom = (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.die(
        oom ? `the worker ran out of heap: ${e.message}` : `worker error: ${e.message}`,
        oom ? 'memory' : 'crash',
      );
    });
    this.worker.on('exit', (code) => this.die(`worker exited with code ${code}`));
  }

  /** True when the worker holds the tool, or was told to start importing it (preload). */
  knows(key: string): boolean {
    return this.loaded.has(key) || this.preloaded.has(key);
  }

  /** Lets the worker import a tool's glue while its core modules are still compiling. */
  preload(key: string, glueUrl: string): void {
    if (this.preloaded.has(key) || this.loaded.has(key)) return;
    this.preloaded.add(key);
    this.worker.postMessage({ type: 'glue', key, glueUrl });
  }

  load(p: PreparedComponent): Promise<void> {
    let done = this.loaded.get(p.key);
    if (!done) {
      done = new Promise<void>((resolve) => {
        this.loadWaiters.set(p.key, () => {
          this.loadWaiters.delete(p.key);
          resolve();
        });
      });
      this.loaded.set(p.key, done);
      this.worker.postMessage({ type: 'load', key: p.key, glueUrl: p.glueUrl, modules: p.modules, images: p.images });
    }
    return done;
  }

  call(msg: CallMessage): Promise<SandboxResult> {
    this.spares.delete(msg.key);
    this.lastCallId = msg.id;
    return new Promise((resolve) => {
      this.waiters.set(msg.id, (result) => {
        // The worker now resets memories and makes the next instance, which takes it longer than
        // many calls: until it says `spare`, calls go to another worker that has one.
        this.lastDone = performance.now();
        resolve(result);
      });
      this.worker.postMessage(msg);
    });
  }

  private die(reason: string, kind: 'memory' | 'crash' = 'crash'): void {
    if (this.dead) return;
    this.dead = true;
    this.net.close();
    this.onExit?.(reason, kind);
  }

  async terminate(): Promise<void> {
    this.net.close();
    this.dead = true;
    await this.worker.terminate();
  }
}

/**
 * V8 heap of one worker: glue, host state and engine tables; guests' linear memory is outside it.
 * A worker holds 10-20 MB live. The cap is also how far a guest can make the host allocate
 * (through host calls) before its call fails with trap `memory`, per worker. It also sets how
 * far V8 lets the heap grow between full GCs: below 2 GB (64-bit) by a factor of 1.3-2 only, so
 * at 512 MB a worker runs a mark-compact every few calls; from 2 GB by up to 4x, for 12-18% less
 * CPU per call and a quarter less latency for componentize-js tools (README, benchmarks).
 */
export const WORKER_HEAP_MB = 512;
/** The cap where V8 lets a heap grow fourfold between full GCs (64-bit, no pointer compression). */
export const LARGE_WORKER_HEAP_MB = 2048;

/**
 * The worker heap cap when none is configured: 2 GB where all workers' caps together stay within
 * a quarter of the machine's memory, else 512 MB. What a guest can make the host allocate is then
 * bounded by a quarter of the memory on any machine.
 */
export function defaultWorkerHeapMb(workers: number, totalMemBytes = totalmem()): number {
  const quarterMb = totalMemBytes / 4 / 1048576;
  return workers * LARGE_WORKER_HEAP_MB <= quarterMb ? LARGE_WORKER_HEAP_MB : WORKER_HEAP_MB;
}

/** Runs calls on up to `size` workers. */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Notes already passed on: every new worker would say them again. */
  private readonly notes = new Set<string>();
  private readonly start: WorkerStart;

  constructor(
    private readonly size: number,
    private readonly broker: NetBroker,
    /** Each worker's JS heap cap in MB (default: defaultWorkerHeapMb). */
    readonly heapMb = defaultWorkerHeapMb(size),
    /** Where the workers' notes go (each distinct one once); the sandbox logs them at debug. */
    private readonly onNote: (message: string) => void = () => {},
    /**
     * The workers' module (default: worker.ts or worker.js beside this module, as this one runs).
     * Tests running from sources pass the compiled worker.js, sparing each worker tsx's start.
     */
    workerFile?: string,
  ) {
    this.start = workerStart(workerFile ? pathToFileURL(workerFile) : workerUrl);
    applySandboxV8Flags();
  }

  /** Runs one call; resolves with the result (a timeout or worker crash is a trap, not a rejection). */
  run(call: PoolCall): Promise<SandboxResult> {
    if (this.closed) return Promise.reject(new Error('sandbox is closed'));
    if (call.signal?.aborted) return Promise.reject(cancelledError(call));
    return new Promise((resolve, reject) => {
      // Still queued when cancelled: drop it (a running call is stopped in execute).
      const onAbort = () => {
        const i = this.queue.indexOf(pending);
        if (i >= 0) {
          this.queue.splice(i, 1);
          reject(cancelledError(call));
        }
      };
      // One signal often spans a whole agent run: a listener left behind per call would pile up
      // (MaxListenersExceededWarning after about ten tool calls), so it goes when the call settles.
      const settled = () => call.signal?.removeEventListener('abort', onAbort);
      const pending: Pending = {
        call,
        resolve: (r) => {
          settled();
          resolve(r);
        },
        reject: (e) => {
          settled();
          reject(e);
        },
      };
      this.queue.push(pending);
      call.signal?.addEventListener('abort', onAbort, { once: true });
      this.dispatch();
    });
  }

  /** Starts workers and loads `prepared` into each ahead of the first call. */
  async warm(prepared: PreparedComponent): Promise<void> {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    await Promise.all(
      this.slots.map(async (s) => {
        await s.ready;
        await s.load(prepared);
      }),
    );
  }

  /** Starts one worker now if none runs, so its start-up overlaps the tool's preparation. */
  prestart(): void {
    if (!this.closed && this.slots.length === 0) this.slots.push(this.spawn());
  }

  /** Hints that `key` is about to run: idle workers import its glue meanwhile. */
  preload(key: string, glueUrl: string): void {
    for (const s of this.slots) if (!s.dead) s.preload(key, glueUrl);
  }

  private spawn(): Slot {
    const slot = new Slot(this.broker, this.heapMb, this.start, (message) => {
      if (this.notes.has(message)) return;
      this.notes.add(message);
      this.onNote(message);
    });
    slot.onExit = () => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
    };
    return slot;
  }

  private pick(key: string): Slot | undefined {
    const idle = this.slots.filter((s) => !s.busy && !s.dead);
    const ready = idle.find((s) => s.spares.has(key));
    if (ready) return ready;
    const warm = idle.filter((s) => s.loaded.has(key)).sort((a, b) => a.lastDone - b.lastDone)[0];
    if (warm) return warm;
    // An idle worker already importing the tool (the one a first call prestarted) is further along
    // than a new one: starting another would leave it unused, a worker's start-up spent for nothing.
    const preloading = idle.find((s) => s.knows(key));
    if (preloading) return preloading;
    if (this.slots.length < this.size) {
      const s = this.spawn();
      this.slots.push(s);
      return s;
    }
    return idle[0];
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const slot = this.pick(head.call.prepared.key);
      if (!slot) return;
      this.queue.shift();
      slot.busy = true;
      void this.execute(slot, head).finally(() => {
        slot.busy = false;
        this.dispatch();
      });
    }
  }

  private async execute(slot: Slot, job: Pending): Promise<void> {
    const { call } = job;
    const started = performance.now();
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    let onCancel: (() => void) | undefined;
    // The tool's clock starts when its call is handed to the worker: starting a worker and
    // loading a tool are the host's work, bounded separately (LOAD_LIMIT_MS).
    let startClock: (ms: number, kind: 'timeout' | 'crash', message: string) => void = () => {};
    const timedOut = new Promise<SandboxResult>((resolve) => {
      startClock = (ms, kind, message) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          resolve({
            exitCode: 1,
            stdout: new Uint8Array(0),
            stderr: new Uint8Array(0),
            durationMs: performance.now() - started,
            trap: { kind, message },
          });
        }, ms);
      };
    });
    startClock(LOAD_LIMIT_MS, 'crash', `the worker did not load the tool within ${LOAD_LIMIT_MS} ms`);
    const crashed = new Promise<SandboxResult>((resolve) => {
      slot.onExit = (reason, kind) => {
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
        resolve({
          exitCode: 1,
          stdout: new Uint8Array(0),
          stderr: new Uint8Array(0),
          durationMs: performance.now() - started,
          trap: {
            kind,
            message: kind === 'memory' ? `memory limit reached: ${reason}` : `the tool's worker died: ${reason}`,
          },
        });
      };
    });
    try {
      const work = (async () => {
        await slot.ready;
        await slot.load(call.prepared);
        slot.netCall = new NetCall(id, call.message.network, call.maxResponseBytes ?? DEFAULT_LIMITS.maxResponseBytes!);
        startClock(call.timeoutMs, 'timeout', `timed out after ${call.timeoutMs} ms`);
        return slot.call({ type: 'call', id, key: call.prepared.key, ...call.message });
      })();
      const cancelled = new Promise<never>((_, reject) => {
        onCancel = () => reject(cancelledError(call));
        call.signal?.addEventListener('abort', onCancel, { once: true });
      });
      // A cancelled call rejects and lands in the catch below, which replaces (terminates) the worker.
      const result = await Promise.race([work, timedOut, crashed, cancelled]);
      if (result.trap?.kind === 'timeout' || result.trap?.kind === 'crash' || slot.dead) await this.replace(slot);
      job.resolve(result);
    } catch (e) {
      await this.replace(slot);
      job.reject(e as Error);
    } finally {
      clearTimeout(timer);
      if (onCancel) call.signal?.removeEventListener('abort', onCancel);
      // The worker cancels what its guest left open, but the host does not rely on it.
      slot.netCall?.end();
      slot.netCall = undefined;
    }
  }

  /** Terminates a worker that overran or died; a fresh one is spawned on demand. */
  private async replace(slot: Slot): Promise<void> {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.onExit = undefined;
    await slot.terminate().catch(() => {});
  }

  /** Number of live workers (for metrics and tests). */
  get workerCount(): number {
    return this.slots.length;
  }

  /** Calls handed to a worker and not yet settled (tests: a call is running, no longer queued). */
  get busyCount(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  /** Idle workers that hold a ready instance of tool `key` (tests: where the next call can go at once). */
  readyFor(key: string): number {
    return this.slots.filter((s) => !s.busy && !s.dead && s.spares.has(key)).length;
  }

  /**
   * Calls on the live workers that found no instance made ahead and made one while their caller
   * waited (tests and bench: after warm, calls in a row should find one).
   */
  get instancesMadeOnCall(): number {
    return this.slots.reduce((n, s) => n + s.madeOnCall, 0);
  }

  /** Thread ids of live workers (bench: memory per worker). */
  get threadIds(): number[] {
    return this.slots.map((s) => s.worker.threadId);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('sandbox is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.terminate()));
  }
}
