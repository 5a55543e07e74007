// Rewrites a core module so the host can enforce limits the engine does not: deterministic
// fuel (instruction metering), a linear-memory cap, and a flag raised when the guest hits
// that cap. Two mutable globals are imported from "boxbot" (fuel: i64, oom: i32); imported
// globals come first in the index space, so every existing global index moves up by two.
import { encName, encS64, encU32, readInstr, readSections, Reader, skipValType, type Section } from './reader.ts';
import { skipImportDesc, skipLimits } from './classify.ts';

/** The fuel counter every instrumented module imports (i64; below zero means exhausted). */
export const FUEL_IMPORT = { module: 'boxbot', name: 'fuel' } as const;
/** Set to 1 by an instrumented module when a memory.grow fails against the cap. */
export const OOM_IMPORT = { module: 'boxbot', name: 'oom' } as const;

/** What to add. */
export interface InstrumentOptions {
  fuel: boolean;
  maxMemoryBytes?: number;
}

class Writer {
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
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  range(src: Uint8Array, start: number, end: number): void {
    this.bytes(src.subarray(start, end));
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
}

function layoutOf(bytes: Uint8Array, sections: Section[]): Layout {
  const l: Layout = { importedFuncs: 0, importedGlobals: 0, definedFuncs: 0, memory64: [], plainTypeCount: 0 };
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
        skipImportDesc(r, kind);
      }
    } else if (s.id === 3) {
      l.definedFuncs = r.u32();
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

/** Instruments one core module; throws with a clear message if it cannot. */
export function instrumentModule(bytes: Uint8Array, opts: InstrumentOptions): Uint8Array {
  const sections = readSections(bytes);
  const lay = layoutOf(bytes, sections);
  const shift = 2;
  const fuelIdx = lay.importedGlobals;
  const oomIdx = lay.importedGlobals + 1;
  const remap = (i: number) => (i >= lay.importedGlobals ? i + shift : i);
  const capPages = opts.maxMemoryBytes === undefined ? undefined : Math.max(1, Math.floor(opts.maxMemoryBytes / 65536));
  const canWrapGrow = capPages !== undefined && lay.plainTypeCount !== undefined;
  const growWrappers: number[] = []; // memory indexes, in wrapper order
  const wrapperFunc = (mem: number) => {
    let k = growWrappers.indexOf(mem);
    if (k < 0) k = growWrappers.push(mem) - 1;
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
    w.bytes([0x23, ...fuelGlobal, 0x42, ...encS64(BigInt(Math.max(1, cost))), 0x7d, 0x24, ...fuelGlobal]);
    if (check) w.bytes([0x23, ...fuelGlobal, 0x42, 0x00, 0x53, 0x04, 0x40, 0x00, 0x0b]);
  };

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
      while (r.pos < end) {
        const ins = readInstr(r);
        count++;
        if (ins.op === 0x23 || ins.op === 0x24) {
          seg.bytes([ins.op, ...encU32(remap(new Reader(bytes, ins.start + 1).u32()))]);
        } else if (ins.op === 0x40 && canWrapGrow) {
          const mem = new Reader(bytes, ins.start + 1).u32();
          if (lay.memory64[mem]) seg.range(bytes, ins.start, ins.end);
          else seg.bytes([0x10, ...encU32(wrapperFunc(mem))]);
        } else {
          seg.range(bytes, ins.start, ins.end);
          // A new straight-line segment starts where control can enter other than by falling
          // through: a loop header, an if/else arm, after an end (branch target), after br_if.
          // Each segment is charged its own instruction count when entered, so an interpreter's
          // dispatch loop pays for the path it runs, not for the whole switch.
          if (opts.fuel && SEGMENT_START.has(ins.op) && r.pos < end) {
            fuelPrologue(body, count, check);
            body.bytes(seg.result());
            seg.len = 0;
            count = 0;
            check = ins.op === 0x03;
          }
        }
      }
      if (opts.fuel) {
        fuelPrologue(body, count, check);
        body.bytes(seg.result());
      }
      out.bytes(encU32(body.len));
      out.bytes(body.result());
    }
    for (const mem of growWrappers) {
      // (func (param i32) (result i32) (local i32)
      //   local.get 0 memory.grow mem local.tee 1 i32.const -1 i32.eq (if (global.set oom 1)) local.get 1)
      const code = [0x01, 0x01, 0x7f, 0x20, 0x00, 0x40, ...encU32(mem), 0x22, 0x01, 0x41, 0x7f, 0x46, 0x04, 0x40,
        0x41, 0x01, 0x24, ...encU32(oomIdx), 0x0b, 0x20, 0x01, 0x0b];
      out.bytes([...encU32(code.length), ...code]);
    }
    const result = out.result();
    if (growWrappers.length) {
      // Patch the function count now that wrappers are known.
      const head = new Reader(result);
      head.u32();
      const fixed = new Writer();
      fixed.bytes(encU32(n + growWrappers.length));
      fixed.range(result, head.pos, result.length);
      return fixed.result().slice();
    }
    return result.slice();
  };

  // Code first: it decides how many grow wrappers the other sections must declare.
  const codeSection = sections.find((s) => s.id === 10);
  const newCode = codeSection ? rewriteCode(codeSection) : undefined;

  const rewrite = (s: Section): Uint8Array => {
    const r = new Reader(bytes, s.start);
    const w = new Writer();
    switch (s.id) {
      case 1: {
        const n = r.u32();
        w.bytes(encU32(n + (growWrappers.length ? 1 : 0)));
        w.range(bytes, r.pos, s.end);
        if (growWrappers.length) w.bytes([0x60, 0x01, 0x7f, 0x01, 0x7f]);
        return w.result();
      }
      case 2: {
        const n = r.u32();
        w.bytes(encU32(n + 2));
        w.range(bytes, r.pos, s.end);
        w.bytes([...encName(FUEL_IMPORT.module), ...encName(FUEL_IMPORT.name), 0x03, 0x7e, 0x01]);
        w.bytes([...encName(OOM_IMPORT.module), ...encName(OOM_IMPORT.name), 0x03, 0x7f, 0x01]);
        return w.result();
      }
      case 3: {
        const n = r.u32();
        w.bytes(encU32(n + growWrappers.length));
        w.range(bytes, r.pos, s.end);
        for (let i = 0; i < growWrappers.length; i++) w.bytes(encU32(lay.plainTypeCount!));
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
          skipLimits(r);
          w.range(bytes, start, r.pos);
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
            w.bytes([flags, ...encU64(min), ...(max !== undefined ? encU64(max) : []), ...(page !== undefined ? encU32(page) : [])]);
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
  const emit = (id: number, payload: Uint8Array) => {
    out.bytes([id, ...encU32(payload.length)]);
    out.bytes(payload);
  };
  const extraImports = () => {
    const w = new Writer();
    w.bytes([0x02, ...encName(FUEL_IMPORT.module), ...encName(FUEL_IMPORT.name), 0x03, 0x7e, 0x01]);
    w.bytes([...encName(OOM_IMPORT.module), ...encName(OOM_IMPORT.name), 0x03, 0x7f, 0x01]);
    return w.result();
  };
  // A module without an import section gets one where the format puts it: after the types.
  let importsDone = sections.some((s) => s.id === 2);
  for (const s of sections) {
    if (!importsDone && s.id !== 0 && s.id !== 1) {
      emit(2, extraImports());
      importsDone = true;
    }
    emit(s.id, rewrite(s));
  }
  if (!importsDone) emit(2, extraImports());
  const result = out.result().slice();
  if (!WebAssembly.validate(result)) throw new Error('instrumentation produced an invalid module (please report this tool)');
  return result;
}
