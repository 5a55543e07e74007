// Rewrites a core module so the host can enforce limits the engine does not: deterministic
// fuel (instruction metering), a linear-memory cap, a table-element budget, and a flag raised
// when the guest hits a cap. Three mutable globals are imported from "boxbot" (fuel: i64,
// oom: i32, tables: i32); imported globals come first in the index space, so every existing
// global index moves up by three.
//
// Why tables: a table's elements live in the engine's own heap, not in linear memory, and V8
// dies with the whole process (not just the worker) when one table.grow asks for more than
// the heap has left. So tables are charged against the memory limit: every defined table's
// maximum is capped, and every table.grow goes through a wrapper that draws from one budget
// shared by all core modules of an instance (the `tables` global, elements left).

import { skipImportDesc, skipLimits } from './classify.ts';
import { encName, encS64, encU32, Reader, readInstr, readSections, type Section, skipValType } from './reader.ts';

/** The fuel counter every instrumented module imports (i64; below zero means exhausted). */
export const FUEL_IMPORT = { module: 'boxbot', name: 'fuel' } as const;
/** Set to 1 by an instrumented module when a memory.grow or table.grow fails against the cap. */
export const OOM_IMPORT = { module: 'boxbot', name: 'oom' } as const;
/** Table elements the instance may still add (i32), shared by all its core modules. */
export const TABLES_IMPORT = { module: 'boxbot', name: 'tables' } as const;
/**
 * Custom section of an instrumented module: two u32 (little endian), the instance-wide table
 * budget it was built for and the elements its own tables take at instantiation. The host
 * charges the latter before instantiating, so many modules cannot add up past the budget.
 */
export const TABLES_SECTION = 'boxbot.tables';

/**
 * Linear-memory bytes one table element is charged: V8 keeps about four words per funcref
 * entry, and a growing table briefly holds the old and the new arrays.
 */
export const TABLE_ELEMENT_BYTES = 64;
/** Table elements an instance may hold whatever its memory limit: they live in the worker's heap. */
export const MAX_TABLE_ELEMENTS = 1 << 20;

/** The table elements an instance with memory limit `maxMemoryBytes` may hold in all. */
export function tableElementBudget(maxMemoryBytes: number | undefined): number {
  if (maxMemoryBytes === undefined) return MAX_TABLE_ELEMENTS;
  return Math.max(1, Math.min(MAX_TABLE_ELEMENTS, Math.floor(maxMemoryBytes / TABLE_ELEMENT_BYTES)));
}

/** What to add. */
export interface InstrumentOptions {
  fuel: boolean;
  maxMemoryBytes?: number;
  /**
   * Validate the result (default true). A caller that validates it, or a module derived from
   * it, itself may skip this: validating a 16 MB module is a good part of a first compile.
   */
  validate?: boolean;
}

/** A growable byte buffer the module rewriters write into. */
export class Writer {
  buf = new Uint8Array(1 << 16);
  len = 0;
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  bytes(b: ArrayLike<number>): void {
    this.room(b.length);
    // A few bytes at a time (most writes): a plain loop beats TypedArray.set's setup.
    if (b.length <= 16) for (let i = 0; i < b.length; i++) this.buf[this.len + i] = b[i]!;
    else this.buf.set(b, this.len);
    this.len += b.length;
  }
  /** One unsigned LEB128, written in place. */
  u32(n: number): void {
    this.room(5);
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n !== 0) b |= 0x80;
      this.buf[this.len++] = b;
    } while (n !== 0);
  }
  range(src: Uint8Array, start: number, end: number): void {
    if (end - start <= 16) {
      this.room(end - start);
      for (let i = start; i < end; i++) this.buf[this.len++] = src[i]!;
    } else this.bytes(src.subarray(start, end));
  }
  result(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

interface Layout {
  importedFuncs: number;
  importedGlobals: number;
  definedFuncs: number;
  /** Memory index → is it memory64. */
  memory64: boolean[];
  /** Type index the grow wrapper can use, or undefined when the type section is not plain. */
  plainTypeCount: number | undefined;
  /** Table index → its element type byte when a plain funcref/externref, else undefined. */
  tableTypes: (number | undefined)[];
  /** Tables this module defines (not imported). */
  definedTables: number;
}

/** A table's element type when it is one byte (funcref, externref); typed references are not. */
function plainRefType(r: Reader): number | undefined {
  const t = r.byte();
  if (t === 0x63 || t === 0x64) {
    r.skipLeb();
    return undefined;
  }
  return t;
}

function layoutOf(bytes: Uint8Array, sections: Section[]): Layout {
  const l: Layout = {
    importedFuncs: 0,
    importedGlobals: 0,
    definedFuncs: 0,
    memory64: [],
    plainTypeCount: 0,
    tableTypes: [],
    definedTables: 0,
  };
  for (const s of sections) {
    const r = new Reader(bytes, s.start);
    if (s.id === 1) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        if (r.byte() !== 0x60) {
          l.plainTypeCount = undefined;
          break;
        }
        for (let k = 0; k < 2; k++) for (let c = r.u32(); c > 0; c--) skipValType(r);
      }
      if (l.plainTypeCount !== undefined) l.plainTypeCount = n;
    } else if (s.id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) l.importedFuncs++;
        if (kind === 3) l.importedGlobals++;
        if (kind === 2) l.memory64.push((r.peek() & 4) !== 0);
        if (kind === 1) {
          l.tableTypes.push(plainRefType(r));
          skipLimits(r);
          continue;
        }
        skipImportDesc(r, kind);
      }
    } else if (s.id === 3) {
      l.definedFuncs = r.u32();
    } else if (s.id === 4) {
      for (let n = r.u32(); n > 0; n--) {
        const withInit = r.peek() === 0x40;
        if (withInit) r.skip(2);
        l.tableTypes.push(plainRefType(r));
        l.definedTables++;
        skipLimits(r);
        if (withInit) while (readInstr(r).op !== 0x0b);
      }
    } else if (s.id === 5) {
      for (let n = r.u32(); n > 0; n--) {
        l.memory64.push((r.peek() & 4) !== 0);
        skipLimits(r);
      }
    }
  }
  return l;
}

