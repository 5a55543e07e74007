// Race-free path resolution inside a mount. A guest path is never handed to the OS as a
// string: it is walked one component at a time through directory fds that are already open
// (`/proc/self/fd/N/<name>` with O_NOFOLLOW), so swapping a directory for a symlink mid-walk
// cannot redirect it. Symlinks are followed only when their target, resolved lexically, stays
// inside the mount; every opened directory is also checked against the mount's real root.
import { closeSync, constants, lstatSync, openSync, readlinkSync } from 'node:fs';

/** A mount as seen by one call: its pinned root fd and real host path. */
export interface MountRoot {
  rootFd: number;
  realRoot: string;
  readOnly: boolean;
}

/** A WASI filesystem error code, thrown as a value (the glue maps it to the guest's `err`). */
export type FsErrorCode = string;

const MAX_SYMLINKS = 40;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_CLOEXEC;

/** The path of a name inside an open directory, resolved through the fd (not the host path). */
export const fdPath = (fd: number, name?: string): string => (name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`);

/** Maps a Node errno code to a WASI error code. */
export function errnoToCode(e: unknown): FsErrorCode {
  const code = (e as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT': return 'no-entry';
    case 'EACCES': return 'access';
    case 'EPERM': return 'not-permitted';
    case 'EEXIST': return 'exist';
    case 'ENOTDIR': return 'not-directory';
    case 'EISDIR': return 'is-directory';
    case 'ENOTEMPTY': return 'not-empty';
    case 'ELOOP': return 'loop';
    case 'EINVAL': return 'invalid';
    case 'EBADF': return 'bad-descriptor';
    case 'ENAMETOOLONG': return 'name-too-long';
    case 'EXDEV': return 'cross-device';
    case 'ENOSPC': return 'insufficient-space';
    case 'EMLINK': return 'too-many-links';
    case 'EBUSY': return 'busy';
    case 'EFBIG': return 'file-too-large';
    case 'EROFS': return 'read-only';
    case 'ETXTBSY': return 'text-file-busy';
    case 'ESPIPE': return 'invalid-seek';
    case 'ENXIO': return 'no-such-device';
    case 'EAGAIN': return 'would-block';
    default: return 'io';
  }
}

/** Runs an fs call, turning OS errors into WASI error codes. */
export function os<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (typeof e === 'string') throw e;
    throw errnoToCode(e);
  }
}

/** Fails closed if `fd` is not inside the mount (defense in depth against any missed race). */
export function verifyInside(fd: number, mount: MountRoot): void {
  let real: string;
  try {
    real = readlinkSync(fdPath(fd));
  } catch {
    throw 'access';
  }
  if (real !== mount.realRoot && !real.startsWith(mount.realRoot.endsWith('/') ? mount.realRoot : `${mount.realRoot}/`)) {
    throw 'not-permitted';
  }
}

/** Splits a guest path; absolute paths and NUL bytes are refused. */
export function splitGuestPath(path: string): string[] {
  if (path.includes('\0')) throw 'invalid';
  if (path.startsWith('/')) throw 'not-permitted';
  return path.split('/').filter((c) => c !== '' && c !== '.');
}

/** Lexically applies `comps` to `base` (both within the mount); escaping it is refused. */
export function lexical(base: readonly string[], comps: readonly string[]): string[] {
  const out = [...base];
  for (const c of comps) {
    if (c === '..') {
      if (out.length === 0) throw 'not-permitted';
      out.pop();
    } else out.push(c);
  }
  return out;
}

/** The directory holding a path's last component, opened; `name` undefined = the dir itself. */
export interface Walked {
  /** An open directory fd; `owned` says whether the caller must close it. */
  dirFd: number;
  owned: boolean;
  /** The directory's path inside the mount. */
  dirRel: string[];
  name: string | undefined;
}

/** Releases a walk's directory fd if it owns one. */
export function release(w: Walked): void {
  if (w.owned) closeSync(w.dirFd);
}

/**
 * Walks `comps` (relative to `startRel`, opened at `startFd`) inside `mount`. The final
 * component is not opened; with `followFinal`, a final symlink is resolved (inside the mount).
 */
export function walk(
  mount: MountRoot,
  startFd: number,
  startRel: readonly string[],
  comps: readonly string[],
  followFinal: boolean,
): Walked {
  let budget = MAX_SYMLINKS;
  let todo = [...comps];
  let fd = startFd;
  let owned = false;
  let rel = [...startRel];
  if (todo.includes('..')) {
    todo = lexical(rel, todo);
    fd = mount.rootFd;
    rel = [];
  }
  const restartAt = (target: string, remaining: string[]) => {
    if (--budget < 0) throw 'loop';
    if (target.startsWith('/')) throw 'not-permitted';
    const resolved = lexical(rel, [...target.split('/').filter((c) => c !== '' && c !== '.'), ...remaining]);
    if (owned) closeSync(fd);
    fd = mount.rootFd;
    owned = false;
    rel = [];
    todo = resolved;
  };
  try {
    for (;;) {
      if (todo.length === 0) return { dirFd: fd, owned, dirRel: rel, name: undefined };
      const [head, ...rest] = todo as [string, ...string[]];
      if (rest.length === 0) {
        if (followFinal) {
          let isLink = false;
          try {
            isLink = lstatSync(fdPath(fd, head)).isSymbolicLink();
          } catch {
            // does not exist (yet): the operation itself reports it
          }
          if (isLink) {
            restartAt(os(() => readlinkSync(fdPath(fd, head))), []);
            continue;
          }
        }
        return { dirFd: fd, owned, dirRel: rel, name: head };
      }
      let next: number;
      try {
        next = openSync(fdPath(fd, head), DIR_FLAGS);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ELOOP' || code === 'ENOTDIR') {
          let target: string | undefined;
          try {
            if (lstatSync(fdPath(fd, head)).isSymbolicLink()) target = readlinkSync(fdPath(fd, head));
          } catch {
            // vanished between calls: report the original error
          }
          if (target !== undefined) {
            restartAt(target, rest);
            continue;
          }
        }
        throw errnoToCode(e);
      }
      try {
        verifyInside(next, mount);
      } catch (e) {
        closeSync(next);
        throw e;
      }
      if (owned) closeSync(fd);
      fd = next;
      owned = true;
      rel = [...rel, head];
      todo = rest;
    }
  } catch (e) {
    if (owned) closeSync(fd);
    throw e;
  }
}
