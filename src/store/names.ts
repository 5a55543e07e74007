// Safe, reversible file names for keys (conversation keys, job ids, message ids): no path
// separators, dots or upper case survive, so no key can escape its folder or collide with
// another key on a case-insensitive file system. Long keys fall back to a hash.
import * as crypto from 'node:crypto';
import { StoreError } from './errors.ts';

/** Longest encoded name used as is; longer ones become `~<sha256>` (file systems cap at 255). */
const MAX_NAME = 200;
const RAW = /^[a-z0-9_-]$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/** Throws StoreError `bad-key` unless `key` is a non-empty, well-formed string. */
export function checkKey(key: unknown, what = 'key'): asserts key is string {
  if (typeof key !== 'string' || key.length === 0)
    throw new StoreError('bad-key', `${what} must be a non-empty string`);
  if (LONE_SURROGATE.test(key)) throw new StoreError('bad-key', `${what} is not well-formed Unicode`);
}

/** Each byte's form in a name: itself for `[a-z0-9_-]`, else `%XX` (built once: names are made per store call). */
const BYTE_FORM: readonly string[] = Array.from({ length: 256 }, (_, b) => {
  const ch = String.fromCharCode(b);
  return b < 0x80 && RAW.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
});

/** Encodes `key` into a file-name stem: `[a-z0-9_-]` kept, every other UTF-8 byte as `%XX`. */
export function encodeName(key: string): string {
  checkKey(key);
  let out = '';
  // An ASCII character is its own UTF-8 byte: only a key with others needs its bytes.
  let ascii = true;
  for (let i = 0; i < key.length && ascii; i++) ascii = key.charCodeAt(i) < 0x80;
  if (ascii) for (let i = 0; i < key.length; i++) out += BYTE_FORM[key.charCodeAt(i)];
  else for (const byte of Buffer.from(key, 'utf8')) out += BYTE_FORM[byte];
  if (WINDOWS_RESERVED.test(out)) out = `%${out.charCodeAt(0).toString(16).toUpperCase()}${out.slice(1)}`;
  if (out.length > MAX_NAME) return `~${sha256Hex(key)}`;
  return out;
}

/** Decodes a stem made by `encodeName`; undefined for hashed (`~`) or foreign names. */
export function decodeName(stem: string): string | undefined {
  if (stem.startsWith('~') || !/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(stem)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < stem.length; i++) {
    if (stem[i] === '%') {
      bytes.push(parseInt(stem.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(stem.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * A UTF-8 string's SHA-256 in hex. Node's one-shot `crypto.hash` (20.12+) where there is one: a
 * shard is found several times per store call, and a Hash object for each cost 4.5 against 1 µs.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * Shards of the keys seen lately: one turn finds the same few (its conversation, user, day) about ten
 * times within milliseconds. Room for the turns in flight only: a bigger table would hold about 0.2 KiB
 * per idle conversation (measured with 4,096), which is what the idle-memory target counts.
 */
const shards = new Map<string, string>();
const SHARDS_KEPT = 512;

/** The shard folder (`00`..`ff`) a key's file lives in. */
export function shardOf(key: string): string {
  let shard = shards.get(key);
  if (shard === undefined) {
    if (shards.size >= SHARDS_KEPT) shards.clear();
    shard = sha256Hex(key).slice(0, 2);
    shards.set(key, shard);
  }
  return shard;
}

/** Every shard folder name, in order. */
export const SHARDS: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
