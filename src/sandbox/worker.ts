// The worker thread that runs guests. It keeps compiled modules, memory pools and a
// pre-created instance per tool, so a warm call only binds its capabilities and runs; every
// call gets a fresh instance. The main thread enforces the wall-clock timeout by terminating
// this worker.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../core/errors.ts';
import { concatBytes } from './bytes.ts';
import { CallContext, GuestAbort } from './host/context.ts';
import { reportExactTimesTo } from './host/fs-times.ts';
import { createInstance, type GuestInstance, type Instantiate, type LoadedTool, release } from './instance.ts';
import { MemoryPool } from './memory-pool.ts';
import { createWorkerNetBridge } from './net/bridge.ts';
import type { Mount, NetworkGrant, SandboxResult, TrapKind } from './types.ts';
import type { MemoryImage } from './wasm/index.ts';

// jco's glue probes WebAssembly.promising (JSPI) for every export; on Node 20 each failed probe
// throws and costs milliseconds. Guests here are synchronous, so the identity is correct.
(WebAssembly as unknown as { promising: (f: unknown) => unknown }).promising = (f) => f;

/** A tool's glue plus compiled core modules, as sent by the main thread. */
export interface LoadMessage {
  type: 'load';
  key: string;
  glueUrl: string;
  modules: Record<string, WebAssembly.Module>;
  images: Record<string, MemoryImage>;
}

/** A hint to import a tool's glue before its modules arrive. */
export interface GlueMessage {
  type: 'glue';
  key: string;
  glueUrl: string;
}

/** One call, with its grant already resolved by the main thread. */
export interface CallMessage {
  type: 'call';
  id: number;
  key: string;
  argv: string[];
  env: Record<string, string>;
  mounts: Mount[];
  network: NetworkGrant;
  fuel: number | undefined;
  maxOutputBytes: number;
  maxWriteBytes: number;
  maxDiskBytes: number;
  maxEntries: number;
  stdin?: Uint8Array;
}

/** What the worker answers. */
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'loaded'; key: string }
  /** The worker is done with the aftermath of call `after` and holds an instance of `key`. */
  | { type: 'spare'; key: string; after: number }
  /** `made`: the call had no spare and made its instance while its caller waited. */
  | { type: 'result'; id: number; result: SandboxResult; made: boolean }
  /** Something the host's operator may want to know (logged at debug level), said once. */
  | { type: 'note'; message: string };

const MAX_I64 = 2n ** 63n - 1n;
const port = parentPort!;
const { netPort, netSignal } = workerData as { netPort: MessagePort; netSignal: SharedArrayBuffer };
const net = createWorkerNetBridge(netPort, netSignal);
const loaded = new Map<string, LoadedTool>();
reportExactTimesTo((message) => port.postMessage({ type: 'note', message } satisfies WorkerReply));

/** Names the limit behind a guest failure; the host's own record wins over the error text. */
function classify(
  e: unknown,
  ctx: CallContext,
  inst: GuestInstance | undefined,
): { exitCode: number; trap?: { kind: TrapKind; message: string } } {
  const abort = ctx.abort;
  if (abort) {
    if ('exit' in abort.reason) return { exitCode: abort.reason.exit };
    return { exitCode: 1, trap: { kind: abort.reason.trap, message: abort.reason.message } };
  }
  if (inst && (inst.fuel.value as bigint) < 0n) {
    return {
      exitCode: 1,
      trap: { kind: 'fuel', message: 'fuel exhausted: the tool ran more instructions than its budget' },
    };
  }
  if (inst && inst.oom.value === 1) {
    return {
      exitCode: 1,
      trap: { kind: 'memory', message: 'memory limit reached: the tool tried to grow past its cap' },
    };
  }
  const message = errorMessage(e);
  if (e instanceof RangeError && /call stack/i.test(message)) {
    return { exitCode: 1, trap: { kind: 'stack', message: 'stack overflow: the tool recursed too deeply' } };
  }
  if (e instanceof RangeError && /memory/i.test(message)) {
    return { exitCode: 1, trap: { kind: 'memory', message } };
  }
  // `run` returning err(()) surfaces as a ComponentError without a message of its own.
  if (e instanceof Error && e.constructor.name === 'ComponentError' && !(e instanceof GuestAbort)) {
    return { exitCode: 1 };
  }
  return { exitCode: 1, trap: { kind: 'crash', message: `the tool crashed: ${message}` } };
}

/**
 * Runs one call. `aftermath` resets the instance's memories and makes the next spare, once the
 * result is posted (see settle).
 */
