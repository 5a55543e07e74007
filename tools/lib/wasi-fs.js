// @ts-check
// Files as a guest sees them, through wasi:filesystem only: guest paths ('/' = the workspace)
// resolved to a preopen and a relative path, small synchronous helpers (stat, read, list,
// walk, write, mkdir -p), and WASI error codes turned into messages a model can act on.
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';
import { concat } from './bytes.js';
import { ToolError } from './cli.js';

export { concat, looksBinary } from './bytes.js';

/** Why an operation failed, in words, by `wasi:filesystem` error code. */
const REASONS = {
  'no-entry': 'no such file or directory',
  'not-directory': 'a component of the path is not a directory',
  'is-directory': 'is a directory',
  'read-only': 'read-only (this folder is mounted read-only for this tool)',
  'not-permitted': 'not permitted (outside the workspace, or a symlink leading out of it)',
  access: 'access denied',
  loop: 'too many levels of symbolic links',
  exist: 'already exists',
  'not-empty': 'directory not empty',
  'name-too-long': 'name too long',
  'insufficient-space': 'no space left',
  'insufficient-memory': 'too many open files',
  'file-too-large': 'file too large',
  invalid: 'invalid argument',
};

/** The WASI error code carried by a thrown value, if any. */
export function errorCode(e) {
  if (e && typeof e === 'object' && 'payload' in e) return String(e.payload);
  if (typeof e === 'string') return e;
  return undefined;
}

/** A ToolError for a failed filesystem operation on `path`. */
export function fsError(e, op, path) {
  if (e instanceof ToolError) return e;
  const code = errorCode(e);
  const reason = (code && REASONS[code]) || code || String(e);
  return new ToolError(`${op} ${path}: ${reason}`, { path, code: code ?? 'unknown' });
}

/**
 * Normalizes a guest path: relative paths are taken from '/', '.' and '..' are resolved, and a
 * path that climbs above '/' is refused. Returns an absolute path without a trailing slash.
 */
export function normalize(path) {
  if (typeof path !== 'string' || path === '') throw new ToolError('a path is required');
  if (path.includes('\0')) throw new ToolError(`invalid path ${JSON.stringify(path)}`);
  const out = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (!out.length) throw new ToolError(`${path}: leaves the workspace ('/' is the top)`, { path });
      out.pop();
    } else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** `dir` + `name` as a guest path. */
export const join = (dir, name) => (dir === '/' ? `/${name}` : `${dir}/${name}`);

/** The path relative to `base` (both normalized); `base` itself is '.'. */
export function relative(base, path) {
  if (path === base) return '.';
  return base === '/' ? path.slice(1) : path.slice(base.length + 1);
}

let mounts;
/** The preopens, longest guest path first. */
function preopens() {
  if (!mounts) {
    mounts = getDirectories()
      .map(([desc, guest]) => ({ desc, guest: guest === '/' ? '/' : normalize(guest) }))
      .sort((a, b) => b.guest.length - a.guest.length);
  }
  return mounts;
}

/** The preopen holding `path` (normalized) and the path relative to it ('' for its root). */
export function locate(path) {
  for (const m of preopens()) {
    if (m.guest === '/' || path === m.guest || path.startsWith(`${m.guest}/`)) {
      return { dir: m.desc, rel: m.guest === '/' ? path.slice(1) : path.slice(m.guest.length + 1) };
    }
  }
  throw new ToolError(
    preopens().length ? `${path}: not inside the workspace` : 'no workspace is mounted for this tool',
    { path },
  );
}

const dispose = (d) => d?.[Symbol.dispose]?.();

/** Seconds+nanoseconds → milliseconds. */
const ms = (t) => (t ? Number(t.seconds) * 1000 + Math.floor(t.nanoseconds / 1e6) : 0);

/**
 * Stat of a guest path: `{ type, size, mtimeMs }`, `type` being WASI's descriptor type
 * (`regular-file`, `directory`, `symbolic-link`, ...). `follow` follows a final symlink.
 */
export function stat(path, follow = true) {
  const { dir, rel } = locate(path);
  try {
    const s = rel === '' ? dir.stat() : dir.statAt({ symlinkFollow: follow }, rel);
    return { type: s.type, size: Number(s.size), mtimeMs: ms(s.dataModificationTimestamp) };
  } catch (e) {
    throw fsError(e, 'stat', path);
  }
}

/** Stat, or undefined when the path does not exist. */
export function tryStat(path, follow = true) {
  try {
    return stat(path, follow);
  } catch (e) {
    if (e instanceof ToolError && e.metadata.code === 'no-entry') return undefined;
    throw e;
  }
}

/** Opens a file for reading; the caller disposes it. */
function openRead(path) {
  const { dir, rel } = locate(path);
  if (rel === '') throw new ToolError(`${path} is a directory`, { path, code: 'is-directory' });
  try {
    return dir.openAt({ symlinkFollow: true }, rel, {}, { read: true });
  } catch (e) {
    throw fsError(e, 'open', path);
  }
}

