// Resolving guest paths without ever handing the kernel a path it could resolve outside a mount.
// Every directory on the way is an fd opened with O_PATH|O_NOFOLLOW, and the next step names one
// component below it through `/proc/self/fd/<fd>/<name>` (the magic link is the pinned inode, so
// renaming or swapping an ancestor cannot redirect the walk). `..` pops the walk's own stack but
// never above the directory the walk started from (a descriptor is a capability for what is
// below it, as in WASI), symlinks are read and resolved by the same walk, and every fd opened is
// checked to lie under the mount's real root before it is used.
import fs from 'node:fs';
import type { ErrorCode } from './fs-errors.ts';

const C = fs.constants;
/** Linux O_PATH (not in Node's constants): an fd that pins an inode without opening it. */
export const O_PATH = 0o10000000;
/** What every lookup opens with: pin the object itself, never what a symlink names. */
const LOOKUP = O_PATH | C.O_NOFOLLOW;
/** Symlinks followed (and racing retries) in one resolution before giving up with `loop`. */
const MAX_LINKS = 40;
/** Longest guest path accepted, as Linux's PATH_MAX. */
const MAX_PATH = 4096;
/** Directory fds a walk keeps for `..`; deeper ancestors are closed and reopened from the root. */
const KEEP_OPEN = 8;

/** The kernel path of an open fd, or of one name inside an open directory fd. */
export function at(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** One granted directory for the length of a call. */
export interface MountRoot {
  readonly guest: string;
  readonly readOnly: boolean;
  /** realpath of the host directory, computed once per call; every fd must resolve below it. */
  readonly realRoot: string;
  /** O_PATH fd of the root, held for the whole call; -1 once the call has ended. */
  rootFd(): number;
}

/** Closes `fd`, ignoring errors (used on paths that are already failing). */
export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // nothing more to release
  }
}

