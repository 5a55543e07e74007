// Moves a WASI preview1 command module's address space up by SHIFT_BYTES, so the pages below it
// belong to the preview1 adapter alone. The module keeps seeing addresses from 0 (its "virtual"
// addresses); every access lands SHIFT_BYTES higher. An injected `cabi_realloc` export hands
// those low pages to the adapter (wit-component asks a module's `cabi_realloc` for the adapter's
// stack and state, and otherwise takes them with `memory.grow` at the top of the module's
// memory, where a runtime that claims all of memory up to `memory.size` overwrites them:
// AssemblyScript's heap does). The adapter side, which translates pointers the module passes
// to WASI, is adapter-pointers.ts.
//
// A module this cannot shift exactly (an imported or 64-bit memory, several memories, a data
// segment placed by a global, an offset that would overflow) or that needs no shift (it gives
// the adapter memory itself, with `cabi_realloc` or `cabi_realloc_adapter`), or whose pointers
// may reach something other than the adapter (imports from elsewhere, component types) is
// returned unchanged with the reason, and runs as before.

import { errorMessage } from '../../core/errors.ts';
import { skipImportDesc } from './classify.ts';
import { Writer } from './instrument.ts';
import { encName, encS64, encU32, Reader, readInstr, readSections, type Section, skipValType } from './reader.ts';

/** Pages the module's memory moves up by: the adapter's stack and its state, one page each. */
export const SHIFT_PAGES = 2;
/** The same in bytes: what the adapter adds to every pointer the module passes it. */
export const SHIFT_BYTES = SHIFT_PAGES * 65536;

/** The shifted module, or why the module is left as it is. */
export type ShiftResult = { shifted: true; bytes: Uint8Array } | { shifted: false; reason: string };

class Refused extends Error {}

const PREVIEW1 = 'wasi_snapshot_preview1';
/** Exports wit-component gives the adapter its memory from (the first it finds). */
const REALLOCS = ['cabi_realloc_adapter', 'cabi_realloc'];

const MAX_PAGES = 65536;
const S = encS64(BigInt(SHIFT_BYTES));
const MINUS_S = encS64(BigInt(-SHIFT_BYTES));

/** Whether the instruction at hand takes a memarg (loads, stores, atomics, SIMD memory access). */
function hasMemarg(op: number, sub: number): boolean {
  if (op >= 0x28 && op <= 0x3e) return true;
  if (op === 0xfd) return sub <= 11 || sub === 92 || sub === 93 || (sub >= 84 && sub <= 91);
  if (op === 0xfe) return sub <= 2 || (sub >= 0x10 && sub <= 0x4e);
  return false;
}

/** Traps when a virtual address cannot be shifted without wrapping (it is out of bounds anyway). */
const guard = (local: number) => [0x20, local, 0x41, ...MINUS_S, 0x4f, 0x04, 0x40, 0x00, 0x0b];
/** Pushes local + SHIFT_BYTES. */
const shifted = (local: number) => [0x20, local, 0x41, ...S, 0x6a];

/** A helper function's body (locals declaration included), by key. */
function helperBody(key: string, bump: number): number[] {
  if (key === 'realloc') {
    // (old, old_size, align, new_size) -> ptr; locals 4 = ptr, 5 = end. Bump allocation in
    // [0, SHIFT_BYTES): the adapter asks twice (stack, state) and never frees or reallocates.
    return [
      ...[0x01, 0x02, 0x7f],
      ...[0x20, 0, 0x04, 0x40, 0x00, 0x0b],
      ...[0x20, 3, 0x41, ...S, 0x4b, 0x20, 2, 0x41, ...S, 0x4b, 0x72, 0x04, 0x40, 0x00, 0x0b],
      ...[0x23, ...encU32(bump), 0x20, 2, 0x6a, 0x41, 1, 0x6b, 0x41, 0, 0x20, 2, 0x6b, 0x71, 0x21, 4],
      ...[0x20, 4, 0x20, 3, 0x6a, 0x22, 5, 0x41, ...S, 0x4b, 0x04, 0x40, 0x00, 0x0b],
      ...[0x20, 5, 0x24, ...encU32(bump), 0x20, 4, 0x0b],
    ];
  }
  if (key === 'size') return [0x00, 0x3f, 0x00, 0x41, SHIFT_PAGES, 0x6b, 0x0b];
  if (key === 'grow') {
    // select(result - SHIFT_PAGES, -1, result != -1)
    return [
      ...[0x01, 0x01, 0x7f, 0x20, 0, 0x40, 0x00, 0x22, 1, 0x41, SHIFT_PAGES, 0x6b],
      ...[0x41, 0x7f, 0x20, 1, 0x41, 0x7f, 0x47, 0x1b, 0x0b],
    ];
  }
  if (key === 'fill') return [0x00, ...guard(0), ...shifted(0), 0x20, 1, 0x20, 2, 0xfc, 11, 0x00, 0x0b];
  if (key === 'copy') {
    return [0x00, ...guard(0), ...guard(1), ...shifted(0), ...shifted(1), 0x20, 2, 0xfc, 10, 0x00, 0x00, 0x0b];
  }
  const segment = Number(key.slice('init:'.length));
  return [0x00, ...guard(0), ...shifted(0), 0x20, 1, 0x20, 2, 0xfc, 8, ...encU32(segment), 0x00, 0x0b];
}

