// wasi:filesystem for guests: only the call's mounts exist. Guest paths are walked through
// pinned fds (fs-walk), never resolved as host paths; read-only mounts refuse every write;
// guests may create symlinks whose targets stay inside the mount and hard links within one
// writable mount; every fd belongs to its call and is closed when the guest drops it or, at the
// latest, when the call ends.
import fs from 'node:fs';
import type { Binding, CallContext } from './context.ts';
import { type CallFs, type CallMount, callFs, FdHandle, MAX_OPEN_PER_CALL } from './fs-call.ts';
import { type ErrorCode, FsIoError, guard, guardStream } from './fs-errors.ts';
import { accessMode, errno, fsOrClose, OPEN_ALWAYS, readAt, syncMode, writeAll } from './fs-io.ts';
import {
  type DescriptorFlags,
  type DescriptorStat,
  type DescriptorType,
  type DirectoryEntry,
  type MetadataHashValue,
  metadataHash,
  type NewTimestamp,
  type OpenFlags,
  type PathFlags,
  toStat,
  typeOf,
} from './fs-meta.ts';
import { chargeDirectory, chargeEntry, chargeWrite, releaseDirectory, releaseEntry } from './fs-quota.ts';
import { setTimesOf } from './fs-times.ts';
import { at, closeQuietly, lookup, O_PATH, verifyInside, Walk } from './fs-walk.ts';
import { InputStream, OutputStream } from './io.ts';

const C = fs.constants;

/** `mkdir a/` and `rmdir a/` name `a`. */
const withoutTrailingSlash = (path: string): string => path.replace(/(?<=[^/])\/+$/, '');
const hasTrailingSlash = (path: string): boolean => withoutTrailingSlash(path) !== path;

/**
 * Refuses a symlink target that could never name something in the mount: absolute, or climbing
 * above the mount root when resolved (lexically) from `where`, the link's own directory. This is
 * policy at creation only; safety never depends on it, since every use of any symlink, created
 * or pre-existing, resolves through the same no-follow walk that refuses what leaves the mount.
 */
function checkLinkTarget(where: readonly string[], target: string): void {
  if (target.includes('\0')) throw 'invalid' satisfies ErrorCode;
  if (target === '') throw 'no-entry' satisfies ErrorCode;
  if (target.startsWith('/')) throw 'not-permitted' satisfies ErrorCode;
  let depth = where.length;
  for (const c of target.split('/')) {
    if (c === '..') {
      if (--depth < 0) throw 'not-permitted' satisfies ErrorCode;
    } else if (c !== '' && c !== '.') {
      depth++;
    }
  }
}

/** `wasi:filesystem/types.descriptor`: an open file or directory inside one mount of one call. */
export class Descriptor {
  private constructor(
    private readonly binding: Binding,
    private readonly ctx: CallContext,
    private readonly state: CallFs,
    private readonly mount: CallMount,
    private readonly handle: FdHandle,
    /** For directories: the path from the mount root, where relative walks start. */
    private readonly names: readonly string[],
    private readonly isDir: boolean,
    private readonly flags: DescriptorFlags,
  ) {
    ctx.track(handle);
  }

  /** A guest descriptor for a mount's root. */
  static root(binding: Binding, ctx: CallContext, state: CallFs, mount: CallMount): Descriptor {
    if (state.open >= MAX_OPEN_PER_CALL) throw 'insufficient-memory' satisfies ErrorCode;
    const fd = verifyInside(mount, fs.openSync(at(mount.rootFd(), '.'), O_PATH | C.O_DIRECTORY | C.O_NOFOLLOW));
    const flags = { read: true, mutateDirectory: !mount.readOnly };
    return new Descriptor(binding, ctx, state, mount, new FdHandle(state, fd), [], true, flags);
  }

  /** A new descriptor in the same mount and call, owning `fd`. */
  private child(fd: number, isDir: boolean, flags: DescriptorFlags, names: readonly string[]): Descriptor {
    if (this.state.open >= MAX_OPEN_PER_CALL) {
      closeQuietly(fd);
      throw 'insufficient-memory' satisfies ErrorCode;
    }
    const granted = { ...flags, mutateDirectory: isDir && !this.mount.readOnly && !!flags.mutateDirectory };
    return new Descriptor(
      this.binding,
      this.ctx,
      this.state,
      this.mount,
      new FdHandle(this.state, fd),
      names,
      isDir,
      granted,
    );
  }