/** Reads up to `max` bytes from `offset`; `eof` says whether the file ended. */
export function readBytes(path, max = Infinity, offset = 0) {
  const f = openRead(path);
  try {
    const parts = [];
    let total = 0;
    let at = BigInt(offset);
    let eof = false;
    while (total < max) {
      const want = Math.min(1 << 20, max - total);
      const [chunk, end] = f.read(BigInt(want), at);
      if (chunk.length) {
        parts.push(chunk);
        total += chunk.length;
        at += BigInt(chunk.length);
      }
      if (end || chunk.length === 0) {
        eof = true;
        break;
      }
    }
    if (!eof && total >= max) {
      // Exactly at the cap: peek whether anything follows.
      const [more] = f.read(1n, at);
      eof = more.length === 0;
    }
    return { bytes: concat(parts, total), eof };
  } catch (e) {
    throw fsError(e, 'read', path);
  } finally {
    dispose(f);
  }
}

/** Directory entries `{ name, type }`, sorted by name. */
export function readDir(path) {
  const { dir, rel } = locate(path);
  let d;
  try {
    d = rel === '' ? dir : dir.openAt({ symlinkFollow: true }, rel, { directory: true }, { read: true });
    const stream = d.readDirectory();
    const out = [];
    for (let e; (e = stream.readDirectoryEntry()); ) out.push({ name: e.name, type: e.type });
    dispose(stream);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    throw fsError(e, 'list', path);
  } finally {
    if (d !== dir) dispose(d);
  }
}

/** Directories skipped by walks unless the caller names them (version control, dependencies). */
export const HEAVY_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn']);

/**
 * Walks the tree under `root` depth first in name order, calling `visit(path, entry, depth)`
 * for every entry (symlinks are reported, not followed). `enter(path, depth)` decides whether a
 * directory is descended into. Stops after `maxEntries` entries; returns whether it finished.
 */
export function walk(root, { visit, enter = () => true, maxEntries = 200_000 }) {
  let seen = 0;
  const stack = [{ path: root, depth: 1 }];
  while (stack.length) {
    const { path, depth } = /** @type {{path: string, depth: number}} */ (stack.pop());
    let entries;
    try {
      entries = readDir(path);
    } catch (e) {
      if (path === root) throw e;
      continue; // vanished or unreadable below the root: skip it
    }
    const dirs = [];
    for (const entry of entries) {
      if (++seen > maxEntries) return false;
      const p = join(path, entry.name);
      if (visit(p, entry, depth) === false) return false;
      if (entry.type === 'directory' && enter(p, depth, entry)) dirs.push({ path: p, depth: depth + 1 });
    }
    for (let i = dirs.length - 1; i >= 0; i--) stack.push(/** @type {any} */ (dirs[i]));
  }
  return true;
}

/** Creates `path` and its missing parents. */
export function mkdirp(path) {
  if (path === '/') return;
  const s = tryStat(path);
  if (s) {
    if (s.type !== 'directory')
      throw new ToolError(`${path} exists and is not a directory`, { path, code: 'not-directory' });
    return;
  }
  mkdirp(normalize(`${path}/..`));
  const { dir, rel } = locate(path);
  try {
    dir.createDirectoryAt(rel);
  } catch (e) {
    if (errorCode(e) !== 'exist') throw fsError(e, 'mkdir', path);
  }
}

/** Writes (creating or truncating) a file; with `append`, adds at its end. */
export function writeBytes(path, bytes, { append = false } = {}) {
  const { dir, rel } = locate(path);
  if (rel === '') throw new ToolError(`${path} is a directory`, { path, code: 'is-directory' });
  let f;
  try {
    f = dir.openAt({ symlinkFollow: true }, rel, { create: true, truncate: !append }, { write: true, read: append });
    let at = append ? f.stat().size : 0n;
    for (let i = 0; i < bytes.length; ) {
      const n = Number(f.write(bytes.subarray(i, Math.min(i + (1 << 20), bytes.length)), at));
      i += n;
      at += BigInt(n);
    }
  } catch (e) {
    throw fsError(e, 'write', path);
  } finally {
    dispose(f);
  }
}

/** Removes a file or an empty directory. */
export function remove(path, isDir) {
  const { dir, rel } = locate(path);
  try {
    if (isDir) dir.removeDirectoryAt(rel);
    else dir.unlinkFileAt(rel);
  } catch (e) {
    throw fsError(e, 'remove', path);
  }
}

/** Renames within the workspace. */
export function rename(from, to) {
  const a = locate(from);
  const b = locate(to);
  try {
    a.dir.renameAt(a.rel, b.dir, b.rel);
  } catch (e) {
    throw fsError(e, 'rename', from);
  }
}

/** The target of a symlink. */
export function readLink(path) {
  const { dir, rel } = locate(path);
  try {
    return dir.readlinkAt(rel);
  } catch (e) {
    throw fsError(e, 'readlink', path);
  }
}

/** Sets a path's modification time (ms since the epoch). */
export function setMtime(path, mtimeMs) {
  const { dir, rel } = locate(path);
  const t = {
    tag: 'timestamp',
    val: { seconds: BigInt(Math.floor(mtimeMs / 1000)), nanoseconds: (mtimeMs % 1000) * 1e6 },
  };
  try {
    dir.setTimesAt({ symlinkFollow: true }, rel, { tag: 'no-change' }, t);
  } catch (e) {
    throw fsError(e, 'touch', path);
  }
}

const utf8 = new TextDecoder();
/** Decodes UTF-8 (invalid sequences become U+FFFD). */
export const decode = (bytes) => utf8.decode(bytes);
/** Encodes UTF-8. */
export const encode = (text) => new TextEncoder().encode(text);