/** The types the helpers use, appended to the type section (offsets from the first new index). */
const HELPER_TYPES = [
  [0x60, 0x00, 0x01, 0x7f], // size: () -> i32
  [0x60, 0x01, 0x7f, 0x01, 0x7f], // grow: (i32) -> i32
  [0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00], // fill, copy, init: (i32, i32, i32) -> ()
  [0x60, 0x04, 0x7f, 0x7f, 0x7f, 0x7f, 0x01, 0x7f], // cabi_realloc
];
const helperType = (key: string) => (key === 'size' ? 0 : key === 'grow' ? 1 : key === 'realloc' ? 3 : 2);

/** Section ids in the order a module must have them (custom sections go anywhere). */
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

/**
 * The module with its memory moved up by SHIFT_BYTES and a `cabi_realloc` for the adapter, or
 * why it is left as it is. Example: `const r = shiftMemory(bytes); if (r.shifted) bytes = r.bytes;`
 */
export function shiftMemory(bytes: Uint8Array): ShiftResult {
  try {
    const out = shift(bytes);
    if (!WebAssembly.validate(out as Uint8Array<ArrayBuffer>))
      return { shifted: false, reason: 'the result is invalid' };
    return { shifted: true, bytes: out };
  } catch (e) {
    return { shifted: false, reason: e instanceof Refused ? e.message : `cannot read it: ${errorMessage(e)}` };
  }
}

