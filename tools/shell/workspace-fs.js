// @ts-check
// just-bash's IFileSystem over wasi:filesystem: the shell's '/' is the tool's mount, and every
// operation goes through the sandbox host (which refuses escapes, symlink creation and writes
// to read-only mounts). Failures are thrown as Node-style errors ("ENOENT: ...") because
// just-bash's commands format and test them that way. /dev/null and friends are virtual: they
// work as redirect targets but are never created in, or listed with, the workspace.
import * as wfs from '../lib/wasi-fs.js';

const ERRNO = {
  'no-entry': ['ENOENT', 'no such file or directory'],
  'not-directory': ['ENOTDIR', 'not a directory'],
  'is-directory': ['EISDIR', 'illegal operation on a directory'],
  'read-only': ['EROFS', 'read-only file system'],
  'not-permitted': ['EPERM', 'operation not permitted'],
  access: ['EACCES', 'permission denied'],
  loop: ['ELOOP', 'too many levels of symbolic links'],
  exist: ['EEXIST', 'file already exists'],
  'not-empty': ['ENOTEMPTY', 'directory not empty'],
  invalid: ['EINVAL', 'invalid argument'],
  'insufficient-space': ['ENOSPC', 'no space left on device'],
  'cross-device': ['EXDEV', 'cross-device link not permitted'],
};

/** A Node-style error for a WASI failure (or a ToolError carrying a code). */
function nodeError(e, op, path) {
  const code = wfs.errorCode(e) ?? /** @type {any} */ (e)?.metadata?.code;
  const [errno, text] = ERRNO[code] ?? ['EIO', String(/** @type {any} */ (e)?.message ?? e)];
  const err = new Error(`${errno}: ${text}, ${op} '${path}'`);
  /** @type {any} */ (err).code = errno;
  return err;
}

/** Runs `fn`, rethrowing failures as Node-style errors. */
function guard(op, path, fn) {
  try {
    return fn();
  } catch (e) {
    throw nodeError(e, op, path);
  }
}

/** Bytes → a latin1-shaped string (one char per byte). */
function toByteString(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192)
    s += String.fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(i, i + 8192)));
  return s;
}

