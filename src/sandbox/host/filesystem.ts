// wasi:filesystem for guests: only the call's mounts exist. Paths are resolved by fs-walk
// (race-free, inside the mount); read-only mounts refuse every write; guests cannot create
// symlinks or hard links; every fd a call opened is closed when the call ends.
import {
  closeSync, constants, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, futimesSync, lstatSync, mkdirSync,
  openSync, readSync, readdirSync, readlinkSync, renameSync, rmdirSync, unlinkSync, utimesSync, writeSync,
  type BigIntStats, type Dirent,
} from 'node:fs';
import type { Binding, CallContext } from './context.ts';
import { fdPath, os, release, splitGuestPath, verifyInside, walk, type MountRoot, type Walked } from './fs-walk.ts';
import { InputStream, OutputStream } from './io.ts';

type Datetime = { seconds: bigint; nanoseconds: number };
type NewTimestamp = { tag: 'no-change' } | { tag: 'now' } | { tag: 'timestamp'; val: Datetime };
interface DescriptorFlags {
  read?: boolean;
  write?: boolean;
  mutateDirectory?: boolean;
  fileIntegritySync?: boolean;
  dataIntegritySync?: boolean;
  requestedWriteSync?: boolean;
}

const MAX_READ = 16 * 1024 * 1024;

function typeOfStat(s: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (s.isFile()) return 'regular-file';
  if (s.isDirectory()) return 'directory';
  if (s.isSymbolicLink()) return 'symbolic-link';
  if (s.isFIFO()) return 'fifo';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character-device';
  if (s.isBlockDevice()) return 'block-device';
  return 'unknown';
}

const ts = (ns: bigint): Datetime => ({ seconds: ns / 1_000_000_000n, nanoseconds: Number(ns % 1_000_000_000n) });

function toStat(s: BigIntStats) {
  return {
    type: typeOfStat(s),
    linkCount: s.nlink,
    size: s.size,
    dataAccessTimestamp: ts(s.atimeNs),
    dataModificationTimestamp: ts(s.mtimeNs),
    statusChangeTimestamp: ts(s.ctimeNs),
  };
}

function timeArg(t: NewTimestamp, current: bigint): number {
  if (t.tag === 'now') return Date.now() / 1000;
  if (t.tag === 'timestamp') return Number(t.val.seconds) + t.val.nanoseconds / 1e9;
  return Number(current) / 1e9;
}

/** `wasi:filesystem/types.directory-entry-stream`. */
export class DirectoryEntryStream {
  private i = 0;
  constructor(private readonly entries: { type: string; name: string }[]) {}
  readDirectoryEntry(): { type: string; name: string } | undefined {
    return this.entries[this.i++];
  }
}

/** `wasi:filesystem/types.descriptor`: an open file or directory inside one mount. */
export class Descriptor {
  private closed = false;

  constructor(
    private readonly ctx: CallContext,
    private readonly mount: MountRoot,
    private readonly fd: number,
    /** Path inside the mount (directories: where relative paths start). */
    private readonly rel: string[],
    private readonly isDir: boolean,
    private readonly flags: DescriptorFlags,
  ) {
    ctx.track(this);
  }

