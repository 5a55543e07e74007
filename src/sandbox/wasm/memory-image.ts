// Moves a core module's linear memory out of the module: the memory becomes an import and its
// active data segments become empty passive ones, while the bytes they wrote are returned as an
// image. The host then builds the memory itself from the image, and can reset a used memory to
// exactly that state instead of paying for a fresh one (page faults, segment copies) per call.
import { concatBytes } from '../bytes.ts';
import { skipImportDesc } from './classify.ts';
import { encName, encU32, Reader, readSections } from './reader.ts';

/** Where an externalized module imports its memory from. */
export const MEMORY_IMPORT = { module: 'boxbot', name: 'memory' } as const;

/** A linear memory's state right after instantiation: zeros, except for these chunks. */
export interface MemoryImage {
  minPages: number;
  maxPages: number | undefined;
  /** Non-overlapping, ascending by offset. */
  chunks: { offset: number; bytes: Uint8Array }[];
}

/** Zero runs shorter than this stay inside a chunk (fewer, larger copies). */
const MERGE_GAP = 256;

/**
 * Rewrites `bytes` to import its memory, or returns undefined when the module is not one whose
 * instantiation is "zeroed memory plus constant data" (no memory, several memories, an imported,
 * shared or 64-bit memory, a start function, or a data offset that is not a constant): such a
 * module keeps its own memory.
 */
export function externalizeMemory(bytes: Uint8Array): { module: Uint8Array; image: MemoryImage } | undefined {
  const sections = readSections(bytes);
  if (sections.some((s) => s.id === 8)) return undefined;
  const importSec = sections.find((s) => s.id === 2);
  if (importSec) {
    const r = new Reader(bytes, importSec.start);
    for (let n = r.u32(); n > 0; n--) {
      r.name();
      r.name();
      const kind = r.byte();
      if (kind === 2) return undefined;
      skipImportDesc(r, kind);
    }
  }
  const memSec = sections.find((s) => s.id === 5);
  if (!memSec) return undefined;
  const mr = new Reader(bytes, memSec.start);
  if (mr.u32() !== 1) return undefined;
  const flags = mr.byte();
  if (flags !== 0 && flags !== 1) return undefined;
  const minPages = mr.u32();
  const maxPages = flags & 1 ? mr.u32() : undefined;
  const size = minPages * 65536;
  if (size > 2 ** 31) return undefined;

  const dataSec = sections.find((s) => s.id === 11);
  const full = new Uint8Array(size);
  let newData: Uint8Array | undefined;
  if (dataSec) {
    const r = new Reader(bytes, dataSec.start);
    const n = r.u32();
    const out: number[][] = [encU32(n)];
    for (let i = 0; i < n; i++) {
      const segFlags = r.u32();
      if (segFlags === 1) {
        const start = r.pos;
        r.skip(r.u32());
        out.push([0x01, ...bytes.subarray(start, r.pos)]);
        continue;
      }
      if (segFlags === 2 && r.u32() !== 0) return undefined;
      if (segFlags !== 0 && segFlags !== 2) return undefined;
      if (r.byte() !== 0x41) return undefined;
      const offset = Number(r.s64()) >>> 0;
      if (r.byte() !== 0x0b) return undefined;
      const len = r.u32();
      // Out of bounds: instantiation fails; leave that to the engine, with the original module.
      if (offset + len > size) return undefined;
      full.set(bytes.subarray(r.pos, r.pos + len), offset);
      r.skip(len);
      // An active segment is dropped once applied: an empty passive one behaves the same
      // for memory.init (traps unless the length is 0) and data.drop.
      out.push([0x01, 0x00]);
    }
    newData = concatBytes(out);
  }

  const chunks: MemoryImage['chunks'] = [];
  let i = 0;
  while (i < size) {
    while (i < size && full[i] === 0) i++;
    if (i >= size) break;
    const start = i;
    let end = i;
    for (;;) {
      while (end < size && full[end] !== 0) end++;
      let next = end;
      while (next < size && full[next] === 0 && next - end < MERGE_GAP) next++;
      if (next < size && full[next] !== 0) end = next;
      else break;
    }
    chunks.push({ offset: start, bytes: full.slice(start, end) });
    i = end;
  }

  const memImport = [
    ...encName(MEMORY_IMPORT.module),
    ...encName(MEMORY_IMPORT.name),
    0x02,
    flags,
    ...encU32(minPages),
    ...(maxPages !== undefined ? encU32(maxPages) : []),
  ];
  const parts: ArrayLike<number>[] = [bytes.subarray(0, 8)];
  const emit = (id: number, payload: ArrayLike<number>) => parts.push([id, ...encU32(payload.length)], payload);
  let importsDone = false;
  for (const s of sections) {
    if (!importsDone && s.id !== 0 && s.id !== 1 && s.id !== 2) {
      emit(2, [...encU32(1), ...memImport]);
      importsDone = true;
    }
    if (s.id === 2) {
      const r = new Reader(bytes, s.start);
      const n = r.u32();
      emit(2, concatBytes([encU32(n + 1), bytes.subarray(r.pos, s.end), memImport]));
      importsDone = true;
    } else if (s.id === 5) {
    } else if (s.id === 11 && newData) {
      emit(11, newData);
    } else {
      emit(s.id, bytes.subarray(s.start, s.end));
    }
  }
  if (!importsDone) emit(2, [...encU32(1), ...memImport]);
  const module = concatBytes(parts);
  // A module this rewrite does not fit keeps its own memory rather than failing the tool.
  if (!WebAssembly.validate(module as Uint8Array<ArrayBuffer>)) return undefined;
  return { module, image: { minPages, maxPages, chunks } };
}

/** Serializes an image for the disk cache. */
export function encodeImage(image: MemoryImage): Uint8Array {
  const head = new DataView(new ArrayBuffer(12 + image.chunks.length * 8));
  head.setUint32(0, image.minPages, true);
  head.setUint32(4, image.maxPages ?? 0xffffffff, true);
  head.setUint32(8, image.chunks.length, true);
  image.chunks.forEach((c, k) => {
    head.setUint32(12 + k * 8, c.offset, true);
    head.setUint32(16 + k * 8, c.bytes.length, true);
  });
  return concatBytes([new Uint8Array(head.buffer), ...image.chunks.map((c) => c.bytes)]);
}

/** Reads an image written by encodeImage; its chunk bytes are views into `data`. */
export function decodeImage(data: Uint8Array): MemoryImage {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint32(8, true);
  const max = view.getUint32(4, true);
  let at = 12 + count * 8;
  const chunks: MemoryImage['chunks'] = [];
  for (let k = 0; k < count; k++) {
    const offset = view.getUint32(12 + k * 8, true);
    const len = view.getUint32(16 + k * 8, true);
    if (at + len > data.length) throw new Error('truncated memory image');
    chunks.push({ offset, bytes: data.subarray(at, at + len) });
    at += len;
  }
  return { minPages: view.getUint32(0, true), maxPages: max === 0xffffffff ? undefined : max, chunks };
}
