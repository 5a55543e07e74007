// Linear memories for one externalized core module, inside a worker. Each instance takes a
// memory in exactly the module's post-instantiation state (its image); after the call the
// memory is reset to that image and kept, so the next instance skips the fresh allocation,
// page faults and data-segment copies. A memory that grew is dropped, never reset.
import type { MemoryImage } from './wasm/index.ts';

/** Memories of one core module, always handed out in their image's state. */
export class MemoryPool {
  private readonly free: WebAssembly.Memory[] = [];
  private readonly bytes: number;

  constructor(
    private readonly image: MemoryImage,
    /** How many reset memories to keep for later instances. */
    private readonly keep = 3,
  ) {
    this.bytes = image.minPages * 65536;
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
    const u8 = new Uint8Array(mem.buffer);
    let at = 0;
    for (const c of this.image.chunks) {
      u8.fill(0, at, c.offset);
      u8.set(c.bytes, c.offset);
      at = c.offset + c.bytes.length;
    }
    u8.fill(0, at);
    this.free.push(mem);
  }
}