function call(msg: CallMessage): { result: SandboxResult; made: boolean; aftermath: () => void } {
  const started = performance.now();
  net.forCall(msg.id);
  const ctx = new CallContext({
    argv: msg.argv,
    env: msg.env,
    mounts: msg.mounts,
    network: msg.network,
    maxOutputBytes: msg.maxOutputBytes,
    maxWriteBytes: msg.maxWriteBytes,
    maxDiskBytes: msg.maxDiskBytes,
    maxEntries: msg.maxEntries,
    stdin: msg.stdin,
    net,
  });
  const tool = loaded.get(msg.key);
  let inst: GuestInstance | undefined;
  let made = false;
  let outcome: ReturnType<typeof classify> = { exitCode: 0 };
  try {
    if (!tool) throw new Error(`tool ${msg.key} was not loaded into this worker`);
    inst = tool.spares.pop();
    if (!inst) {
      made = true;
      inst = createInstance(tool);
    }
    inst.binding.bind(ctx);
    inst.fuel.value = msg.fuel === undefined ? MAX_I64 : BigInt(msg.fuel);
    inst.run();
  } catch (e) {
    outcome = classify(e, ctx, inst);
  } finally {
    inst?.binding.unbind();
    ctx.closeAll();
  }
  // A limit that only refused an operation still names itself, unless a trap ended the call.
  if (!outcome.trap && ctx.refused)
    outcome = { exitCode: outcome.exitCode, trap: { kind: ctx.refused.trap, message: ctx.refused.message } };
  return {
    result: {
      exitCode: outcome.exitCode,
      stdout: concatBytes(ctx.stdout),
      stderr: concatBytes(ctx.stderr),
      durationMs: performance.now() - started,
      ...(outcome.trap ? { trap: outcome.trap } : {}),
    },
    made,
    aftermath: () => {
      if (inst) release(inst);
      if (!tool) return;
      prewarm(msg.key);
      if (tool.spares.length > 0 && loaded.get(msg.key) === tool)
        port.postMessage({ type: 'spare', key: msg.key, after: msg.id } satisfies WorkerReply);
    },
  };
}

function prewarm(key: string): void {
  const tool = loaded.get(key);
  if (!tool || tool.spares.length > 0) return;
  try {
    tool.spares.push(createInstance(tool));
  } catch {
    // The call that needs it will create it and report the failure itself.
  }
}

/** Glue modules by tool key, imported once (possibly ahead of the tool's load). */
const glues = new Map<string, Promise<{ instantiate: Instantiate }>>();

/** `glueUrl` is a data: URL of the glue bytes the main thread verified (never a cache path). */
function importGlue(key: string, glueUrl: string): Promise<{ instantiate: Instantiate }> {
  let glue = glues.get(key);
  if (!glue) {
    glue = import(glueUrl) as Promise<{ instantiate: Instantiate }>;
    glues.set(key, glue);
    glue.catch(() => glues.delete(key));
  }
  return glue;
}

/** The aftermath of the last call, until it has run. */
let afterCall: (() => void) | undefined;

/**
 * Runs the last call's aftermath: when the worker is idle (setImmediate), or else before it
 * takes its next message. A worker fed calls back to back takes them from its port before any
 * setImmediate runs: every call then made its instance while its caller waited, the used
 * memories piled up unreset while new 9.5 MB ones were allocated, and their external size set
 * off mark-compacts. Not straight after posting the result either: the finished instance's
 * glue may still have promise jobs queued, which must run before its memories are reset and
 * handed on (they have run by the time the next message is taken).
 */
function settle(): void {
  const f = afterCall;
  afterCall = undefined;
  f?.();
}

port.on('message', async (msg: GlueMessage | LoadMessage | CallMessage | { type: 'unload'; key: string }) => {
  settle();
  if (msg.type === 'glue') {
    importGlue(msg.key, msg.glueUrl).catch(() => {});
  } else if (msg.type === 'load') {
    if (!loaded.has(msg.key)) {
      const glue = await importGlue(msg.key, msg.glueUrl);
      const pools = new Map<WebAssembly.Module, MemoryPool>();
      for (const [name, image] of Object.entries(msg.images)) {
        const m = msg.modules[name];
        if (m) pools.set(m, new MemoryPool(image));
      }
      loaded.set(msg.key, { instantiate: glue.instantiate, modules: msg.modules, pools, spares: [] });
      prewarm(msg.key);
    }
    port.postMessage({ type: 'loaded', key: msg.key } satisfies WorkerReply);
  } else if (msg.type === 'unload') {
    loaded.delete(msg.key);
    glues.delete(msg.key);
  } else {
    const { result, made, aftermath } = call(msg);
    port.postMessage({ type: 'result', id: msg.id, result, made } satisfies WorkerReply, [
      result.stdout.buffer as ArrayBuffer,
      result.stderr.buffer as ArrayBuffer,
    ]);
    afterCall = aftermath;
    setImmediate(settle);
  }
});

port.postMessage({ type: 'ready' } satisfies WorkerReply);
