// Disk limits of one call: the bytes a guest may write in the call, and the size a writable
// mount (a conversation's workspace) may reach. A write past either fails with ENOSPC
// (`insufficient-space`), as a full disk would, and the call's result names the limit (trap
// `disk`) even if the guest carries on. Overwrites count as new bytes: the check is cheap and
// errs on the side of the host's disk.
import fs from 'node:fs';
import type { CallContext } from './context.ts';
import type { ErrorCode } from './fs-errors.ts';
import { at } from './fs-walk.ts';

/** Entries the usage walk looks at, at most; a larger tree is counted only that far. */
export const MAX_USAGE_ENTRIES = 100_000;

/** The part of a call's mount the quota needs: its pinned root and what it already holds. */
export interface QuotaMount {
  rootFd(): number;
  /** Bytes in the mount, measured at the call's first write to it; grows with each write. */
  usage: number | undefined;
}

/**
 * Disk use under `rootFd` as `du` counts it (allocated blocks, so sparse files count what
 * they occupy), walked without following symlinks and stopping after MAX_USAGE_ENTRIES.
 * Only the first write of a call pays for it: calls that write nothing never walk.
 */
export function mountUsage(rootFd: number): number {
  let bytes = 0;
  let seen = 0;
  const dirs: string[] = [''];
  while (dirs.length > 0 && seen < MAX_USAGE_ENTRIES) {
    const rel = dirs.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(at(rootFd, rel || '.'), { withFileTypes: true });
    } catch {
      continue; // removed or unreadable meanwhile: nothing to count
    }
    for (const e of entries) {
      if (++seen > MAX_USAGE_ENTRIES) break;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) dirs.push(path);
      else if (e.isFile()) {
        try {
          bytes += fs.lstatSync(at(rootFd, path)).blocks * 512;
        } catch {
          // gone since the listing
        }
      }
    }
  }
  return bytes;
}

/**
 * Charges a write of `bytes` to the call and to `mount` before it happens; throws
 * `insufficient-space` (and records the limit on the call) when it would pass either limit.
 */
export function chargeWrite(ctx: CallContext, mount: QuotaMount, bytes: number): void {
  if (bytes <= 0) return;
  if (ctx.writtenBytes + bytes > ctx.maxWriteBytes) {
    ctx.refused ??= {
      trap: 'disk',
      message: `the tool wrote more than ${ctx.maxWriteBytes} bytes in one call (the per-call write limit)`,
    };
    throw 'insufficient-space' satisfies ErrorCode;
  }
  mount.usage ??= mountUsage(mount.rootFd());
  if (mount.usage + bytes > ctx.maxDiskBytes) {
    ctx.refused ??= { trap: 'disk', message: `the workspace would exceed its quota of ${ctx.maxDiskBytes} bytes` };
    throw 'insufficient-space' satisfies ErrorCode;
  }
  ctx.writtenBytes += bytes;
  mount.usage += bytes;
}
