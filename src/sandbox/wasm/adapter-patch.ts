// Corrects the WASI preview1 adapter (jco's copy of Wasmtime's) where it departs from preview1,
// by rewriting its core module before it is linked into a tool: new functions are appended and
// exports are pointed at them, so no existing index moves (replaceAdapterExports, which the
// pointer translation for shifted modules in adapter-pointers.ts uses too).
//
// fd_write: the adapter skips empty buffers first and answers success with nothing to write,
// before it looks the fd up, so an empty write to a closed or made-up fd succeeds (POSIX and
// Wasmtime answer EBADF). The replacement checks the fd with the adapter's own fd_fdstat_get
// when every buffer is empty, then hands over to the original fd_write either way. The check's
// answer goes on the adapter's own stack, so the guest's memory is never touched.

import { encU32, Reader, readSections, type Section } from './reader.ts';

/** A function's index in the module's function space, by export name (functions only). */
function funcExports(bytes: Uint8Array, exports: Section): Map<string, { index: number; at: number }> {
  const out = new Map<string, { index: number; at: number }>();
  const r = new Reader(bytes, exports.start);
  for (let n = r.u32(); n > 0; n--) {
    const name = r.name();
    const kind = r.byte();
    const at = r.pos;
    const index = r.u32();
    if (kind === 0) out.set(name, { index, at });
  }
  return out;
}

function importedFuncCount(bytes: Uint8Array, imports: Section | undefined): number {
  if (!imports) return 0;
  const r = new Reader(bytes, imports.start);
  let funcs = 0;
  for (let n = r.u32(); n > 0; n--) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) {
      funcs++;
      r.u32();
    } else if (kind === 2) {
      const flags = r.byte();
      r.skipLeb();
      if (flags & 1) r.skipLeb();
      if (flags & 8) r.u32();
    } else {
      // The adapter imports only functions and its memory; anything else is another adapter.
      throw new Error(`unexpected import kind ${kind} in the preview1 adapter`);
    }
  }
  return funcs;
}

/**
 * The body of the checking fd_write (params fd, iovs, iovs_len, nwritten), without its size.
 * fd_fdstat_get's answer goes to 32 bytes of the adapter's own stack (its `__stack_pointer`,
 * as the args/environ wrapper in adapter-pointers.ts does), never to the guest's memory: bytes
 * borrowed from the guest and put back after would stay changed if anything trapped in between.
 */
function checkedFdWriteBody(fdWrite: number, fdstatGet: number, stackPointer: number): number[] {
  const callOriginal = [0x20, 0, 0x20, 1, 0x20, 2, 0x20, 3, 0x10, ...encU32(fdWrite)];
  const sp = encU32(stackPointer);
  return [
    // locals: 4 = buffer index, 5 = errno, 6 = the fdstat's place on the adapter's stack (i32)
    1,
    3,
    0x7f,
    // Any non-empty buffer: the original checks the fd as it writes.
    0x02,
    0x40,
    0x03,
    0x40,
    ...[0x20, 4, 0x20, 2, 0x4f, 0x0d, 1], // i >= iovs_len: all empty, to the check
    ...[0x20, 1, 0x20, 4, 0x41, 3, 0x74, 0x6a, 0x28, 2, 4], // iovs[i].buf_len
    ...[0x04, 0x40, ...callOriginal, 0x0f, 0x0b],
    ...[0x20, 4, 0x41, 1, 0x6a, 0x21, 4, 0x0c, 0],
    0x0b,
    0x0b,
    // No stack yet (sp < 32): nothing to check with.
    ...[0x23, ...sp, 0x41, 32, 0x49, 0x04, 0x40, ...callOriginal, 0x0f, 0x0b],
    // sp -= 32 (keeps its 16-byte alignment); fd_fdstat_get(fd, sp); sp += 32
    ...[0x23, ...sp, 0x41, 32, 0x6b, 0x22, 6, 0x24, ...sp],
    ...[0x20, 0, 0x20, 6, 0x10, ...encU32(fdstatGet), 0x21, 5],
    ...[0x20, 6, 0x41, 32, 0x6a, 0x24, ...sp],
    ...[0x20, 5, 0x04, 0x40, 0x20, 5, 0x0f, 0x0b],
    ...callOriginal,
    0x0b,
  ];
}

/** What a replacement's body may refer to: the adapter's exports and named globals. */
export interface AdapterLookup {
  /** The function an export names before any export is re-pointed; throws when there is none. */
  func(name: string): number;
  /** Parameter and result types (value type bytes) of an exported function. */
  signature(name: string): { params: number[]; results: number[] };
  /** A global's index by its name in the name section; throws when there is none. */
  global(name: string): number;
  /** The names of every exported function. */
  exportedFuncs(): string[];
}

/**
 * What to export instead, by export name: the body (locals declaration and code, without its
 * size) of each new function, built from what the lookup finds in the adapter.
 */
export type ReplacementPlan = (lookup: AdapterLookup) => Record<string, number[]>;

