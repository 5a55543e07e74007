// The value shapes of `wasi:filesystem/types` and their conversions from Node's stats: types,
// timestamps, new-timestamp requests, and a keyed metadata hash that does not reveal inodes.
import { createHash, randomBytes } from 'node:crypto';
import type { BigIntStats, Dirent, Stats } from 'node:fs';

/** `datetime`: seconds and nanoseconds since the epoch. */
export interface Datetime {
  seconds: bigint;
  nanoseconds: number;
}

/** `new-timestamp`. */
export type NewTimestamp = { tag: 'no-change' } | { tag: 'now' } | { tag: 'timestamp'; val: Datetime };

/** `descriptor-type`. */
export type DescriptorType =
  | 'unknown'
  | 'block-device'
  | 'character-device'
  | 'directory'
  | 'fifo'
  | 'symbolic-link'
  | 'regular-file'
  | 'socket';

/** `descriptor-flags`. */
export interface DescriptorFlags {
  read?: boolean;
  write?: boolean;
  fileIntegritySync?: boolean;
  dataIntegritySync?: boolean;
  requestedWriteSync?: boolean;
  mutateDirectory?: boolean;
}

/** `path-flags`. */
export interface PathFlags {
  symlinkFollow?: boolean;
}

/** `open-flags`. */
export interface OpenFlags {
  create?: boolean;
  directory?: boolean;
  exclusive?: boolean;
  truncate?: boolean;
}

/** `descriptor-stat`. */
export interface DescriptorStat {
  type: DescriptorType;
  linkCount: bigint;
  size: bigint;
  dataAccessTimestamp?: Datetime;
  dataModificationTimestamp?: Datetime;
  statusChangeTimestamp?: Datetime;
}

/** `directory-entry`. */
export interface DirectoryEntry {
  type: DescriptorType;
  name: string;
}

/** `metadata-hash-value`. */
export interface MetadataHashValue {
  lower: bigint;
  upper: bigint;
}

/** The descriptor type of a stat or directory entry. */
export function typeOf(s: Stats | BigIntStats | Dirent): DescriptorType {
  if (s.isFile()) return 'regular-file';
  if (s.isDirectory()) return 'directory';
  if (s.isSymbolicLink()) return 'symbolic-link';
  if (s.isFIFO()) return 'fifo';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character-device';
  if (s.isBlockDevice()) return 'block-device';
  return 'unknown';
}

const NS = 1_000_000_000n;

/** Nanoseconds since the epoch as a `datetime`; times before 1970 (unrepresentable) become 0. */
function datetime(ns: bigint): Datetime {
  if (ns < 0n) return { seconds: 0n, nanoseconds: 0 };
  return { seconds: ns / NS, nanoseconds: Number(ns % NS) };
}

/** A Node bigint stat as a `descriptor-stat`. */
export function toStat(s: BigIntStats): DescriptorStat {
  return {
    type: typeOf(s),
    linkCount: s.nlink,
    size: s.size,
    dataAccessTimestamp: datetime(s.atimeNs),
    dataModificationTimestamp: datetime(s.mtimeNs),
    statusChangeTimestamp: datetime(s.ctimeNs),
  };
}

/** Latest second a time_t (signed 64-bit) holds: a later time cannot be set at all. */
const MAX_TIME_T = 2n ** 63n - 1n;

/**
 * The time a `new-timestamp` asks for, in nanoseconds since the epoch: `currentNs` for
 * `no-change`, undefined for `now`. Seconds past time_t's range are `overflow`, as Wasmtime says.
 */
export function requestedNs(t: NewTimestamp, currentNs: bigint): bigint | undefined {
  switch (t.tag) {
    case 'now':
      return undefined;
    case 'timestamp': {
      const { seconds, nanoseconds } = t.val;
      if (!Number.isInteger(nanoseconds) || nanoseconds < 0 || nanoseconds >= 1e9) throw 'invalid';
      if (seconds > MAX_TIME_T) throw 'overflow';
      return seconds * NS + BigInt(nanoseconds);
    }
    default:
      return currentNs;
  }
}

/** Secret input of the metadata hash, so guests cannot recover inode numbers from it. */
const HASH_KEY = randomBytes(32);

/** Same object, unchanged → same value; modified or replaced → (almost surely) different. */
export function metadataHash(s: BigIntStats): MetadataHashValue {
  const digest = createHash('sha256').update(HASH_KEY).update(`${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`).digest();
  return { lower: digest.readBigUInt64LE(0), upper: digest.readBigUInt64LE(8) };
}