/** A latin1-shaped string → bytes. */
function fromByteString(s) {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

const encodingOf = (o) => (typeof o === 'string' ? o : o?.encoding) ?? 'utf8';

function decodeAs(bytes, encoding) {
  switch (encoding) {
    case 'utf8':
    case 'utf-8':
      return wfs.decode(bytes);
    case 'latin1':
    case 'binary':
      return toByteString(bytes);
    case 'ascii':
      return toByteString(bytes.map((b) => b & 0x7f));
    case 'base64':
      return btoa(toByteString(bytes));
    case 'hex':
      return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    default:
      return wfs.decode(bytes);
  }
}

function encodeAs(content, encoding) {
  if (content instanceof Uint8Array) return content;
  switch (encoding) {
    case 'latin1':
    case 'binary':
    case 'ascii':
      return fromByteString(content);
    case 'base64':
      return fromByteString(atob(content));
    case 'hex':
      return new Uint8Array((content.match(/../g) ?? []).map((h) => parseInt(h, 16)));
    default:
      return wfs.encode(content);
  }
}

const MODE = { directory: 0o755, 'symbolic-link': 0o777 };

function toStat(s) {
  return {
    isFile: s.type === 'regular-file',
    isDirectory: s.type === 'directory',
    isSymbolicLink: s.type === 'symbolic-link',
    mode: MODE[s.type] ?? 0o644,
    size: s.size,
    mtime: new Date(s.mtimeMs),
  };
}

/** Virtual devices: writes vanish, reads are empty. */
const DEVICES = new Set(['/dev/null', '/dev/zero', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const DEVICE_STAT = {
  isFile: true,
  isDirectory: false,
  isSymbolicLink: false,
  mode: 0o666,
  size: 0,
  mtime: new Date(0),
};
const DEV_STAT = { isFile: false, isDirectory: true, isSymbolicLink: false, mode: 0o755, size: 0, mtime: new Date(0) };

/** A just-bash file system whose '/' is the tool's workspace mount. */
export class WorkspaceFs {
  /** Whether `p` (normalized) is a virtual device. */
  device(p) {
    return DEVICES.has(p);
  }

  /** Whether `p` is /dev and the workspace has no real one. */
  virtualDev(p) {
    if (p !== '/dev') return false;
    try {
      return wfs.tryStat(p) === undefined;
    } catch {
      return false;
    }
  }

  /** @param {string} path */
  norm(path) {
    return guard('resolve', path, () => wfs.normalize(path));
  }

  readBuffer(path) {
    const p = this.norm(path);
    if (this.device(p)) return new Uint8Array(0);
    return guard('open', path, () => {
      const s = wfs.stat(p);
      if (s.type === 'directory') throw 'is-directory';
      return wfs.readBytes(p).bytes;
    });
  }

  async readFile(path, options) {
    return decodeAs(this.readBuffer(path), encodingOf(options));
  }

  async readFileBytes(path) {
    return toByteString(this.readBuffer(path));
  }

  async readFileBuffer(path) {
    return this.readBuffer(path);
  }

  async writeFile(path, content, options) {
    const p = this.norm(path);
    if (this.device(p)) return;
    guard('open', path, () => wfs.writeBytes(p, encodeAs(content, encodingOf(options))));
  }

  async appendFile(path, content, options) {
    const p = this.norm(path);
    if (this.device(p)) return;
    guard('open', path, () => wfs.writeBytes(p, encodeAs(content, encodingOf(options)), { append: true }));
  }

  async exists(path) {
    try {
      const p = wfs.normalize(path);
      return this.device(p) || this.virtualDev(p) || wfs.tryStat(p) !== undefined;
    } catch {
      return false;
    }
  }

  async stat(path) {
    const p = this.norm(path);
    if (this.device(p)) return DEVICE_STAT;
    if (this.virtualDev(p)) return DEV_STAT;
    return guard('stat', path, () => toStat(wfs.stat(p)));
  }

  async lstat(path) {
    const p = this.norm(path);
    if (this.device(p)) return DEVICE_STAT;
    if (this.virtualDev(p)) return DEV_STAT;
    return guard('lstat', path, () => toStat(wfs.stat(p, false)));
  }

  async mkdir(path, options) {
    const p = this.norm(path);
    guard('mkdir', path, () => {
      if (options?.recursive) return wfs.mkdirp(p);
      if (wfs.tryStat(p, false)) throw 'exist';
      const parent = wfs.tryStat(wfs.normalize(`${p}/..`));
      if (!parent) throw 'no-entry';
      return wfs.mkdirp(p);
    });
  }

  async readdir(path) {
    return (await this.readdirWithFileTypes(path)).map((e) => e.name);
  }

  async readdirWithFileTypes(path) {
    const p = this.norm(path);
    if (this.virtualDev(p)) {
      return [...DEVICES]
        .map((d) => ({ name: d.slice(5), isFile: true, isDirectory: false, isSymbolicLink: false }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
    }
    return guard('scandir', path, () =>
      wfs.readDir(p).map((e) => ({
        name: e.name,
        isFile: e.type === 'regular-file',
        isDirectory: e.type === 'directory',
        isSymbolicLink: e.type === 'symbolic-link',
      })),
    );
  }

  async rm(path, options) {
    const p = this.norm(path);
    if (this.device(p) || this.virtualDev(p)) throw nodeError('not-permitted', 'rm', path);
    guard('rm', path, () => {
      const s = wfs.tryStat(p, false);
      if (!s) {
        if (options?.force) return;
        throw 'no-entry';
      }
      if (p === '/') throw 'not-permitted';
      if (s.type !== 'directory') return wfs.remove(p, false);
      if (!options?.recursive) throw 'is-directory';
      this.removeTree(p);
    });
  }

  removeTree(p) {
    for (const e of wfs.readDir(p)) {
      const child = wfs.join(p, e.name);
      if (e.type === 'directory') this.removeTree(child);
      else wfs.remove(child, false);
    }
    wfs.remove(p, true);
  }

  async cp(src, dest, options) {
    const from = this.norm(src);
    const to = this.norm(dest);
    guard('cp', src, () => this.copy(from, to, !!options?.recursive));
  }

  copy(from, to, recursive) {
    const s = wfs.stat(from);
    if (s.type === 'directory') {
      if (!recursive) throw 'is-directory';
      if (to === from || to.startsWith(`${from}/`)) throw 'invalid';
      wfs.mkdirp(to);
      for (const e of wfs.readDir(from)) this.copy(wfs.join(from, e.name), wfs.join(to, e.name), true);
      return;
    }
    wfs.writeBytes(to, wfs.readBytes(from).bytes);
  }

  async mv(src, dest) {
    const from = this.norm(src);
    const to = this.norm(dest);
    guard('rename', src, () => wfs.rename(from, to));
  }

  resolvePath(base, path) {
    const joined = path.startsWith('/') ? path : `${base}/${path}`;
    const out = [];
    for (const part of joined.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') out.pop();
      else out.push(part);
    }
    return `/${out.join('/')}`;
  }

  getAllPaths() {
    return [];
  }

  async chmod(path) {
    // WASI has no permission bits; the path must exist.
    const p = this.norm(path);
    guard('chmod', path, () => wfs.stat(p));
  }

  async symlink(_target, linkPath) {
    throw nodeError('not-permitted', 'symlink', linkPath);
  }

  async link(_existing, newPath) {
    throw nodeError('not-permitted', 'link', newPath);
  }

  async readlink(path) {
    const p = this.norm(path);
    return guard('readlink', path, () => wfs.readLink(p));
  }

  async realpath(path) {
    let rest = this.norm(path).split('/').filter(Boolean);
    let done = '/';
    for (let hops = 0; rest.length; ) {
      const next = wfs.join(done, /** @type {string} */ (rest.shift()));
      const s = guard('realpath', path, () => wfs.stat(next, false));
      if (s.type !== 'symbolic-link') {
        done = next;
        continue;
      }
      if (++hops > 40) throw nodeError('loop', 'realpath', path);
      const target = guard('realpath', path, () => wfs.readLink(next));
      const resolved = this.resolvePath(target.startsWith('/') ? '/' : done, target);
      rest = [...resolved.split('/').filter(Boolean), ...rest];
      done = '/';
    }
    return done;
  }

  async utimes(path, _atime, mtime) {
    const p = this.norm(path);
    guard('utimes', path, () => wfs.setMtime(p, mtime.getTime()));
  }
}