function encU64(v: bigint): number[] {
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

/** Opcodes after which a metered segment starts: loop, if, else, end, br_if. */
const SEGMENT_START = new Set([0x03, 0x04, 0x05, 0x0b, 0x0d]);

/** Why a rewritten module is refused when it does not validate. */
export const INVALID_OUTPUT = 'instrumentation produced an invalid module (please report this tool)';

/** Signed LEB128 of a segment's cost (small, non-negative), cached: most costs repeat. */
const costLebs: number[][] = [];
function costLeb(cost: number): number[] {
  if (cost >= 4096) return encS64(BigInt(cost));
  costLebs[cost] ??= encS64(BigInt(cost));
  return costLebs[cost]!;
}

/** Instruments one core module; throws with a clear message if it cannot. */
export function instrumentModule(bytes: Uint8Array, opts: InstrumentOptions): Uint8Array {
  const sections = readSections(bytes);
  const lay = layoutOf(bytes, sections);
  const shift = 3;
  const fuelIdx = lay.importedGlobals;
  const oomIdx = lay.importedGlobals + 1;
  const tablesIdx = lay.importedGlobals + 2;
  const remap = (i: number) => (i >= lay.importedGlobals ? i + shift : i);
  const capPages = opts.maxMemoryBytes === undefined ? undefined : Math.max(1, Math.floor(opts.maxMemoryBytes / 65536));
  const canWrapGrow = capPages !== undefined && lay.plainTypeCount !== undefined;
  const tableBudget = tableElementBudget(opts.maxMemoryBytes);
  // Without the wrapper (typed references, a non-plain type section) each table gets an equal
  // share of the budget as its fixed maximum instead, so together they still fit.
  const canWrapTable = (t: number) => lay.plainTypeCount !== undefined && lay.tableTypes[t] !== undefined;
  const staticTableCap = lay.tableTypes.every((_, t) => canWrapTable(t))
    ? tableBudget
    : Math.max(1, Math.floor(tableBudget / Math.max(1, lay.definedTables)));
  /** Grow wrappers appended as new functions, in order; `elem` is a table's element type byte. */
  const wrappers: ({ kind: 'memory'; index: number } | { kind: 'table'; index: number; elem: number })[] = [];
  /** Function types appended for the wrappers: the memory one `(i32) -> i32`, or a table element type. */
  const extraTypes: ('memory' | number)[] = [];
  const typeOf = (t: 'memory' | number) => {
    let k = extraTypes.indexOf(t);
    if (k < 0) k = extraTypes.push(t) - 1;
    return lay.plainTypeCount! + k;
  };
  const wrapperFunc = (kind: 'memory' | 'table', index: number) => {
    let k = wrappers.findIndex((w) => w.kind === kind && w.index === index);
    if (k < 0) {
      k = wrappers.push(kind === 'memory' ? { kind, index } : { kind, index, elem: lay.tableTypes[index]! }) - 1;
    }
    return lay.importedFuncs + lay.definedFuncs + k;
  };

  /** Copies a constant expression, renumbering globals. */
  const constExpr = (r: Reader, w: Writer) => {
    for (;;) {
      const ins = readInstr(r);
      if (ins.op === 0x23) w.bytes([0x23, ...encU32(remap(new Reader(bytes, ins.start + 1).u32()))]);
      else w.range(bytes, ins.start, ins.end);
      if (ins.op === 0x0b) return;
    }
  };

  const fuelGlobal = encU32(fuelIdx);
  /**
   * Charges a segment its instruction count on entry. Only a function's entry and a loop header
   * also check for exhaustion: every unbounded execution passes one of them, and leaving the
   * check out of the other segments halves the code the metering adds. The trap still comes
   * at the same point of the same path every time.
   */
  const fuelPrologue = (w: Writer, cost: number, check: boolean) => {
    w.bytes([0x23, ...fuelGlobal, 0x42, ...costLeb(Math.max(1, cost)), 0x7d, 0x24, ...fuelGlobal]);
    if (check) w.bytes([0x23, ...fuelGlobal, 0x42, 0x00, 0x53, 0x04, 0x40, 0x00, 0x0b]);
  };

  /** The table index of a table.grow instruction. */
  const tableOf = (ins: { start: number }) => {
    const r = new Reader(bytes, ins.start + 1);
    r.u32();
    return r.u32();
  };
  // (func (param i32) (result i32) (local i32)
  //   local.get 0 memory.grow mem local.tee 1 i32.const -1 i32.eq (if (global.set oom 1)) local.get 1)
  const memoryGrowWrapper = (mem: number) => [
    0x01,
    0x01,
    0x7f,
    0x20,
    0x00,
    0x40,
    ...encU32(mem),
    0x22,
    0x01,
    0x41,
    0x7f,
    0x46,
    0x04,
    0x40,
    0x41,
    0x01,
    0x24,
    ...encU32(oomIdx),
    0x0b,
    0x20,
    0x01,
    0x0b,
  ];
  // (func (param elem i32) (result i32) (local i32)
  //   (if (i32.gt_u (local.get 1) (global.get tables)) (then (global.set oom 1) (return (i32.const -1))))
  //   (local.tee 2 (table.grow t (local.get 0) (local.get 1)))
  //   (if (i32.ne (local.get 2) (i32.const -1)) (then (global.set tables (i32.sub (global.get tables) (local.get 1)))))
  //   (local.get 2))
  const tableGrowWrapper = (table: number) => [
    0x01,
    0x01,
    0x7f,
    0x20,
    0x01,
    0x23,
    ...encU32(tablesIdx),
    0x4b,
    0x04,
    0x40,
    0x41,
    0x01,
    0x24,
    ...encU32(oomIdx),
    0x41,
    0x7f,
    0x0f,
    0x0b,
    0x20,
    0x00,
    0x20,
    0x01,
    0xfc,
    0x0f,
    ...encU32(table),
    0x22,
    0x02,
    0x41,
    0x7f,
    0x47,
    0x04,
    0x40,
    0x23,
    ...encU32(tablesIdx),
    0x20,
    0x01,
    0x6b,
    0x24,
    ...encU32(tablesIdx),
    0x0b,
    0x20,
    0x02,
    0x0b,
  ];

  const rewriteCode = (s: Section): Uint8Array => {
    const r = new Reader(bytes, s.start);
    const n = r.u32();
    const body = new Writer();
    const segment = new Writer();
    const out = new Writer();
    out.bytes(encU32(n));
    for (let f = 0; f < n; f++) {
      const size = r.u32();
      const end = r.pos + size;
      body.len = 0;
      const localsStart = r.pos;
      for (let groups = r.u32(); groups > 0; groups--) {
        r.u32();
        skipValType(r);
      }
      body.range(bytes, localsStart, r.pos);
      // Instructions of the current segment wait in `seg` until its cost is known.
      const seg = opts.fuel ? segment : body;
      seg.len = 0;
      let count = 0;
      let check = true;
      // Instructions kept as they are, [runStart, runEnd), are copied in one go when something
      // else is written: most of a body is copied unchanged, one small copy each was slow.
      let runStart = -1;
      let runEnd = 0;
      const flushRun = () => {
        if (runStart < 0) return;
        seg.range(bytes, runStart, runEnd);
        runStart = -1;
      };
      while (r.pos < end) {
        const ins = readInstr(r);
        count++;
        if (ins.op === 0x23 || ins.op === 0x24) {
          flushRun();
          seg.bytes([ins.op]);
          seg.u32(remap(new Reader(bytes, ins.start + 1).u32()));
        } else if (ins.op === 0x40 && canWrapGrow) {
          flushRun();
          const mem = new Reader(bytes, ins.start + 1).u32();
          if (lay.memory64[mem]) seg.range(bytes, ins.start, ins.end);
          else seg.bytes([0x10, ...encU32(wrapperFunc('memory', mem))]);
        } else if (ins.op === 0xfc && ins.sub === 15 && canWrapTable(tableOf(ins))) {
          flushRun();
          seg.bytes([0x10, ...encU32(wrapperFunc('table', tableOf(ins)))]);
        } else {
          if (runStart < 0) runStart = ins.start;
          runEnd = ins.end;
          // A new straight-line segment starts where control can enter other than by falling
          // through: a loop header, an if/else arm, after an end (branch target), after br_if.
          // Each segment is charged its own instruction count when entered, so an interpreter's
          // dispatch loop pays for the path it runs, not for the whole switch.
          if (opts.fuel && SEGMENT_START.has(ins.op) && r.pos < end) {
            flushRun();
            fuelPrologue(body, count, check);
            body.bytes(seg.result());
            seg.len = 0;
            count = 0;
            check = ins.op === 0x03;
          }
        }
      }
      flushRun();
      if (opts.fuel) {
        fuelPrologue(body, count, check);
        body.bytes(seg.result());
      }
      out.bytes(encU32(body.len));
      out.bytes(body.result());
    }
    for (const w of wrappers) {
      const code = w.kind === 'memory' ? memoryGrowWrapper(w.index) : tableGrowWrapper(w.index);
      out.bytes([...encU32(code.length), ...code]);
    }
    const result = out.result();
    if (wrappers.length) {
      // Patch the function count now that wrappers are known.
      const head = new Reader(result);
      head.u32();
      const fixed = new Writer();
      fixed.bytes(encU32(n + wrappers.length));
      fixed.range(result, head.pos, result.length);
      return fixed.result().slice();
    }
    return result.slice();
  };

  // Code first: it decides how many grow wrappers the other sections must declare.
  const codeSection = sections.find((s) => s.id === 10);
  const newCode = codeSection ? rewriteCode(codeSection) : undefined;
  // The wrappers' types are appended to the type section, which is written before the functions.
  for (const wr of wrappers) typeOf(wr.kind === 'memory' ? 'memory' : wr.elem);
  /** Elements this module's own tables hold at instantiation (counted by the table rewrite). */
  let tableMins = 0;
  const limitImports = () => [
    ...encName(FUEL_IMPORT.module),
    ...encName(FUEL_IMPORT.name),
    0x03,
    0x7e,
    0x01,
    ...encName(OOM_IMPORT.module),
    ...encName(OOM_IMPORT.name),
    0x03,
    0x7f,
    0x01,
    ...encName(TABLES_IMPORT.module),
    ...encName(TABLES_IMPORT.name),
    0x03,
    0x7f,
    0x01,
  ];

  const rewrite = (s: Section): Uint8Array => {
    const r = new Reader(bytes, s.start);
    const w = new Writer();
    switch (s.id) {
      case 1: {
        const n = r.u32();
        w.bytes(encU32(n + extraTypes.length));
        w.range(bytes, r.pos, s.end);
        for (const t of extraTypes)
          w.bytes(t === 'memory' ? [0x60, 0x01, 0x7f, 0x01, 0x7f] : [0x60, 0x02, t, 0x7f, 0x01, 0x7f]);
        return w.result();
      }
      case 2: {
        const n = r.u32();
        w.bytes(encU32(n + 3));
        w.range(bytes, r.pos, s.end);
        w.bytes(limitImports());
        return w.result();
      }
      case 3: {
        const n = r.u32();
        w.bytes(encU32(n + wrappers.length));
        w.range(bytes, r.pos, s.end);
        for (const wr of wrappers) w.bytes(encU32(typeOf(wr.kind === 'memory' ? 'memory' : wr.elem)));
        return w.result();
      }
      case 4: {
        const n = r.u32();
        w.bytes(encU32(n));
        for (let i = 0; i < n; i++) {
          const start = r.pos;
          const withInit = r.peek() === 0x40;
          if (withInit) r.skip(2);
          skipValType(r);
          w.range(bytes, start, r.pos);
          const flags = r.byte();
          if (flags !== 0 && flags !== 1) throw new Error(`table ${i}: unsupported table limits (flags ${flags})`);
          const min = r.u32();
          const max = flags & 1 ? r.u32() : undefined;
          if (min > tableBudget) {
            throw new Error(`table ${i} needs ${min} elements at start, the memory limit allows ${tableBudget}`);
          }
          tableMins += min;
          w.bytes([0x01, ...encU32(min), ...encU32(Math.max(min, Math.min(max ?? staticTableCap, staticTableCap)))]);
          if (withInit) constExpr(r, w);
        }
        return w.result();
      }
      case 5: {
        const n = r.u32();
        w.bytes(encU32(n));
        for (let i = 0; i < n; i++) {
          const flags = r.byte();
          const min = r.u64();
          const max = flags & 1 ? r.u64() : undefined;
          const page = flags & 8 ? r.u32() : undefined;
          if (capPages === undefined || page !== undefined) {
            w.bytes([
              flags,
              ...encU64(min),
              ...(max !== undefined ? encU64(max) : []),
              ...(page !== undefined ? encU32(page) : []),
            ]);
            continue;
          }
          const cap = BigInt(capPages);
          if (min > cap) {
            throw new Error(
              `memory: the module needs ${Number(min) / 16} MiB at start, the limit is ${Number(cap) / 16} MiB`,
            );
          }
          const newMax = max === undefined || max > cap ? cap : max;
          w.bytes([flags | 1, ...encU64(min), ...encU64(newMax)]);
        }
        return w.result();
      }
      case 6: {
        const n = r.u32();
        w.bytes(encU32(n));
        for (let i = 0; i < n; i++) {
          const start = r.pos;
          skipValType(r);
          r.byte();
          w.range(bytes, start, r.pos);
          constExpr(r, w);
        }
        return w.result();
      }
      case 7: {
        const n = r.u32();
        w.bytes(encU32(n));
        for (let i = 0; i < n; i++) {
          const start = r.pos;
          r.name();
          const kind = r.byte();
          w.range(bytes, start, r.pos);
          const idx = r.u32();
          w.bytes(encU32(kind === 3 ? remap(idx) : idx));
        }
        return w.result();
      }
      case 9: {
        const n = r.u32();
        w.bytes(encU32(n));
        for (let i = 0; i < n; i++) {
          const flags = r.u32();
          w.bytes(encU32(flags));
          if (flags & 2 && !(flags & 1)) w.bytes(encU32(r.u32())); // table index
          if (!(flags & 1)) constExpr(r, w); // active: offset
          const exprs = (flags & 4) !== 0;
          if (flags & 3) {
            const start = r.pos;
            if (exprs) skipValType(r);
            else r.byte();
            w.range(bytes, start, r.pos);
          }
          const count = r.u32();
          w.bytes(encU32(count));
          for (let k = 0; k < count; k++) {
            if (exprs) constExpr(r, w);
            else w.bytes(encU32(r.u32()));
          }
        }
        return w.result();
      }
      case 10:
        return newCode!;
      case 11: {
        const n = r.u32();
        w.bytes(encU32(n));
        for (let i = 0; i < n; i++) {
          const flags = r.u32();
          w.bytes(encU32(flags));
          if (flags === 2) w.bytes(encU32(r.u32()));
          if (flags !== 1) constExpr(r, w);
          const start = r.pos;
          const len = r.u32();
          r.skip(len);
          w.range(bytes, start, r.pos);
        }
        return w.result();
      }
      default:
        return bytes.subarray(s.start, s.end);
    }
  };

  const out = new Writer();
  out.range(bytes, 0, 8);
  const emit = (id: number, payload: ArrayLike<number>) => {
    out.bytes([id, ...encU32(payload.length)]);
    out.bytes(payload);
  };
  // A module without an import section gets one where the format puts it: after the types.
  let importsDone = sections.some((s) => s.id === 2);
  for (const s of sections) {
    if (!importsDone && s.id !== 0 && s.id !== 1) {
      emit(2, [0x03, ...limitImports()]);
      importsDone = true;
    }
    emit(s.id, rewrite(s));
  }
  if (!importsDone) emit(2, [0x03, ...limitImports()]);
  const tablesInfo = new DataView(new ArrayBuffer(8));
  tablesInfo.setUint32(0, tableBudget, true);
  tablesInfo.setUint32(4, tableMins, true);
  emit(0, [...encName(TABLES_SECTION), ...new Uint8Array(tablesInfo.buffer)]);
  const result = out.result().slice();
  if (opts.validate !== false && !WebAssembly.validate(result)) throw new Error(INVALID_OUTPUT);
  return result;
}
