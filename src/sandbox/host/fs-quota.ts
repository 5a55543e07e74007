// Disk limits of one call: the bytes a guest may write in the call, and the size a writable
// mount (a conversation's workspace) may reach. A write past either fails with ENOSPC
// (`insufficient-space`), as a full disk would, and the call's result names the limit (trap
// `disk`) even if the guest carries on. Overwrites count as new bytes: the check is cheap and
// errs on the side of the host's disk. A mount also holds at most MAX_ENTRIES names: the walk
// that measures it must end, and a tree it could not count to the end has an unknown size.
// A directory costs DIRECTORY_BYTES of the mount's quota: it takes a block of the filesystem
// whatever it holds, so empty directories are not free.
import fs from 'node:fs';
import { DEFAULT_LIMITS } from '../types.ts';
import type { CallContext } from './context.ts';
import type { ErrorCode } from './fs-errors.ts';
import { at } from './fs-walk.ts';

/**
 * Names (files, directories, links) a writable mount may hold. The usage walk looks at no more
 * (bounded time and memory), so past it the mount's size is unknown: a guest can create no
 * more, and in a tree already past it (made outside the sandbox) nothing may grow.
 */
export const MAX_ENTRIES = DEFAULT_LIMITS.maxEntries!;

/**
 * What one directory in a mount counts against its quota (sandbox.limits.maxDiskBytes): a
 * filesystem block, the size ext4 and most others give a directory. Fixed rather than read
 * from each directory's stat, so a tree is measured the same as the directories made in it.
 */
export const DIRECTORY_BYTES = 4096;

/** The part of a call's mount the quota needs: its pinned root and what it already holds. */
export interface QuotaMount {
  rootFd(): number;
  /** Bytes in the mount, measured at the call's first write to it; grows with each write. */
  usage: number | undefined;
  /** Names in the mount, counted with `usage` (Infinity past the limit); grows with each one made. */
  entries: number | undefined;
}

/** What the usage walk found: bytes, and names (Infinity when it stopped at the limit). */
export interface MountUsage {
  bytes: number;
  entries: number;
}

/**
 * Disk use under `rootFd` as `du` counts it (allocated blocks, so sparse files count what
 * they occupy; each directory below the root DIRECTORY_BYTES), walked without following
 * symlinks. Past `maxEntries` names it stops and says `entries: Infinity`: its bytes are then
 * a lower bound. Directories are read a batch at a time, so one huge directory costs no more
 * memory than the names counted.
 * Only the first write of a call pays for it: calls that write nothing never walk.
 */
export function mountUsage(rootFd: number, maxEntries = MAX_ENTRIES): MountUsage {
  let bytes = 0;
  let entries = 0;
  const dirs: string[] = [''];
  while (dirs.length > 0) {
    const rel = dirs.pop()!;
    let dir: fs.Dir;
    try {
      dir = fs.opendirSync(at(rootFd, rel || '.'), { bufferSize: 256 });
    } catch {
      continue; // removed or unreadable meanwhile: nothing to count
    }
    try {
      for (let e = readEntry(dir); e; e = readEntry(dir)) {
        if (++entries > maxEntries) return { bytes, entries: Infinity };
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          dirs.push(path);
          bytes += DIRECTORY_BYTES;
        } else if (e.isFile()) {
          try {
            bytes += fs.lstatSync(at(rootFd, path)).blocks * 512;
          } catch {
            // gone since the listing
          }
        }
      }
    } finally {
      dir.closeSync();
    }
  }
  return { bytes, entries };
}

/** The next entry of `dir`, or null at its end or when it can no longer be read. */
function readEntry(dir: fs.Dir): fs.Dirent | null {
  try {
    return dir.readSync();
  } catch {
    return null;
  }
}

/** Measures `mount` once per call (at its first write or new name). */
function measured(mount: QuotaMount, maxEntries: number): { usage: number; entries: number } {
  if (mount.usage === undefined || mount.entries === undefined) {
    const u = mountUsage(mount.rootFd(), maxEntries);
    mount.usage = u.bytes;
    mount.entries = u.entries;
  }
  return { usage: mount.usage, entries: mount.entries };
}

/** Refuses (ENOSPC, trap `disk`): the workspace's bytes would pass its quota. */
function refuseQuota(ctx: CallContext): never {
  ctx.refused ??= { trap: 'disk', message: `the workspace would exceed its quota of ${ctx.maxDiskBytes} bytes` };
  throw 'insufficient-space' satisfies ErrorCode;
}

/** Refuses (ENOSPC, trap `disk`) when the mount holds more names than the quota can count. */
function refuseUncounted(ctx: CallContext, entries: number): void {
  if (entries <= ctx.maxEntries) return;
  ctx.refused ??= {
    trap: 'disk',
    message:
      `the workspace holds more than ${ctx.maxEntries} files, directories and links ` +
      '(its entry limit): remove some',
  };
  throw 'insufficient-space' satisfies ErrorCode;
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
  const { usage, entries } = measured(mount, ctx.maxEntries);
  refuseUncounted(ctx, entries);
  if (usage + bytes > ctx.maxDiskBytes) refuseQuota(ctx);
  ctx.writtenBytes += bytes;
  mount.usage = usage + bytes;
}

/**
 * Runs `create`, which makes the name `path` (a file, directory or link) in `mount`, if the
 * mount has room for it under the entry limit; throws `insufficient-space` (trap `disk`) if not.
 * Counted only once made: a failed attempt costs nothing, and a name that exists already gets
 * its usual error (EEXIST: `mkdir -p` relies on it) even at the limit.
 */
export function chargeEntry<T>(ctx: CallContext, mount: QuotaMount, path: string, create: () => T): T {
  const { entries } = measured(mount, ctx.maxEntries);
  if (entries + 1 > ctx.maxEntries) {
    if (exists(path)) return create();
    refuseUncounted(ctx, entries);
    ctx.refused ??= {
      trap: 'disk',
      message: `the workspace would hold more than ${ctx.maxEntries} files, directories and links (its entry limit)`,
    };
    throw 'insufficient-space' satisfies ErrorCode;
  }
  const made = create();
  mount.entries = entries + 1;
  return made;
}

/**
 * Runs `create`, which makes the directory `path` in `mount`, if the mount has room for its
 * name (chargeEntry) and its DIRECTORY_BYTES under the quota; throws `insufficient-space` (trap
 * `disk`) if not. As with names, an existing one gets its usual error (EEXIST) even when full.
 */
export function chargeDirectory(ctx: CallContext, mount: QuotaMount, path: string, create: () => void): void {
  const { usage } = measured(mount, ctx.maxEntries);
  if (usage + DIRECTORY_BYTES > ctx.maxDiskBytes && !exists(path)) refuseQuota(ctx);
  chargeEntry(ctx, mount, path, create);
  mount.usage = usage + DIRECTORY_BYTES;
}

/** Notes that a directory in `mount` is gone (rmdir): its name and its DIRECTORY_BYTES. */
export function releaseDirectory(mount: QuotaMount): void {
  releaseEntry(mount);
  if (mount.usage !== undefined) mount.usage = Math.max(0, mount.usage - DIRECTORY_BYTES);
}

/** Whether a name is at `path` (a link counts; nothing is followed). */
export function exists(path: string): boolean {
  try {
    fs.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Notes that a name in `mount` is gone (unlink, rmdir), so the call may make another. */
export function releaseEntry(mount: QuotaMount): void {
  if (mount.entries !== undefined) mount.entries = Math.max(0, mount.entries - 1);
}