  /** The live fd: dead once dropped, once its call ended, or if used from another call. */
  private fd(): number {
    const fd = this.handle.fd;
    if (fd < 0 || this.binding.bound !== this.ctx) throw 'bad-descriptor' satisfies ErrorCode;
    return fd;
  }

  private dirFd(): number {
    const fd = this.fd();
    if (!this.isDir) throw 'not-directory' satisfies ErrorCode;
    return fd;
  }

  private fileFd(): number {
    const fd = this.fd();
    if (this.isDir) throw 'is-directory' satisfies ErrorCode;
    return fd;
  }

  private readable(): number {
    const fd = this.fileFd();
    if (!this.flags.read) throw 'bad-descriptor' satisfies ErrorCode;
    return fd;
  }

  /** The fd of a file this descriptor may write: the mount decides first, then the open mode. */
  private writable(): number {
    const fd = this.fd();
    if (this.mount.readOnly) throw 'read-only' satisfies ErrorCode;
    if (this.isDir) throw 'is-directory' satisfies ErrorCode;
    if (!this.flags.write) throw 'bad-descriptor' satisfies ErrorCode;
    return fd;
  }

  /** The fd of a writable file, with `bytes` about to be written charged to the disk limits. */
  private writableFor(bytes: number): number {
    const fd = this.writable();
    chargeWrite(this.ctx, this.mount, bytes);
    return fd;
  }

  private mutable(): void {
    if (this.mount.readOnly) throw 'read-only' satisfies ErrorCode;
  }

  /**
   * Runs `f` with the pinned directory holding `path`'s last component, that component, and the
   * directory's path from the mount root.
   */
  private inParent<T>(path: string, f: (dirFd: number, name: string, where: readonly string[]) => T): T {
    const walk = new Walk(this.mount, { fd: this.dirFd(), names: this.names });
    try {
      const name = walk.toParent(path);
      return f(walk.fd, name, walk.path);
    } finally {
      walk.close();
    }
  }

  /** Like inParent, but when following, final symlinks are resolved first (through the walk). */
  private atObject<T>(pathFlags: PathFlags, path: string, f: (dirFd: number, name: string) => T): T {
    const walk = new Walk(this.mount, { fd: this.dirFd(), names: this.names });
    try {
      let name = walk.toParent(path);
      while (pathFlags.symlinkFollow && name !== '.') {
        const fd = lookup(this.mount, walk.fd, name);
        const isLink = fsOrClose(fd, () => fs.fstatSync(fd)).isSymbolicLink();
        closeQuietly(fd);
        if (!isLink) break;
        name = walk.followFinal(name);
      }
      return f(walk.fd, name);
    } finally {
      walk.close();
    }
  }

  /** Runs `f` with a pinned O_PATH fd of the object `path` names (a symlink itself unless following). */
  private onObject<T>(pathFlags: PathFlags, path: string, f: (fd: number) => T): T {
    const walk = new Walk(this.mount, { fd: this.dirFd(), names: this.names });
    try {
      let name = walk.toParent(path);
      for (;;) {
        const fd = lookup(this.mount, walk.fd, name);
        try {
          if (pathFlags.symlinkFollow && fs.fstatSync(fd).isSymbolicLink()) {
            name = walk.followFinal(name);
            continue;
          }
          return f(fd);
        } finally {
          closeQuietly(fd);
        }
      }
    } finally {
      walk.close();
    }
  }

  readViaStream(offset: bigint): InputStream {
    return guard(() => {
      this.readable();
      let position = offset;
      return new InputStream({
        read: (max) =>
          guardStream(() => {
            const chunk = readAt(this.readable(), max, position);
            if (chunk.length === 0 && max > 0) return null;
            position += BigInt(chunk.length);
            return chunk;
          }),
      });
    });
  }

  writeViaStream(offset: bigint): OutputStream {
    return guard(() => {
      this.writable();
      let position = offset;
      return new OutputStream({
        write: (bytes) =>
          guardStream(() => {
            writeAll(this.writableFor(bytes.length), bytes, position);
            position += BigInt(bytes.length);
          }),
      });
    });
  }

  appendViaStream(): OutputStream {
    return guard(() => {
      this.writable();
      return new OutputStream({
        write: (bytes) =>
          guardStream(() => {
            const fd = this.writableFor(bytes.length);
            writeAll(fd, bytes, fs.fstatSync(fd, { bigint: true }).size);
          }),
      });
    });
  }

  advise(_offset: bigint, _length: bigint, _advice: string): void {
    guard(() => this.fd());
  }

  syncData(): void {
    guard(() => this.syncWith(fs.fdatasyncSync));
  }

  sync(): void {
    guard(() => this.syncWith(fs.fsyncSync));
  }

