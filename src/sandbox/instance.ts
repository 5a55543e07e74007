// Creating one guest instance inside a worker: run the tool's jco glue with our WASI host,
// give every core module fresh fuel/oom globals and, for modules that import their memory, a
// memory in its initial state from the tool's memory pools. Nothing but those reset memories
// is shared between instances: glue state, globals and tables are new each time. All core
// modules of one instance draw their table elements from one budget (see wasm/instrument.ts).
import { Binding } from './host/context.ts';
import { hostImports } from './host/imports.ts';
import type { MemoryPool } from './memory-pool.ts';
import { FUEL_IMPORT, MEMORY_IMPORT, OOM_IMPORT, TABLES_IMPORT, TABLES_SECTION } from './wasm/index.ts';

/** jco's `instantiate` export (instantiation mode, synchronous core instantiation). */
export type Instantiate = (
  getCoreModule: (name: string) => WebAssembly.Module,
  imports: Record<string, unknown>,
  instantiateCore: (m: WebAssembly.Module, i: WebAssembly.Imports) => WebAssembly.Instance,
) => Record<string, unknown>;

/** A tool loaded into a worker. */
export interface LoadedTool {
  instantiate: Instantiate;
  modules: Record<string, WebAssembly.Module>;
  /** Memory pools of the core modules that import their memory. */
  pools: Map<WebAssembly.Module, MemoryPool>;
  /** Instances created ahead of calls, each used by exactly one call. */
  spares: GuestInstance[];
}

/** One instance, for one call. */
export interface GuestInstance {
  binding: Binding;
  run: () => void;
  fuel: WebAssembly.Global;
  oom: WebAssembly.Global;
  /** Memories taken from pools; given back (reset) once the call is over. */
  memories: [MemoryPool, WebAssembly.Memory][];
}

const MAX_I64 = 2n ** 63n - 1n;
/** What an instrumented core module needs from the host: limit globals, a memory, table elements. */
interface BoxbotNeeds {
  limits: boolean;
  memory: boolean;
  /** The instance-wide table budget the module was built for, and what its own tables take at start. */
  tables: { budget: number; atStart: number } | undefined;
}

const boxbotImports = new WeakMap<WebAssembly.Module, BoxbotNeeds>();

function boxbotNeeds(m: WebAssembly.Module): BoxbotNeeds {
  let needs = boxbotImports.get(m);
  if (!needs) {
    const imports = WebAssembly.Module.imports(m).filter((i) => i.module === FUEL_IMPORT.module);
    const section = WebAssembly.Module.customSections(m, TABLES_SECTION)[0];
    const info = section && section.byteLength >= 8 ? new DataView(section) : undefined;
    needs = {
      limits: imports.some((i) => i.name === FUEL_IMPORT.name),
      memory: imports.some((i) => i.name === MEMORY_IMPORT.name),
      tables: info ? { budget: info.getUint32(0, true), atStart: info.getUint32(4, true) } : undefined,
    };
    boxbotImports.set(m, needs);
  }
  return needs;
}

/** Creates a fresh instance of `tool`, not yet bound to a call. */
export function createInstance(tool: LoadedTool): GuestInstance {
  const binding = new Binding();
  const fuel = new WebAssembly.Global({ value: 'i64', mutable: true }, MAX_I64);
  const oom = new WebAssembly.Global({ value: 'i32', mutable: true }, 0);
  // Set from the first instrumented module's budget; every module's tables are charged to it.
  let tables: WebAssembly.Global | undefined;
  const memories: GuestInstance['memories'] = [];
  try {
    const exports = tool.instantiate(
      (name) => {
        const m = tool.modules[name];
        if (!m) throw new Error(`glue asked for unknown core module ${name}`);
        return m;
      },
      hostImports(binding),
      (m, imports) => {
        let all: WebAssembly.Imports = imports ?? {};
        const needs = boxbotNeeds(m);
        if (needs.tables) {
          tables ??= new WebAssembly.Global({ value: 'i32', mutable: true }, needs.tables.budget);
          // Tables are allocated by instantiation itself, before any guest code could be stopped.
          const left = (tables.value as number) - needs.tables.atStart;
          if (left < 0) {
            throw new RangeError(
              `memory limit reached: the tool's tables need more than ${needs.tables.budget} elements`,
            );
          }
          tables.value = left;
        }
        if (needs.limits || needs.memory) {
          const own: Record<string, WebAssembly.ImportValue> = {};
          if (needs.limits)
            Object.assign(own, { [FUEL_IMPORT.name]: fuel, [OOM_IMPORT.name]: oom, [TABLES_IMPORT.name]: tables });
          const pool = needs.memory ? tool.pools.get(m) : undefined;
          if (needs.memory) {
            if (!pool) throw new Error('a core module imports its memory but the tool has no image for it');
            const mem = pool.take();
            memories.push([pool, mem]);
            own[MEMORY_IMPORT.name] = mem;
          }
          all = { ...all, [FUEL_IMPORT.module]: own };
        }
        // WASI 0.2 `exit` carries only ok/err, so the preview1 adapter would turn proc_exit(42)
        // into 1. A preview1 command's own proc_exit is answered here with its exact code.
        const p1 = all.wasi_snapshot_preview1;
        if (p1 && 'proc_exit' in p1) {
          const procExit = (code: number) => binding.current.fail({ exit: code >>> 0 });
          all = { ...all, wasi_snapshot_preview1: { ...p1, proc_exit: procExit } };
        }
        return new WebAssembly.Instance(m, all);
      },
    );
    const runKey = Object.keys(exports).find((k) => k.startsWith('wasi:cli/run@'));
    const runIface = (runKey ? exports[runKey] : exports.run) as { run?: () => void } | undefined;
    if (!runIface?.run) throw new Error('the component does not export wasi:cli/run');
    return { binding, run: runIface.run, fuel, oom, memories };
  } catch (e) {
    // Nothing ran in these memories yet, but they may be half-initialized by the failed setup.
    release({ memories });
    throw e;
  }
}

/** Gives a finished instance's memories back to their pools (reset); the instance is dead. */
export function release(inst: Pick<GuestInstance, 'memories'>): void {
  for (const [pool, mem] of inst.memories.splice(0)) pool.recycle(mem);
}
