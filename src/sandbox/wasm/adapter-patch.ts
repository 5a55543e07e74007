// Corrects the WASI preview1 adapter (jco's copy of Wasmtime's) where it departs from preview1,
// by rewriting its core module before it is linked into a tool: new functions are appended and
// an export is pointed at them, so no existing index moves.
//
// fd_write: the adapter skips empty buffers first and answers success with nothing to write,
// before it looks the fd up, so an empty write to a closed or made-up fd succeeds (POSIX and
// Wasmtime answer EBADF). The replacement checks the fd with the adapter's own fd_fdstat_get
// when every buffer is empty, then hands over to the original fd_write either way.

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

/** The body of the checking fd_write (params fd, iovs, iovs_len, nwritten). */
function checkedFdWriteBody(fdWrite: number, fdstatGet: number): number[] {
  const callOriginal = [0x20, 0, 0x20, 1, 0x20, 2, 0x20, 3, 0x10, ...encU32(fdWrite)];
  const code = [
    // locals: 4 = buffer index, 5 = errno (i32); 6..8 = the saved fdstat bytes (i64)
    2,
    2,
    0x7f,
    3,
    0x7e,
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
    // No memory to borrow: nothing to check with.
    ...[0x3f, 0, 0x45, 0x04, 0x40, ...callOriginal, 0x0f, 0x0b],
    // Borrow the fdstat's bytes at address 0 and put them back: the guest never sees them change.
    ...[0x41, 0, 0x29, 3, 0, 0x21, 6],
    ...[0x41, 0, 0x29, 3, 8, 0x21, 7],
    ...[0x41, 0, 0x29, 3, 16, 0x21, 8],
    ...[0x20, 0, 0x41, 0, 0x10, ...encU32(fdstatGet), 0x21, 5],
    ...[0x41, 0, 0x20, 6, 0x37, 3, 0],
    ...[0x41, 0, 0x20, 7, 0x37, 3, 8],
    ...[0x41, 0, 0x20, 8, 0x37, 3, 16],
    ...[0x20, 5, 0x04, 0x40, 0x20, 5, 0x0f, 0x0b],
    ...callOriginal,
    0x0b,
  ];
  return [...encU32(code.length), ...code];
}

/**
 * The adapter with its corrections, or the bytes unchanged when they are not the adapter this
 * was written for (no fd_write/fd_fdstat_get exports): an unknown adapter is linked as it is.
 */
export function patchPreview1Adapter(bytes: Uint8Array): Uint8Array {
  const sections = readSections(bytes);
  const byId = (id: number) => sections.find((s) => s.id === id);
  const funcs = byId(3);
  const exports = byId(7);
  const code = byId(10);
  if (!funcs || !exports || !code) return bytes;
  const named = funcExports(bytes, exports);
  const fdWrite = named.get('fd_write');
  const fdstatGet = named.get('fd_fdstat_get');
  if (!fdWrite || !fdstatGet) return bytes;
  const imported = importedFuncCount(bytes, byId(2));
  if (fdWrite.index < imported) return bytes;

  // The replacement has fd_write's own type.
  const fr = new Reader(bytes, funcs.start);
  const defined = fr.u32();
  let fdWriteType = -1;
  for (let i = 0; i < defined; i++) {
    const t = fr.u32();
    if (i === fdWrite.index - imported) fdWriteType = t;
  }
  const checked = imported + defined;

  const chunks: Uint8Array[] = [bytes.subarray(0, 8)];
  const emit = (id: number, ...parts: Uint8Array[]) => {
    const size = parts.reduce((sum, p) => sum + p.length, 0);
    chunks.push(Uint8Array.of(id, ...encU32(size)), ...parts);
  };
  const u32 = (n: number) => Uint8Array.from(encU32(n));
  for (const s of sections) {
    if (s.id === 3) {
      const r = new Reader(bytes, s.start);
      r.u32();
      emit(3, u32(defined + 1), bytes.subarray(r.pos, s.end), u32(fdWriteType));
    } else if (s.id === 10) {
      const r = new Reader(bytes, s.start);
      const n = r.u32();
      const body = Uint8Array.from(checkedFdWriteBody(fdWrite.index, fdstatGet.index));
      emit(10, u32(n + 1), bytes.subarray(r.pos, s.end), body);
    } else if (s.id === 7) {
      const r = new Reader(bytes, fdWrite.at);
      r.u32();
      emit(7, bytes.subarray(s.start, fdWrite.at), u32(checked), bytes.subarray(r.pos, s.end));
    } else {
      emit(s.id, bytes.subarray(s.start, s.end));
    }
  }
  return Buffer.concat(chunks);
}