  /** Directory descriptors are O_PATH fds, which cannot be synced: sync a reopened fd instead. */
  private syncWith(sync: (fd: number) => void): void {
    const fd = this.fd();
    if (!this.isDir) return sync(fd);
    const dir = fs.openSync(at(fd), C.O_RDONLY | C.O_DIRECTORY);
    try {
      sync(dir);
    } finally {
      fs.closeSync(dir);
    }
  }

  getFlags(): DescriptorFlags {
    return guard(() => {
      this.fd();
      return { ...this.flags };
    });
  }

  getType(): DescriptorType {
    return guard(() => typeOf(fs.fstatSync(this.fd())));
  }

  setSize(size: bigint): void {
    guard(() => {
      const fd = this.writable();
      if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw 'file-too-large' satisfies ErrorCode;
      // Growth counts as written: a sparse file costs nothing yet, but every copy of it will.
      chargeWrite(this.ctx, this.mount, Number(size - fs.fstatSync(fd, { bigint: true }).size));
      fs.ftruncateSync(fd, Number(size));
    });
  }

  setTimes(atime: NewTimestamp, mtime: NewTimestamp): void {
    guard(() => {
      const fd = this.fd();
      this.mutable();
      setTimesOf(fd, atime, mtime, this.ctx);
    });
  }

  read(length: bigint, offset: bigint): [Uint8Array, boolean] {
    return guard(() => {
      const max = length > 1n << 30n ? 1 << 30 : Number(length);
      const chunk = readAt(this.readable(), max, offset);
      return [chunk, chunk.length === 0 && max > 0];
    });
  }

  write(buffer: Uint8Array, offset: bigint): bigint {
    return guard(() => {
      writeAll(this.writableFor(buffer.length), buffer, offset);
      return BigInt(buffer.length);
    });
  }

  readDirectory(): DirectoryEntryStream {
    return guard(() => {
      const entries = fs.readdirSync(at(this.dirFd()), { withFileTypes: true });
      return new DirectoryEntryStream(
        this,
        entries.map((d) => ({ type: typeOf(d), name: d.name })),
      );
    });
  }

  createDirectoryAt(path: string): void {
    guard(() => {
      this.dirFd();
      this.mutable();
      this.inParent(withoutTrailingSlash(path), (dir, name) => {
        if (name === '.') throw 'exist' satisfies ErrorCode;
        chargeDirectory(this.ctx, this.mount, at(dir, name), () => fs.mkdirSync(at(dir, name), 0o777));
      });
    });
  }

  stat(): DescriptorStat {
    return guard(() => toStat(fs.fstatSync(this.fd(), { bigint: true })));
  }

  statAt(pathFlags: PathFlags, path: string): DescriptorStat {
    return guard(() => this.onObject(pathFlags, path, (fd) => toStat(fs.fstatSync(fd, { bigint: true }))));
  }

  setTimesAt(pathFlags: PathFlags, path: string, atime: NewTimestamp, mtime: NewTimestamp): void {
    guard(() => {
      this.dirFd();
      this.mutable();
      // Through the pinned fd's magic link: the exact object inspected, a symlink itself included.
      this.onObject(pathFlags, path, (fd) => setTimesOf(fd, atime, mtime, this.ctx));
    });
  }

  /**
   * Both this directory and `other` (a directory of the same instance) are writable and in the same mount, or
   * the WASI error code says which is not (a link or rename across mounts is `cross-device`).
   */
  private writableInSameMount(other: Descriptor): void {
    this.dirFd();
    if (!(other instanceof Descriptor) || other.ctx !== this.ctx) throw 'bad-descriptor' satisfies ErrorCode;
    other.dirFd();
    this.mutable();
    other.mutable();
    if (other.mount !== this.mount) throw 'cross-device' satisfies ErrorCode;
  }

  linkAt(oldPathFlags: PathFlags, oldPath: string, newDescriptor: Descriptor, newPath: string): void {
    guard(() => {
      // A hard link is another name for an inode the guest can already reach in this mount; two
      // mounts may be one host filesystem, so a link across them would carry a file between grants.
      this.writableInSameMount(newDescriptor);
      this.atObject(oldPathFlags, oldPath, (fromDir, from) =>
        // Trailing slashes need no special case: `file/` fails entering `file` (not-directory),
        // a missing `new/` fails entering it (no-entry), and an existing `dir/` ends at '.'.
        newDescriptor.inParent(newPath, (toDir, to) => {
          if (to === '.') throw 'exist' satisfies ErrorCode;
          // link(2) never follows the final component: if `from` became a symlink since it was
          // resolved, the new name is that symlink, which every use resolves through the walk.
          chargeEntry(this.ctx, newDescriptor.mount, at(toDir, to), () =>
            fs.linkSync(at(fromDir, from), at(toDir, to)),
          );
        }),
      );
    });
  }

