// Byte-level helpers of the filesystem host: positional reads and writes, and open modes from
// descriptor flags.
import fs from 'node:fs';
import type { ErrorCode } from './fs-errors.ts';
import type { DescriptorFlags } from './fs-meta.ts';
import { closeQuietly } from './fs-walk.ts';

const C = fs.constants;
/** Largest single read served; guests loop for more. */
const MAX_READ = 1 << 20;
/** Added to every open of a guest file: never block on a FIFO, never gain a controlling tty. */
export const OPEN_ALWAYS = C.O_NONBLOCK | C.O_NOCTTY;

/** The errno code of a Node error. */
export const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** Reads up to `max` bytes (at most MAX_READ) at `position`. */
export function readAt(fd: number, max: number, position: bigint): Uint8Array {
  const buf = new Uint8Array(Math.min(max, MAX_READ));
  const n = fs.readSync(fd, buf, 0, buf.length, position);
  return n === buf.length ? buf : buf.slice(0, n);
}

/** Writes all of `bytes` at `position`. */
export function writeAll(fd: number, bytes: Uint8Array, position: bigint): void {
  if (position + BigInt(bytes.length) > BigInt(Number.MAX_SAFE_INTEGER)) throw 'file-too-large' satisfies ErrorCode;
  const start = Number(position);
  let done = 0;
  while (done < bytes.length) {
    done += fs.writeSync(fd, bytes, done, bytes.length - done, start + done);
  }
}

/** The open(2) access mode for descriptor flags. */
export function accessMode(flags: DescriptorFlags): number {
  if (flags.write) return flags.read ? C.O_RDWR : C.O_WRONLY;
  return C.O_RDONLY;
}

/** The open(2) synchronisation flags for descriptor flags. */
export function syncMode(flags: DescriptorFlags): number {
  return (flags.fileIntegritySync ? C.O_SYNC : 0) | (flags.dataIntegritySync ? C.O_DSYNC : 0);
}

/** Runs `f` on `fd`, closing `fd` if it throws. */
export function fsOrClose<T>(fd: number, f: () => T): T {
  try {
    return f();
  } catch (e) {
    closeQuietly(fd);
    throw e;
  }
}