  /** Closes the fd (call end or guest drop); later use is `bad-descriptor`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== this.mount.rootFd) closeSync(this.fd);
  }

  [Symbol.dispose](): void {
    this.close();
    this.ctx.untrack(this);
  }

  private live(): number {
    if (this.closed) throw 'bad-descriptor';
    return this.fd;
  }

  private writable(): void {
    if (this.mount.readOnly) throw 'read-only';
  }

  private dir(): number {
    const fd = this.live();
    if (!this.isDir) throw 'not-directory';
    return fd;
  }

  private at<T>(path: string, follow: boolean, f: (w: Walked) => T): T {
    const w = walk(this.mount, this.dir(), this.rel, splitGuestPath(path), follow);
    try {
      return f(w);
    } finally {
      release(w);
    }
  }

  readViaStream(offset: bigint): InputStream {
    const fd = this.live();
    if (this.isDir) throw 'is-directory';
    let pos = Number(offset);
    return new InputStream({
      read: (max) => {
        if (this.closed) return null;
        const buf = new Uint8Array(Math.min(max, MAX_READ));
        const n = os(() => readSync(fd, buf, 0, buf.length, pos));
        if (n === 0 && max > 0) return null;
        pos += n;
        return buf.subarray(0, n);
      },
    });
  }

  writeViaStream(offset: bigint): OutputStream {
    this.writable();
    const fd = this.live();
    let pos = Number(offset);
    return new OutputStream({
      write: (bytes) => {
        if (this.closed) throw 'bad-descriptor';
        pos += os(() => writeSync(fd, bytes, 0, bytes.length, pos));
      },
    });
  }

  appendViaStream(): OutputStream {
    this.writable();
    const fd = this.live();
    return new OutputStream({
      write: (bytes) => {
        if (this.closed) throw 'bad-descriptor';
        const end = os(() => fstatSync(fd).size);
        os(() => writeSync(fd, bytes, 0, bytes.length, end));
      },
    });
  }

  advise(): void {
    this.live();
  }

  syncData(): void {
    const fd = this.live();
    if (!this.mount.readOnly) os(() => fdatasyncSync(fd));
  }

  sync(): void {
    const fd = this.live();
    if (!this.mount.readOnly) os(() => fsyncSync(fd));
  }

  getFlags(): DescriptorFlags {
    this.live();
    return { ...this.flags };
  }

  getType(): string {
    return typeOfStat(os(() => fstatSync(this.live())));
  }

  setSize(size: bigint): void {
    this.writable();
    const fd = this.live();
    os(() => ftruncateSync(fd, Number(size)));
  }

  setTimes(atime: NewTimestamp, mtime: NewTimestamp): void {
    this.writable();
    const fd = this.live();
    const s = os(() => fstatSync(fd, { bigint: true }));
    os(() => futimesSync(fd, timeArg(atime, s.atimeNs), timeArg(mtime, s.mtimeNs)));
  }

  read(length: bigint, offset: bigint): [Uint8Array, boolean] {
    const fd = this.live();
    if (this.isDir) throw 'is-directory';
    const buf = new Uint8Array(Math.min(Number(length), MAX_READ));
    const n = os(() => readSync(fd, buf, 0, buf.length, Number(offset)));
    return [buf.subarray(0, n), n < buf.length || n === 0];
  }

  write(buffer: Uint8Array, offset: bigint): bigint {
    this.writable();
    const fd = this.live();
    return BigInt(os(() => writeSync(fd, buffer, 0, buffer.length, Number(offset))));
  }

  readDirectory(): DirectoryEntryStream {
    const fd = this.dir();
    const entries = os(() => readdirSync(fdPath(fd), { withFileTypes: true })) as Dirent[];
    return new DirectoryEntryStream(entries.map((d) => ({ type: typeOfStat(d), name: d.name })));
  }

  createDirectoryAt(path: string): void {
    this.writable();
    this.at(path, false, (w) => {
      if (w.name === undefined) throw 'exist';
      os(() => mkdirSync(fdPath(w.dirFd, w.name), 0o755));
    });
  }

  stat() {
    return toStat(os(() => fstatSync(this.live(), { bigint: true })));
  }

  statAt(pathFlags: { symlinkFollow?: boolean }, path: string) {
    return this.at(path, !!pathFlags.symlinkFollow, (w) =>
      toStat(os(() => (w.name === undefined ? fstatSync(w.dirFd, { bigint: true }) : lstatSync(fdPath(w.dirFd, w.name), { bigint: true })))),
    );
  }

  setTimesAt(pathFlags: { symlinkFollow?: boolean }, path: string, atime: NewTimestamp, mtime: NewTimestamp): void {
    this.writable();
    this.at(path, !!pathFlags.symlinkFollow, (w) => {
      const p = fdPath(w.dirFd, w.name);
      const s = os(() => lstatSync(p, { bigint: true }));
      if (s.isSymbolicLink()) throw 'not-permitted';
      os(() => utimesSync(p, timeArg(atime, s.atimeNs), timeArg(mtime, s.mtimeNs)));
    });
  }

  linkAt(): void {
    this.live();
    throw 'not-permitted';
  }

  symlinkAt(): void {
    this.live();
    throw 'not-permitted';
  }

  openAt(
    pathFlags: { symlinkFollow?: boolean },
    path: string,
    openFlags: { create?: boolean; directory?: boolean; exclusive?: boolean; truncate?: boolean },
    flags: DescriptorFlags,
  ): Descriptor {
    const wantsWrite = !!(flags.write || flags.mutateDirectory || openFlags.create || openFlags.truncate);
    if (wantsWrite) this.writable();
    return this.at(path, !!pathFlags.symlinkFollow, (w) => {
      let mode = flags.write ? (flags.read ? constants.O_RDWR : constants.O_WRONLY) : constants.O_RDONLY;
      if (openFlags.create) mode |= constants.O_CREAT;
      if (openFlags.exclusive) mode |= constants.O_EXCL;
      if (openFlags.truncate) mode |= constants.O_TRUNC;
      if (openFlags.directory) mode |= constants.O_DIRECTORY;
      mode |= constants.O_NOFOLLOW | constants.O_CLOEXEC | constants.O_NONBLOCK;
      const target = fdPath(w.dirFd, w.name);
      const fd = os(() => openSync(target, mode, 0o644));
      try {
        verifyInside(fd, this.mount);
        const st = fstatSync(fd);
        if (!st.isFile() && !st.isDirectory()) throw 'not-permitted';
        const rel = w.name === undefined ? w.dirRel : [...w.dirRel, w.name];
        return new Descriptor(this.ctx, this.mount, fd, rel, st.isDirectory(), flags);
      } catch (e) {
        closeSync(fd);
        throw e;
      }
    });
  }

  readlinkAt(path: string): string {
    return this.at(path, false, (w) => {
      if (w.name === undefined) throw 'invalid';
      return os(() => readlinkSync(fdPath(w.dirFd, w.name)));
    });
  }

  removeDirectoryAt(path: string): void {
    this.writable();
    this.at(path, false, (w) => {
      if (w.name === undefined) throw 'busy';
      os(() => rmdirSync(fdPath(w.dirFd, w.name)));
    });
  }

  unlinkFileAt(path: string): void {
    this.writable();
    this.at(path, false, (w) => {
      if (w.name === undefined) throw 'is-directory';
      const p = fdPath(w.dirFd, w.name);
      if (os(() => lstatSync(p)).isDirectory()) throw 'is-directory';
      os(() => unlinkSync(p));
    });
  }

  renameAt(oldPath: string, newDescriptor: Descriptor, newPath: string): void {
    this.writable();
    newDescriptor.writable();
    this.at(oldPath, false, (from) => {
      if (from.name === undefined) throw 'busy';
      newDescriptor.at(newPath, false, (to) => {
        if (to.name === undefined) throw 'busy';
        os(() => renameSync(fdPath(from.dirFd, from.name), fdPath(to.dirFd, to.name)));
      });
    });
  }

  isSameObject(other: Descriptor): boolean {
    const a = os(() => fstatSync(this.live(), { bigint: true }));
    const b = os(() => fstatSync(other.live(), { bigint: true }));
    return a.dev === b.dev && a.ino === b.ino;
  }

  metadataHash(): { lower: bigint; upper: bigint } {
    const s = os(() => fstatSync(this.live(), { bigint: true }));
    return { lower: s.ino ^ (s.mtimeNs << 1n), upper: s.dev ^ s.size };
  }

  metadataHashAt(pathFlags: { symlinkFollow?: boolean }, path: string): { lower: bigint; upper: bigint } {
    const s = this.statAt(pathFlags, path);
    const m = s.dataModificationTimestamp;
    return { lower: m.seconds * 1_000_000_000n + BigInt(m.nanoseconds), upper: s.size };
  }
}

const preopened = new WeakMap<CallContext, [Descriptor, string][]>();

function preopens(ctx: CallContext): [Descriptor, string][] {
  let list = preopened.get(ctx);
  if (!list) {
    list = ctx.mounts.map((m) => {
      const fd = os(() => openSync(m.host, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_CLOEXEC));
      const mount: MountRoot = { rootFd: fd, realRoot: m.host, readOnly: m.readOnly };
      // The root fd belongs to the call, closed with it (Descriptor.close skips it).
      ctx.track({ close: () => closeSync(fd) });
      const flags = m.readOnly ? { read: true } : { read: true, write: true, mutateDirectory: true };
      return [new Descriptor(ctx, mount, fd, [], true, flags), m.guest] as [Descriptor, string];
    });
    preopened.set(ctx, list);
  }
  return list;
}

/** The `wasi:filesystem/*` import objects. */
export function filesystemImports(binding: Binding): Record<string, Record<string, unknown>> {
  return {
    'wasi:filesystem/types': {
      Descriptor,
      DirectoryEntryStream,
      filesystemErrorCode: () => undefined,
    },
    'wasi:filesystem/preopens': {
      getDirectories: () => preopens(binding.current),
    },
  };
}