function shift(bytes: Uint8Array): Uint8Array {
  const sections = readSections(bytes);
  const section = (id: number) => sections.find((s) => s.id === id);
  let types = 0;
  let importedFuncs = 0;
  let importedGlobals = 0;
  let definedFuncs = 0;
  let definedGlobals = 0;
  let memories = 0;
  for (const s of sections) {
    const r = new Reader(bytes, s.start);
    if (s.id === 0 && r.name().startsWith('component-type')) {
      throw new Refused('it carries component types: its exports may hand the component its pointers');
    } else if (s.id === 1) {
      types = r.u32();
      for (let i = 0; i < types; i++) {
        if (r.byte() !== 0x60) throw new Refused('its type section has more than function types');
        for (let k = 0; k < 2; k++) for (let c = r.u32(); c > 0; c--) skipValType(r);
      }
    } else if (s.id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        const from = r.name();
        const name = r.name();
        const kind = r.byte();
        if (kind === 2) throw new Refused('it imports its memory');
        // Only the adapter translates pointers: anything else would get the module's own.
        if (from !== PREVIEW1) throw new Refused(`it imports ${from}.${name}, which is not preview1`);
        if (kind === 0) importedFuncs++;
        if (kind === 3) importedGlobals++;
        skipImportDesc(r, kind);
      }
    } else if (s.id === 3) definedFuncs = r.u32();
    else if (s.id === 5) memories = r.u32();
    else if (s.id === 6) definedGlobals = r.u32();
    else if (s.id === 7) {
      for (let n = r.u32(); n > 0; n--) {
        const name = r.name();
        if (REALLOCS.includes(name)) throw new Refused(`it exports its own ${name}`);
        r.byte();
        r.u32();
      }
    }
  }
  if (memories !== 1) throw new Refused(memories ? 'it has several memories' : 'it has no memory');
  if (!section(1) || !section(3) || !section(10)) throw new Refused('it defines no functions');

  const firstHelper = importedFuncs + definedFuncs;
  const bump = importedGlobals + definedGlobals;
  /** Helpers appended after the module's functions, in order; the realloc comes first. */
  const helpers = ['realloc'];
  const helper = (key: string) => {
    let k = helpers.indexOf(key);
    if (k < 0) k = helpers.push(key) - 1;
    return firstHelper + k;
  };

  const rewriteCode = (s: Section): Uint8Array => {
    const r = new Reader(bytes, s.start);
    const n = r.u32();
    const out = new Writer();
    const body = new Writer();
    for (let f = 0; f < n; f++) {
      const size = r.u32();
      const end = r.pos + size;
      body.len = 0;
      let runStart = r.pos;
      const flush = (upTo: number) => body.range(bytes, runStart, upTo);
      for (let groups = r.u32(); groups > 0; groups--) {
        r.u32();
        skipValType(r);
      }
      while (r.pos < end) {
        const ins = readInstr(r);
        if (hasMemarg(ins.op, ins.sub)) {
          const m = new Reader(bytes, ins.start + 1);
          if (ins.op >= 0xfd) m.u32();
          const align = m.u32();
          if (align & 0x40) m.u32();
          const alignEnd = m.pos;
          const offset = Number(m.u64()) + SHIFT_BYTES;
          if (offset > 0xffffffff) throw new Refused('a memory offset would pass 4 GiB');
          flush(alignEnd);
          body.u32(offset);
          runStart = m.pos;
          continue;
        }
        let call: number | undefined;
        if (ins.op === 0x3f) call = helper('size');
        else if (ins.op === 0x40) call = helper('grow');
        else if (ins.op === 0xfc && ins.sub === 11) call = helper('fill');
        else if (ins.op === 0xfc && ins.sub === 10) call = helper('copy');
        else if (ins.op === 0xfc && ins.sub === 8) {
          const m = new Reader(bytes, ins.start + 1);
          m.u32();
          call = helper(`init:${m.u32()}`);
        }
        if (call === undefined) continue;
        flush(ins.start);
        body.bytes([0x10, ...encU32(call)]);
        runStart = ins.end;
      }
      flush(end);
      out.u32(body.len);
      out.bytes(body.result());
    }
    for (const key of helpers) {
      const code = helperBody(key, bump);
      out.bytes([...encU32(code.length), ...code]);
    }
    const w = new Writer();
    w.u32(n + helpers.length);
    w.bytes(out.result());
    return w.result();
  };

  const rewriteData = (s: Section): Uint8Array => {
    const r = new Reader(bytes, s.start);
    const w = new Writer();
    const n = r.u32();
    w.u32(n);
    for (let i = 0; i < n; i++) {
      const flags = r.u32();
      w.u32(flags);
      if (flags === 2) w.u32(r.u32());
      if (flags === 0 || flags === 2) {
        const op = r.byte();
        const value = op === 0x41 ? r.s64() : 0n;
        if (op !== 0x41 || r.byte() !== 0x0b) throw new Refused(`data segment ${i} is not placed at a constant`);
        const placed = Number(BigInt.asUintN(32, value)) + SHIFT_BYTES;
        if (placed > 0xffffffff) throw new Refused(`data segment ${i} would pass 4 GiB`);
        w.bytes([0x41, ...encS64(BigInt.asIntN(32, BigInt(placed))), 0x0b]);
      } else if (flags !== 1) throw new Refused(`data segment ${i} has unknown flags ${flags}`);
      const start = r.pos;
      r.skip(r.u32());
      w.range(bytes, start, r.pos);
    }
    return w.result();
  };

  const rewriteMemory = (s: Section): Uint8Array => {
    const r = new Reader(bytes, s.start);
    r.u32();
    const flags = r.byte();
    if (flags & ~3) throw new Refused('its memory is 64-bit or has a custom page size');
    const min = r.u32() + SHIFT_PAGES;
    if (min > MAX_PAGES) throw new Refused('its memory starts at 4 GiB');
    const max = flags & 1 ? Math.min(MAX_PAGES, r.u32() + SHIFT_PAGES) : undefined;
    return Uint8Array.from([1, flags, ...encU32(min), ...(max === undefined ? [] : encU32(max))]);
  };

  // The memory first (a 64-bit one is refused before its code is read), then the code: it
  // decides which helpers the function section declares.
  const memory = rewriteMemory(section(5)!);
  const code = rewriteCode(section(10)!);
  const appended = (s: Section | undefined, extra: number[][]): Uint8Array => {
    const r = new Reader(bytes, s?.start ?? 0);
    const n = s ? r.u32() : 0;
    const w = new Writer();
    w.u32(n + extra.length);
    if (s) w.range(bytes, r.pos, s.end);
    for (const e of extra) w.bytes(e);
    return w.result();
  };
  const replaced = new Map<number, Uint8Array>([
    [1, appended(section(1), HELPER_TYPES)],
    [
      3,
      appended(
        section(3),
        helpers.map((k) => encU32(types + helperType(k))),
      ),
    ],
    [5, memory],
    [6, appended(section(6), [[0x7f, 0x01, 0x41, 0x00, 0x0b]])],
    [7, appended(section(7), [[...encName('cabi_realloc'), 0x00, ...encU32(firstHelper)]])],
    [10, code],
  ]);
  if (section(11)) replaced.set(11, rewriteData(section(11)!));

  const out = new Writer();
  out.range(bytes, 0, 8);
  const emit = (id: number, payload: Uint8Array) => {
    out.bytes([id]);
    out.u32(payload.length);
    out.bytes(payload);
  };
  /** Sections this module lacks (a global or export section) go before the first one after them. */
  const missing = [6, 7].filter((id) => !section(id));
  const flushMissing = (before: number | undefined) => {
    while (missing.length && (before === undefined || ORDER.indexOf(missing[0]!) < ORDER.indexOf(before))) {
      const id = missing.shift()!;
      emit(id, replaced.get(id)!);
    }
  };
  for (const s of sections) {
    if (s.id !== 0) flushMissing(s.id);
    emit(s.id, replaced.get(s.id) ?? bytes.subarray(s.start, s.end));
  }
  flushMissing(undefined);
  return out.result().slice();
}
