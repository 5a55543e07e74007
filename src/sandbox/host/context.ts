// The state of one guest call inside a worker: what it was granted, what it wrote, and the
// resources it opened. Host interfaces read it through a binding so a pre-created instance can
// be bound to a call only when the call starts.
import type { Mount, NetworkGrant, TrapKind } from '../types.ts';
import { MAX_ENTRIES } from './fs-quota.ts';

/** Thrown through the guest to end a call: an exit, or a limit the host enforces itself. */
export class GuestAbort extends Error {
  constructor(readonly reason: { exit: number } | { trap: TrapKind; message: string }) {
    super('exit' in reason ? `guest exited with ${reason.exit}` : `${reason.trap}: ${reason.message}`);
  }
}

/** Something a call opened that must be released when the call ends. */
export interface CallResource {
  close(): void;
}

/** Worker-side handle on the main thread's network broker (synchronous from the guest's view). */
export interface NetBridge {
  /** Starts a request; returns an id to wait on. */
  start(req: NetRequest): number;
  /** True when the response (or error) for `id` has arrived. */
  poll(id: number): boolean;
  /** Blocks until `id` has completed or `timeoutMs` passed. */
  wait(id: number, timeoutMs: number): void;
  /** The completed outcome; only valid once poll(id) is true. */
  take(id: number): NetOutcome;
  /** Abandons a request (the guest dropped it). */
  cancel(id: number): void;
}

/** An outgoing HTTP request as the guest built it. */
export interface NetRequest {
  method: string;
  url: string;
  headers: [string, Uint8Array][];
  body: Uint8Array | null;
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  betweenBytesTimeoutMs?: number;
}

/** What the broker answered: a whole (size-capped) response, or a `wasi:http` error code. */
export type NetOutcome =
  | { ok: true; status: number; headers: [string, Uint8Array][]; body: Uint8Array }
  | { ok: false; error: { tag: string; val?: unknown }; message: string };

/** One call's world. */
export class CallContext {
  readonly argv: string[];
  readonly env: [string, string][];
  readonly mounts: readonly Mount[];
  readonly network: NetworkGrant;
  readonly maxOutputBytes: number;
  /** Bytes the guest may write to files in this call, and the size a writable mount may reach. */
  readonly maxWriteBytes: number;
  readonly maxDiskBytes: number;
  /** Names (files, directories, links) a writable mount may hold (see fs-quota). */
  readonly maxEntries: number;
  readonly net: NetBridge;
  stdin: Uint8Array;
  stdinOffset = 0;
  readonly stdout: Uint8Array[] = [];
  readonly stderr: Uint8Array[] = [];
  outputBytes = 0;
  /** Bytes the guest has written to files in this call (see fs-quota). */
  writtenBytes = 0;
  /** Processes started to set exact file times in this call (see fs-times: capped). */
  touchRuns = 0;
  /** Set when the guest exited or the host aborted it; read after the guest unwinds. */
  abort: GuestAbort | undefined;
  /**
   * A limit that refused an operation without ending the call (the guest saw an error code,
   * e.g. ENOSPC); the result still reports it as its trap, so the caller knows which limit.
   */
  refused: { trap: TrapKind; message: string } | undefined;
  private readonly resources = new Set<CallResource>();

  constructor(init: {
    argv: string[];
    env: Record<string, string>;
    mounts: readonly Mount[];
    network: NetworkGrant;
    maxOutputBytes: number;
    maxWriteBytes?: number;
    maxDiskBytes?: number;
    maxEntries?: number;
    stdin?: Uint8Array;
    net: NetBridge;
  }) {
    this.argv = init.argv;
    this.env = Object.entries(init.env);
    this.mounts = init.mounts;
    this.network = init.network;
    this.maxOutputBytes = init.maxOutputBytes;
    this.maxWriteBytes = init.maxWriteBytes ?? Infinity;
    this.maxDiskBytes = init.maxDiskBytes ?? Infinity;
    this.maxEntries = init.maxEntries ?? MAX_ENTRIES;
    this.stdin = init.stdin ?? new Uint8Array(0);
    this.net = init.net;
  }

  /** Records the reason and throws it through the guest; the call ends with it. */
  fail(reason: GuestAbort['reason']): never {
    this.abort ??= new GuestAbort(reason);
    throw this.abort;
  }

  /** Appends guest output, enforcing the per-call byte cap (over it: trap `output`). */
  writeOutput(which: 'stdout' | 'stderr', bytes: Uint8Array): void {
    if (this.outputBytes + bytes.length > this.maxOutputBytes) {
      const room = this.maxOutputBytes - this.outputBytes;
      if (room > 0) this[which].push(bytes.slice(0, room));
      this.outputBytes = this.maxOutputBytes;
      this.fail({ trap: 'output', message: `output exceeded ${this.maxOutputBytes} bytes` });
    }
    this.outputBytes += bytes.length;
    this[which].push(bytes.slice());
  }

  /** Registers a resource to close when the call ends. */
  track(resource: CallResource): void {
    this.resources.add(resource);
  }

  /** Forgets a resource the guest released itself. */
  untrack(resource: CallResource): void {
    this.resources.delete(resource);
  }

  /** Closes everything the call still holds. */
  closeAll(): void {
    for (const r of this.resources) {
      try {
        r.close();
      } catch {
        // already closed; nothing to release
      }
    }
    this.resources.clear();
  }
}

/** The slot a pre-created instance's imports read the current call from. */
export class Binding {
  private ctx: CallContext | undefined;

  bind(ctx: CallContext): void {
    this.ctx = ctx;
  }

  unbind(): void {
    this.ctx = undefined;
  }

  /** The call in progress; a guest reaching the host outside a call is a crash. */
  get current(): CallContext {
    if (!this.ctx) throw new Error('guest called the host outside a call');
    return this.ctx;
  }

  get bound(): CallContext | undefined {
    return this.ctx;
  }
}