  symlinkAt(oldPath: string, newPath: string): void {
    guard(() => {
      this.dirFd();
      this.mutable();
      this.inParent(newPath, (dir, name, where) => {
        if (name === '.') throw 'exist' satisfies ErrorCode;
        checkLinkTarget(where, oldPath);
        chargeEntry(this.ctx, this.mount, at(dir, name), () => fs.symlinkSync(oldPath, at(dir, name)));
      });
    });
  }

  openAt(pathFlags: PathFlags, path: string, openFlags: OpenFlags, flags: DescriptorFlags): Descriptor {
    return guard(() => {
      const base = this.dirFd();
      if (flags.write || openFlags.create || openFlags.truncate) this.mutable();
      if (openFlags.create && openFlags.directory) throw 'invalid' satisfies ErrorCode;
      if (this.state.open >= MAX_OPEN_PER_CALL) throw 'insufficient-memory' satisfies ErrorCode;
      const walk = new Walk(this.mount, { fd: base, names: this.names });
      try {
        let name = walk.toParent(path);
        for (;;) {
          let pinned: number;
          try {
            pinned = lookup(this.mount, walk.fd, name);
          } catch (e) {
            if (errno(e) !== 'ENOENT' || !openFlags.create) throw e;
            const created = this.create(walk.fd, name, openFlags, flags);
            if (created !== undefined) return created;
            // A symlink appeared where nothing was: resolve it like any final symlink.
            if (!pathFlags.symlinkFollow) throw 'loop' satisfies ErrorCode;
            name = walk.followFinal(name);
            continue;
          }
          const st = fsOrClose(pinned, () => fs.fstatSync(pinned));
          if (st.isSymbolicLink()) {
            closeQuietly(pinned);
            if (!pathFlags.symlinkFollow) throw 'loop' satisfies ErrorCode;
            name = walk.followFinal(name);
            continue;
          }
          return this.openPinned(pinned, st, name === '.' ? walk.path : [...walk.path, name], openFlags, flags);
        }
      } finally {
        walk.close();
      }
    });
  }

  /** Creates `name` in `dir`; undefined when a symlink is in the way. */
  private create(dir: number, name: string, openFlags: OpenFlags, flags: DescriptorFlags): Descriptor | undefined {
    const mode =
      accessMode(flags) |
      syncMode(flags) |
      OPEN_ALWAYS |
      C.O_CREAT |
      C.O_NOFOLLOW |
      (openFlags.exclusive ? C.O_EXCL : 0) |
      (openFlags.truncate ? C.O_TRUNC : 0);
    let fd: number;
    try {
      fd = chargeEntry(this.ctx, this.mount, at(dir, name), () => fs.openSync(at(dir, name), mode, 0o666));
    } catch (e) {
      if (errno(e) === 'ELOOP') return undefined;
      throw e;
    }
    verifyInside(this.mount, fd);
    // Without O_EXCL something else may have appeared meanwhile; only a regular file will do.
    if (!fsOrClose(fd, () => fs.fstatSync(fd)).isFile()) {
      closeQuietly(fd);
      throw 'not-permitted' satisfies ErrorCode;
    }
    return this.child(fd, false, flags, []);
  }

  /** Turns the pinned final object into a descriptor, reopening exactly that inode if needed. */
  private openPinned(
    pinned: number,
    st: fs.Stats,
    names: readonly string[],
    openFlags: OpenFlags,
    flags: DescriptorFlags,
  ): Descriptor {
    let keep = false;
    try {
      if (openFlags.create && openFlags.exclusive) throw 'exist' satisfies ErrorCode;
      if (st.isDirectory()) {
        if (flags.write || openFlags.truncate) throw 'is-directory' satisfies ErrorCode;
        keep = true;
        return this.child(pinned, true, flags, names);
      }
      if (openFlags.directory) throw 'not-directory' satisfies ErrorCode;
      // FIFOs, sockets and devices: opening them has effects beyond reading a file.
      if (!st.isFile()) throw 'not-permitted' satisfies ErrorCode;
      if (!flags.read && !flags.write && !openFlags.truncate) {
        keep = true;
        return this.child(pinned, false, flags, []);
      }
      const mode = accessMode(flags) | syncMode(flags) | OPEN_ALWAYS | (openFlags.truncate ? C.O_TRUNC : 0);
      const fd = verifyInside(this.mount, fs.openSync(at(pinned), mode));
      return this.child(fd, false, flags, []);
    } finally {
      if (!keep) closeQuietly(pinned);
    }
  }

