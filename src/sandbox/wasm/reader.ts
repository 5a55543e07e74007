// A minimal reader/writer for the WebAssembly binary format: LEB128, sections, and enough
// of the instruction set to find every instruction boundary. Unknown opcodes are errors,
// so a module we cannot fully understand is refused rather than rewritten wrongly.

/** Cursor over a byte array. */
export class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos = 0,
  ) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  byte(): number {
    if (this.pos >= this.bytes.length) throw new Error(`unexpected end of module at offset ${this.pos}`);
    return this.bytes[this.pos++]!;
  }

  peek(): number {
    return this.bytes[this.pos] ?? -1;
  }

  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new Error(`bad LEB128 at offset ${this.pos}`);
    }
  }

  /** Skips a signed or unsigned LEB128 of any width. */
  skipLeb(): void {
    let n = 0;
    while (this.byte() & 0x80) if (++n > 10) throw new Error(`bad LEB128 at offset ${this.pos}`);
  }

  /** Reads an unsigned LEB128 (up to 64 bits) as a bigint. */
  u64(): bigint {
    return this.leb64().result;
  }

  /** Reads a signed LEB128 (up to 64 bits) as a bigint. */
  s64(): bigint {
    const { result, shift, last } = this.leb64();
    return shift < 64n && last & 0x40 ? result - (1n << shift) : result;
  }

  /** The LEB128 bytes at the cursor: the unsigned value, its bit width and its last byte. */
  private leb64(): { result: bigint; shift: bigint; last: number } {
    let result = 0n;
    let shift = 0n;
    let b: number;
    do {
      b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80);
    return { result, shift, last: b };
  }

  skip(n: number): void {
    this.pos += n;
    if (this.pos > this.bytes.length) throw new Error('unexpected end of module');
  }

  name(): string {
    const len = this.u32();
    const s = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + len));
    this.skip(len);
    return s;
  }
}

