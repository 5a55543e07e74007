// Hand-made tar archives for the install tests: entries of any type, at any path, so hostile
// tarballs (links, devices, `..`, absolute paths) can be written exactly as an attacker would.
import { gzipSync } from 'node:zlib';

/** One entry: a file (type '0'), a folder ('5'), a symlink ('2'), a hard link ('1'), a device ('3'), a FIFO ('6'). */
export interface TarEntry {
  path: string;
  type?: '0' | '1' | '2' | '3' | '5' | '6';
  body?: string | Uint8Array;
  linkTo?: string;
  /** A size to declare in the header instead of the body's (a lie about the size). */
  declaredSize?: number;
}

function header(e: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (s: string, at: number, len: number) => h.write(s.slice(0, len), at, 'latin1');
  put(e.path, 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${size.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put('        ', 148, 8);
  put(e.type ?? '0', 156, 1);
  if (e.linkTo) put(e.linkTo, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/** A gzipped tar of `entries`. */
export function tarGz(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = e.body === undefined ? Buffer.alloc(0) : Buffer.from(e.body);
    const size = e.declaredSize ?? body.length;
    parts.push(header(e, size));
    if (size > 0) {
      const padded = Buffer.alloc(Math.ceil(size / 512) * 512);
      body.copy(padded);
      parts.push(padded);
    }
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}
