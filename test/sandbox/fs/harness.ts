// Drives the filesystem host the way jco's glue does, without a guest: a call context with
// mounts, a binding, `getDirectories()`, and Descriptor methods whose `err` cases arrive as
// thrown error-code strings.
import assert from 'node:assert/strict';
import { readdirSync, realpathSync } from 'node:fs';
import { Binding, CallContext, type NetBridge } from '../../../src/sandbox/host/context.ts';
import { filesystemImports } from '../../../src/sandbox/host/filesystem.ts';
import type { Mount } from '../../../src/sandbox/types.ts';
import { tempDir } from '../../helpers.ts';

type Flags = Record<string, boolean>;
type Timestamp =
  | { tag: 'no-change' }
  | { tag: 'now' }
  | { tag: 'timestamp'; val: { seconds: bigint; nanoseconds: number } };

/** The descriptor methods as the glue calls them (typed loosely: this is the guest's view). */
export interface Desc {
  readViaStream(offset: bigint): Stream;
  writeViaStream(offset: bigint): Stream;
  appendViaStream(): Stream;
  advise(offset: bigint, length: bigint, advice: string): void;
  syncData(): void;
  getFlags(): Flags;
  getType(): string;
  setSize(size: bigint): void;
  setTimes(a: Timestamp, m: Timestamp): void;
  read(length: bigint, offset: bigint): [Uint8Array, boolean];
  write(buffer: Uint8Array, offset: bigint): bigint;
  readDirectory(): { readDirectoryEntry(): { type: string; name: string } | undefined };
  sync(): void;
  createDirectoryAt(path: string): void;
  stat(): Stat;
  statAt(pf: Flags, path: string): Stat;
  setTimesAt(pf: Flags, path: string, a: Timestamp, m: Timestamp): void;
  linkAt(pf: Flags, oldPath: string, to: Desc, newPath: string): void;
  openAt(pf: Flags, path: string, of: Flags, flags: Flags): Desc;
  readlinkAt(path: string): string;
  removeDirectoryAt(path: string): void;
  renameAt(oldPath: string, to: Desc, newPath: string): void;
  symlinkAt(target: string, path: string): void;
  unlinkFileAt(path: string): void;
  isSameObject(other: Desc): boolean;
  metadataHash(): { lower: bigint; upper: bigint };
  metadataHashAt(pf: Flags, path: string): { lower: bigint; upper: bigint };
  [Symbol.dispose](): void;
}

export interface Stat {
  type: string;
  linkCount: bigint;
  size: bigint;
  dataAccessTimestamp?: { seconds: bigint; nanoseconds: number };
  dataModificationTimestamp?: { seconds: bigint; nanoseconds: number };
}

/** Input and output streams as returned by the host (wasi:io). */
export interface Stream {
  read(len: bigint): Uint8Array;
  blockingWriteAndFlush(bytes: Uint8Array): void;
  [Symbol.dispose](): void;
}

const noNet: NetBridge = {
  start: () => {
    throw new Error('no network in filesystem tests');
  },
  poll: () => false,
  wait: () => {},
  take: () => {
    throw new Error('no network in filesystem tests');
  },
  cancel: () => {},
};

/** One call bound to a fresh binding, with the filesystem imports built for it. */
export class Call {
  readonly ctx: CallContext;
  readonly types: Record<string, unknown>;
  readonly preopens: { getDirectories(): [Desc, string][] };

  constructor(
    mounts: Mount[],
    readonly binding = new Binding(),
    limits: { maxWriteBytes?: number; maxDiskBytes?: number; maxEntries?: number } = {},
  ) {
    this.ctx = new CallContext({
      argv: ['fs-test'],
      env: {},
      mounts,
      network: { allow: [], block: [] },
      maxOutputBytes: 1 << 20,
      net: noNet,
      ...limits,
    });
    const imports = filesystemImports(binding);
    this.types = imports['wasi:filesystem/types']!;
    this.preopens = imports['wasi:filesystem/preopens'] as unknown as Call['preopens'];
    binding.bind(this.ctx);
  }

  /** The preopen at guest path `guest` (the first one by default). */
  dir(guest?: string): Desc {
    const dirs = this.preopens.getDirectories();
    const hit = guest === undefined ? dirs[0] : dirs.find(([, g]) => g === guest);
    assert.ok(hit, `no preopen ${guest ?? '(first)'}`);
    return hit[0];
  }

  /** Ends the call as the runner does. */
  end(): void {
    this.binding.unbind();
    this.ctx.closeAll();
  }
}

/** A call whose only mount is `host` at guest `/`. */
export const callOn = (host: string, readOnly = false): Call => new Call([{ host, guest: '/', readOnly }]);

/** The error code a host call failed with (the glue's `err` case), or a failure if it succeeded. */
export function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (typeof e === 'string') return e;
    if (e && typeof e === 'object' && 'tag' in e) return JSON.stringify(e);
    throw e;
  }
  assert.fail('expected the call to fail');
}

/** Opens `path` for reading and returns its whole text. */
export function readText(dir: Desc, path: string, follow = true): string {
  const f = dir.openAt({ symlinkFollow: follow }, path, {}, { read: true });
  try {
    const chunks: Uint8Array[] = [];
    let offset = 0n;
    for (;;) {
      const [data, eof] = f.read(65536n, offset);
      chunks.push(data);
      offset += BigInt(data.length);
      if (eof || data.length === 0) break;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    f[Symbol.dispose]();
  }
}

/** Creates (or truncates) `path` and writes `text` to it. */
export function writeText(dir: Desc, path: string, text: string): void {
  const f = dir.openAt({}, path, { create: true, truncate: true }, { write: true });
  try {
    f.write(Buffer.from(text), 0n);
  } finally {
    f[Symbol.dispose]();
  }
}

/** Every entry of a directory descriptor, sorted by name. */
export function list(dir: Desc): { name: string; type: string }[] {
  const s = dir.readDirectory();
  const out: { name: string; type: string }[] = [];
  for (let e = s.readDirectoryEntry(); e; e = s.readDirectoryEntry()) out.push({ name: e.name, type: e.type });
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A fresh real (symlink-free) temporary directory, removed when the test file's process exits. */
export function temp(prefix: string): string {
  return realpathSync(tempDir(prefix));
}

/** How many fds this process has open. */
export const openFds = (): number => readdirSync('/proc/self/fd').length;