/** Unsigned LEB128 encoding. */
export function encU32(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 encoding of a bigint. */
export function encS64(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Encodes a name (length-prefixed UTF-8). */
export function encName(s: string): number[] {
  const b = new TextEncoder().encode(s);
  return [...encU32(b.length), ...b];
}

/** One section as found in the module. */
export interface Section {
  id: number;
  /** Payload start and end offsets in the module. */
  start: number;
  end: number;
}

/** Lists a core module's sections (the caller has checked the header). */
export function readSections(bytes: Uint8Array): Section[] {
  const r = new Reader(bytes, 8);
  const out: Section[] = [];
  while (!r.done) {
    const id = r.byte();
    const size = r.u32();
    const start = r.pos;
    r.skip(size);
    out.push({ id, start, end: start + size });
  }
  return out;
}

/** Skips a value type (including typed references). */
export function skipValType(r: Reader): void {
  const b = r.byte();
  if (b === 0x63 || b === 0x64) r.skipLeb();
}

/** Skips a block type: empty, a value type, or a type index (s33). */
export function skipBlockType(r: Reader): void {
  const b = r.peek();
  if (b === 0x40) r.pos++;
  else if (b === 0x63 || b === 0x64) {
    r.pos++;
    r.skipLeb();
  } else if ((b & 0xc0) === 0x40) r.pos++;
  else r.skipLeb();
}

/** Skips a memarg (align with optional memory index, then offset). */
function skipMemarg(r: Reader): void {
  const align = r.u32();
  if (align & 0x40) r.u32();
  r.skipLeb();
}

/** What the rewriter needs to know about one instruction. */
export interface Instr {
  op: number;
  /** For 0xFB..0xFE prefixed instructions, the sub-opcode. */
  sub: number;
  start: number;
  end: number;
}

const GC_IMMS: Record<number, string> = {
  0: 'u',
  1: 'u',
  2: 'uu',
  3: 'uu',
  4: 'uu',
  5: 'uu',
  6: 'u',
  7: 'u',
  8: 'uu',
  9: 'uu',
  10: 'uu',
  11: 'u',
  12: 'u',
  13: 'u',
  14: 'u',
  15: '',
  16: 'u',
  17: 'uu',
  18: 'uu',
  19: 'uu',
  20: 'h',
  21: 'h',
  22: 'h',
  23: 'h',
  24: 'bahh',
  25: 'bahh',
  26: '',
  27: '',
  28: '',
  29: '',
  30: '',
};

/** Decodes the instruction at r.pos (advancing past it). */
export function readInstr(r: Reader): Instr {
  const start = r.pos;
  const op = r.byte();
  let sub = -1;
  switch (op) {
    case 0x02:
    case 0x03:
    case 0x04:
    case 0x06:
      skipBlockType(r);
      break;
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x0c:
    case 0x0d:
    case 0x10:
    case 0x12:
    case 0x14:
    case 0x15:
    case 0x18:
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
    case 0x24:
    case 0x25:
    case 0x26:
    case 0x3f:
    case 0x40:
    case 0xd2:
    case 0xd5:
    case 0xd6:
      r.u32();
      break;
    case 0x0e: {
      const n = r.u32();
      for (let i = 0; i <= n; i++) r.u32();
      break;
    }
    case 0x11:
    case 0x13:
      r.u32();
      r.u32();
      break;
    case 0x1c: {
      const n = r.u32();
      for (let i = 0; i < n; i++) skipValType(r);
      break;
    }
    case 0x1f: {
      skipBlockType(r);
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const kind = r.byte();
        if (kind === 0 || kind === 1) r.u32();
        r.u32();
      }
      break;
    }
    case 0x41:
    case 0x42:
    case 0xd0:
      r.skipLeb();
      break;
    case 0x43:
      r.skip(4);
      break;
    case 0x44:
      r.skip(8);
      break;
    case 0xfb: {
      sub = r.u32();
      const imms = GC_IMMS[sub];
      if (imms === undefined) throw new Error(`unknown GC opcode 0xfb ${sub} at offset ${start}`);
      for (const c of imms) {
        if (c === 'b') r.byte();
        else if (c === 'a' || c === 'u') r.u32();
        else r.skipLeb();
      }
      break;
    }
    case 0xfc:
      sub = r.u32();
      if (sub <= 7) break;
      if (sub === 8 || sub === 10 || sub === 12 || sub === 14) {
        r.u32();
        r.u32();
      } else if (sub <= 17) r.u32();
      else throw new Error(`unknown opcode 0xfc ${sub} at offset ${start}`);
      break;
    case 0xfd:
      sub = r.u32();
      if (sub <= 11 || sub === 92 || sub === 93) skipMemarg(r);
      else if (sub === 12 || sub === 13) r.skip(16);
      else if (sub >= 21 && sub <= 34) r.byte();
      else if (sub >= 84 && sub <= 91) {
        skipMemarg(r);
        r.byte();
      } else if (sub > 0x113) throw new Error(`unknown SIMD opcode 0xfd ${sub} at offset ${start}`);
      break;
    case 0xfe:
      sub = r.u32();
      if (sub === 3) r.byte();
      else if (sub <= 2 || (sub >= 0x10 && sub <= 0x4e)) skipMemarg(r);
      else throw new Error(`unknown atomic opcode 0xfe ${sub} at offset ${start}`);
      break;
    default:
      if (op >= 0x28 && op <= 0x3e) skipMemarg(r);
      else if (
        !(
          op <= 0x01 ||
          op === 0x05 ||
          op === 0x0a ||
          op === 0x0b ||
          op === 0x0f ||
          op === 0x19 ||
          op === 0x1a ||
          op === 0x1b ||
          (op >= 0x45 && op <= 0xc4) ||
          op === 0xd1 ||
          op === 0xd3 ||
          op === 0xd4
        )
      ) {
        throw new Error(`unknown opcode 0x${op.toString(16)} at offset ${start}`);
      }
  }
  return { op, sub, start, end: r.pos };
}