/** Whether `path` is `root` or below it. */
function isInside(path: string, root: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

/** Defense in depth: fails closed (closing `fd`) unless `fd` resolves below the mount root. */
export function verifyInside(mount: MountRoot, fd: number): number {
  let where: string;
  try {
    where = fs.readlinkSync(at(fd));
  } catch {
    closeQuietly(fd);
    throw 'not-permitted' satisfies ErrorCode;
  }
  if (!isInside(where, mount.realRoot)) {
    closeQuietly(fd);
    throw 'not-permitted' satisfies ErrorCode;
  }
  return fd;
}

/** Pins `name` inside directory `dirFd` (the object itself, even a symlink) and checks it. */
export function lookup(mount: MountRoot, dirFd: number, name: string): number {
  return verifyInside(mount, fs.openSync(at(dirFd, name), LOOKUP));
}

/** Opens the host root of a mount for one call. Throws (a host error) if it is unusable. */
export function openMountRoot(host: string): { realRoot: string; fd: number } {
  const realRoot = fs.realpathSync(host);
  const fd = fs.openSync(realRoot, O_PATH | C.O_DIRECTORY | C.O_NOFOLLOW);
  if (fs.readlinkSync(at(fd)) !== realRoot) {
    closeQuietly(fd);
    throw new Error('mount root moved while it was being opened');
  }
  return { realRoot, fd };
}

/** Splits a guest path into components, refusing what can never name something in a mount. */
export function components(path: string): string[] {
  if (path.includes('\0')) throw 'invalid' satisfies ErrorCode;
  if (path === '') throw 'no-entry' satisfies ErrorCode;
  if (path.startsWith('/')) throw 'not-permitted' satisfies ErrorCode;
  if (path.length > MAX_PATH) throw 'name-too-long' satisfies ErrorCode;
  return path.split('/');
}

/** Where a directory descriptor stands: its pinned fd and its path from the mount root. */
export interface WalkBase {
  fd: number;
  names: readonly string[];
}

/**
 * One resolution in progress: a stack of pinned directories from the mount root down to where
 * the walk stands. Close it when done; it owns the fds it opened and never the base's.
 */
export class Walk {
  private readonly names: string[];
  /** fds[i] is the directory names[0..i]; undefined when not (or no longer) held. */
  private readonly fds: (number | undefined)[];
  private readonly owned = new Set<number>();
  private links = 0;
  /** Depth of the starting directory: `..` may not take the walk above it. */
  private readonly floor: number;

  constructor(
    readonly mount: MountRoot,
    base: WalkBase,
  ) {
    this.names = [...base.names];
    this.floor = base.names.length;
    this.fds = base.names.map(() => undefined);
    if (this.fds.length > 0) this.fds[this.fds.length - 1] = base.fd;
  }

  /** The directory the walk stands in, relative to the mount root. */
  get path(): readonly string[] {
    return this.names;
  }

  /** The pinned fd of the directory the walk stands in. */
  get fd(): number {
    const top = this.names.length - 1;
    if (top < 0) {
      const root = this.mount.rootFd();
      if (root < 0) throw 'bad-descriptor' satisfies ErrorCode;
      return root;
    }
    return this.fds[top] ?? this.reopen(top);
  }

  /**
   * Walks every component of `path` but the last, following symlinks that stay in the mount,
   * and returns the last one: a name inside `fd`, or '.' when the path ends at the directory.
   */
  toParent(path: string): string {
    return this.resolve(components(path).reverse());
  }

  /**
   * The final component `name` turned out to be a symlink: resolves its target from the same
   * directory and returns the new final component (the walk may have moved).
   */
  followFinal(name: string): string {
    const pending: string[] = [];
    this.follow(name, pending);
    return this.resolve(pending);
  }

  /** Closes every fd the walk opened. */
  close(): void {
    for (const fd of this.owned) closeQuietly(fd);
    this.owned.clear();
  }

  /** `pending` holds the components still to walk, last one first. */
  private resolve(pending: string[]): string {
    while (pending.length > 0) {
      const c = pending.pop()!;
      const last = pending.length === 0;
      if (c === '' || c === '.') {
        if (last) return '.';
      } else if (c === '..') {
        this.pop();
        if (last) return '.';
      } else if (last) {
        return c;
      } else {
        this.enter(c, pending);
      }
    }
    return '.';
  }

  /** Steps into directory `name`, or splices in the target if it is a symlink. */
  private enter(name: string, pending: string[]): void {
    const fd = lookup(this.mount, this.fd, name);
    let st: fs.Stats;
    try {
      st = fs.fstatSync(fd);
    } catch (e) {
      closeQuietly(fd);
      throw e;
    }
    if (st.isDirectory()) {
      this.push(name, fd);
      return;
    }
    closeQuietly(fd);
    if (!st.isSymbolicLink()) throw 'not-directory' satisfies ErrorCode;
    this.follow(name, pending);
  }

  /** Queues the target of symlink `name` (in the current directory) for walking. */
  private follow(name: string, pending: string[]): void {
    if (++this.links > MAX_LINKS) throw 'loop' satisfies ErrorCode;
    let target: string;
    try {
      target = fs.readlinkSync(at(this.fd, name));
    } catch (e) {
      // It stopped being a symlink since we looked (a concurrent swap): look again.
      if ((e as NodeJS.ErrnoException).code === 'EINVAL') {
        pending.push(name);
        return;
      }
      throw e;
    }
    if (target === '') throw 'no-entry' satisfies ErrorCode;
    // An absolute target names a host path; it has no meaning inside the mount.
    if (target.startsWith('/')) throw 'not-permitted' satisfies ErrorCode;
    if (target.length > MAX_PATH) throw 'name-too-long' satisfies ErrorCode;
    pending.push(...target.split('/').reverse());
  }

  /** `..`: back to the pinned parent; above the starting directory is outside the capability. */
  private pop(): void {
    if (this.names.length <= this.floor) throw 'not-permitted' satisfies ErrorCode;
    this.names.pop();
    const fd = this.fds.pop();
    if (fd !== undefined && this.owned.delete(fd)) closeQuietly(fd);
  }

  private push(name: string, fd: number): void {
    this.names.push(name);
    this.fds.push(fd);
    this.owned.add(fd);
    this.evict(this.fds.length - 1);
  }

  /** Keeps at most KEEP_OPEN owned fds on the stack: closes the one falling out of the window. */
  private evict(top: number): void {
    const old = top - KEEP_OPEN;
    if (old < 0) return;
    const fd = this.fds[old];
    if (fd !== undefined && this.owned.delete(fd)) {
      closeQuietly(fd);
      this.fds[old] = undefined;
    }
  }

  /**
   * Reopens ancestor `i` (above the base, or evicted) from its nearest held ancestor. These
   * names were directories when walked; anything else there now is a concurrent change.
   */
  private reopen(i: number): number {
    let j = i;
    while (j >= 0 && this.fds[j] === undefined) j--;
    let dir = j < 0 ? this.mount.rootFd() : this.fds[j]!;
    if (dir < 0) throw 'bad-descriptor' satisfies ErrorCode;
    for (let k = j + 1; k <= i; k++) {
      const fd = lookup(this.mount, dir, this.names[k]!);
      let isDir: boolean;
      try {
        isDir = fs.fstatSync(fd).isDirectory();
      } catch (e) {
        closeQuietly(fd);
        throw e;
      }
      if (!isDir) {
        closeQuietly(fd);
        throw 'no-entry' satisfies ErrorCode;
      }
      this.fds[k] = fd;
      this.owned.add(fd);
      this.evict(k);
      dir = fd;
    }
    return dir;
  }
}