/** Function types of the module, by index (function types only; anything else is refused). */
function funcTypes(bytes: Uint8Array, types: Section): { params: number[]; results: number[] }[] {
  const r = new Reader(bytes, types.start);
  const out: { params: number[]; results: number[] }[] = [];
  for (let n = r.u32(); n > 0; n--) {
    if (r.byte() !== 0x60) throw new Error('the adapter has a type that is not a function type');
    const vec = () =>
      Array.from({ length: r.u32() }, () => {
        const t = r.byte();
        if (t === 0x63 || t === 0x64) throw new Error('the adapter has a typed reference in a signature');
        return t;
      });
    const params = vec();
    out.push({ params, results: vec() });
  }
  return out;
}

/** Global names from the name section (subsection 7), by name. */
function globalNames(bytes: Uint8Array, sections: Section[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of sections) {
    if (s.id !== 0) continue;
    const r = new Reader(bytes, s.start);
    if (r.name() !== 'name') continue;
    while (r.pos < s.end) {
      const id = r.byte();
      const end = r.u32() + r.pos;
      if (id === 7) {
        for (let n = r.u32(); n > 0; n--) {
          const index = r.u32();
          out.set(r.name(), index);
        }
      }
      r.pos = end;
    }
  }
  return out;
}

/**
 * The adapter with each export the plan names pointed at a new function (appended, with the
 * replaced function's type); throws when the adapter is not what the plan expects (an export or
 * global it looks up is missing).
 */
export function replaceAdapterExports(bytes: Uint8Array, plan: ReplacementPlan): Uint8Array {
  const sections = readSections(bytes);
  const byId = (id: number) => sections.find((s) => s.id === id);
  const types = byId(1);
  const funcs = byId(3);
  const exports = byId(7);
  const code = byId(10);
  if (!types || !funcs || !exports || !code) throw new Error('the adapter has no functions or exports');
  const named = funcExports(bytes, exports);
  const imported = importedFuncCount(bytes, byId(2));
  const fr = new Reader(bytes, funcs.start);
  const defined = fr.u32();
  const funcTypesAt = fr.pos;
  const typeOfFunc = Array.from({ length: defined }, () => fr.u32());
  const signatures = funcTypes(bytes, types);
  const globals = globalNames(bytes, sections);
  const lookup: AdapterLookup = {
    func(name) {
      const f = named.get(name);
      if (!f || f.index < imported) throw new Error(`the adapter exports no function ${name}`);
      return f.index;
    },
    signature(name) {
      return signatures[typeOfFunc[lookup.func(name) - imported]!]!;
    },
    global(name) {
      const g = globals.get(name);
      if (g === undefined) throw new Error(`the adapter has no global named ${name}`);
      return g;
    },
    exportedFuncs: () => [...named.keys()],
  };
  const replacements = plan(lookup);
  const names = Object.keys(replacements);
  const bodies = names.map((name) => [...encU32(replacements[name]!.length), ...replacements[name]!]);
  const newTypes = names.map((name) => typeOfFunc[lookup.func(name) - imported]!);
  /** Export name → the index of its replacement. */
  const repointed = new Map(names.map((name, k) => [name, imported + defined + k]));

  const chunks: Uint8Array[] = [bytes.subarray(0, 8)];
  const emit = (id: number, ...parts: Uint8Array[]) => {
    const size = parts.reduce((sum, p) => sum + p.length, 0);
    chunks.push(Uint8Array.of(id, ...encU32(size)), ...parts);
  };
  const u32 = (n: number) => Uint8Array.from(encU32(n));
  for (const s of sections) {
    if (s.id === 3) {
      emit(
        3,
        u32(defined + names.length),
        bytes.subarray(funcTypesAt, s.end),
        Uint8Array.from(newTypes.flatMap(encU32)),
      );
    } else if (s.id === 10) {
      const r = new Reader(bytes, s.start);
      const n = r.u32();
      emit(10, u32(n + names.length), bytes.subarray(r.pos, s.end), Uint8Array.from(bodies.flat()));
    } else if (s.id === 7) {
      // Every entry is rewritten: re-pointed ones get their replacement, the rest stay as they are.
      const parts: Uint8Array[] = [];
      let copied = s.start;
      for (const [name, { at }] of named) {
        const to = repointed.get(name);
        if (to === undefined) continue;
        const r = new Reader(bytes, at);
        r.u32();
        parts.push(bytes.subarray(copied, at), u32(to));
        copied = r.pos;
      }
      parts.push(bytes.subarray(copied, s.end));
      emit(7, ...parts);
    } else {
      emit(s.id, bytes.subarray(s.start, s.end));
    }
  }
  return Buffer.concat(chunks);
}

/**
 * The adapter with its corrections, or the bytes unchanged when they are not the adapter this
 * was written for (no fd_write/fd_fdstat_get exports, no `__stack_pointer`): an unknown adapter
 * is linked as it is.
 */
export function patchPreview1Adapter(bytes: Uint8Array): Uint8Array {
  try {
    return replaceAdapterExports(bytes, (a) => ({
      fd_write: checkedFdWriteBody(a.func('fd_write'), a.func('fd_fdstat_get'), a.global('__stack_pointer')),
    }));
  } catch {
    return bytes;
  }
}
