// Linear memories for one externalized core module, inside a worker. Each instance takes a
// memory in exactly the module's post-instantiation state (its image); after the call the
// memory is reset to that image and kept, so the next instance skips the fresh allocation,
// page faults and data-segment copies. A memory that grew is dropped, never reset.
// The reset compares before it writes: a call dirties a small part of its memory (the
// componentize-js cat: about 150 of 2,320 4 KiB pages, in 30 of 145 64 KiB pages), and comparing
// a clean range with the image (or with a zero block that stays in cache) cost about half of
// rewriting it: 1.15-1.2 ms instead of 2.0-2.25 ms of CPU per cat call, measured on real calls.
import type { MemoryImage } from './wasm/index.ts';

/** Largest range compared (and, if it differs, rewritten) at once: one wasm page. */
const PIECE = 65536;
const ZEROS = new Uint8Array(PIECE);

/** One range of the memory and what it must hold after a reset (the image's bytes, or zeros). */
interface Piece {
  offset: number;
  bytes: Uint8Array;
}

/** Splits the image into ranges covering every byte of `size`: its chunks and the zeros between. */
function pieces(image: MemoryImage, size: number): Piece[] {
  const out: Piece[] = [];
  const add = (offset: number, end: number, bytes: Uint8Array | undefined) => {
    for (let at = offset; at < end; at += PIECE) {
      const length = Math.min(PIECE, end - at);
      out.push({ offset: at, bytes: bytes?.subarray(at - offset, at - offset + length) ?? ZEROS.subarray(0, length) });
    }
  };
  let at = 0;
  for (const c of image.chunks) {
    add(at, c.offset, undefined);
    add(c.offset, c.offset + c.bytes.length, c.bytes);
    at = c.offset + c.bytes.length;
  }
  add(at, size, undefined);
  return out;
}

/** Memories of one core module, always handed out in their image's state. */
export class MemoryPool {
  private readonly free: WebAssembly.Memory[] = [];
  private readonly bytes: number;
  private readonly pieces: Piece[];

  constructor(
    private readonly image: MemoryImage,
    /** How many reset memories to keep for later instances. */
    private readonly keep = 3,
  ) {
    this.bytes = image.minPages * 65536;
    this.pieces = pieces(image, this.bytes);
  }

  /** A memory holding exactly the image (zeros elsewhere), used by no one else. */
  take(): WebAssembly.Memory {
    const reused = this.free.pop();
    if (reused) return reused;
    const desc: WebAssembly.MemoryDescriptor = { initial: this.image.minPages };
    if (this.image.maxPages !== undefined) desc.maximum = this.image.maxPages;
    const mem = new WebAssembly.Memory(desc);
    const u8 = new Uint8Array(mem.buffer);
    for (const c of this.image.chunks) u8.set(c.bytes, c.offset);
    return mem;
  }

  /**
   * Takes back a memory whose instance is finished and will never run again: resets every byte
   * to the image and keeps it. A memory that grew (or is not ours to keep) is left to the GC.
   */
  recycle(mem: WebAssembly.Memory): void {
    if (this.free.length >= this.keep || mem.buffer.byteLength !== this.bytes) return;
    // compare is memcmp; the pieces cover every byte, so what is left equals the image.
    const u8 = Buffer.from(mem.buffer);
    for (const { offset, bytes } of this.pieces) {
      if (u8.compare(bytes, 0, bytes.length, offset, offset + bytes.length) !== 0) u8.set(bytes, offset);
    }
    this.free.push(mem);
  }
}