  readlinkAt(path: string): string {
    return guard(() => this.inParent(path, (dir, name) => fs.readlinkSync(at(dir, name))));
  }

  removeDirectoryAt(path: string): void {
    guard(() => {
      this.dirFd();
      this.mutable();
      this.inParent(withoutTrailingSlash(path), (dir, name) => fs.rmdirSync(at(dir, name)));
      releaseDirectory(this.mount);
    });
  }

  renameAt(oldPath: string, newDescriptor: Descriptor, newPath: string): void {
    guard(() => {
      // Each mount's quota counts what is made in it: a tree renamed in from another mount would
      // arrive uncounted (bytes and names). Refused as across filesystems, so `mv` copies instead.
      this.writableInSameMount(newDescriptor);
      // `a/` names directory `a`: strip the slash (a walk would enter `a` and name `.`, which
      // rename refuses as busy) and check that the source is a directory instead.
      if (hasTrailingSlash(oldPath) || hasTrailingSlash(newPath)) {
        this.onObject({}, withoutTrailingSlash(oldPath), (fd) => {
          if (!fs.fstatSync(fd).isDirectory()) throw 'not-directory' satisfies ErrorCode;
        });
      }
      this.inParent(withoutTrailingSlash(oldPath), (fromDir, from) =>
        newDescriptor.inParent(withoutTrailingSlash(newPath), (toDir, to) =>
          fs.renameSync(at(fromDir, from), at(toDir, to)),
        ),
      );
    });
  }

  unlinkFileAt(path: string): void {
    guard(() => {
      this.dirFd();
      this.mutable();
      this.inParent(path, (dir, name) => fs.unlinkSync(at(dir, name)));
      releaseEntry(this.mount);
    });
  }

  isSameObject(other: Descriptor): boolean {
    try {
      if (!(other instanceof Descriptor)) return false;
      const a = fs.fstatSync(this.fd(), { bigint: true });
      const b = fs.fstatSync(other.fd(), { bigint: true });
      return a.dev === b.dev && a.ino === b.ino;
    } catch {
      return false;
    }
  }

  metadataHash(): MetadataHashValue {
    return guard(() => metadataHash(fs.fstatSync(this.fd(), { bigint: true })));
  }

  metadataHashAt(pathFlags: PathFlags, path: string): MetadataHashValue {
    return guard(() => this.onObject(pathFlags, path, (fd) => metadataHash(fs.fstatSync(fd, { bigint: true }))));
  }

  /** Checks the descriptor is still usable (for its directory streams). */
  assertLive(): void {
    this.fd();
  }

  [Symbol.dispose](): void {
    this.handle.close();
    this.ctx.untrack(this.handle);
  }
}

/** `wasi:filesystem/types.directory-entry-stream`: a snapshot of a directory's entries. */
export class DirectoryEntryStream {
  private next = 0;

  constructor(
    private readonly owner: Descriptor,
    private readonly entries: DirectoryEntry[],
  ) {}

  readDirectoryEntry(): DirectoryEntry | undefined {
    return guard(() => {
      this.owner.assertLive();
      return this.entries[this.next++];
    });
  }

  [Symbol.dispose](): void {}
}

/** `filesystem-error-code`: the code behind a file stream's error, if it was one. */
function filesystemErrorCode(err: unknown): ErrorCode | undefined {
  return err instanceof FsIoError ? err.code : undefined;
}

/**
 * The `wasi:filesystem/*` import objects, reading the call's mounts from `binding` when the
 * guest asks (never at creation). Example: `{ ...filesystemImports(binding) }` in hostImports.
 */
export function filesystemImports(binding: Binding): Record<string, Record<string, unknown>> {
  return {
    'wasi:filesystem/types': { Descriptor, DirectoryEntryStream, filesystemErrorCode },
    'wasi:filesystem/preopens': {
      getDirectories: (): [Descriptor, string][] => {
        const ctx = binding.current;
        const state = callFs(ctx);
        try {
          return state.mounts.map((m) => [Descriptor.root(binding, ctx, state, m), m.guest]);
        } catch (e) {
          // get-directories has no error case: failing to open a preopen ends the call.
          throw new Error(`cannot open the preopened directories: ${errno(e) ?? String(e)}`);
        }
      },
    },
  };
}
