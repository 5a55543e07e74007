// @imports wasi:filesystem/preopens@0.2.12, wasi:cli/environment@0.2.12
// A hostile filesystem guest: runs the command in its arguments against its first preopen and
// prints one JSON line {ok, value} or {ok:false, error}. Commands:
//   read P | write P TEXT | ls P | mkdir P | rm P | rmdir P | rename A B | symlink T L |
//   link A B | stat P | readlink P | race-read P N (N reads; counts outcomes by content) |
//   fill P MIB (writes MIB MiB in 1 MiB writes; on failure the error names the MiB written)

import { getArguments } from 'wasi:cli/environment@0.2.12';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';

const dec = new TextDecoder();
const enc = new TextEncoder();

function readAll(root, path, follow = true, max = 1048576n) {
  const f = root.openAt({ symlinkFollow: follow }, path, {}, { read: true });
  try {
    const [data] = f.read(max, 0n);
    return dec.decode(data);
  } finally {
    f[Symbol.dispose]?.();
  }
}

function errName(e) {
  if (e && typeof e === 'object' && 'payload' in e) return String(e.payload);
  return String(e);
}

const commands = {
  read: (root, [p]) => readAll(root, p),
  'read-nofollow': (root, [p]) => readAll(root, p, false),
  write: (root, [p, text]) => {
    const f = root.openAt({}, p, { create: true, truncate: true }, { write: true });
    f.write(enc.encode(text), 0n);
    return 'written';
  },
  ls: (root, [p]) => {
    const d = p && p !== '.' ? root.openAt({}, p, { directory: true }, { read: true }) : root;
    const s = d.readDirectory();
    const names = [];
    for (let e; (e = s.readDirectoryEntry()); ) names.push(e.name);
    return names.sort();
  },
  mkdir: (root, [p]) => (root.createDirectoryAt(p), 'made'),
  rm: (root, [p]) => (root.unlinkFileAt(p), 'removed'),
  rmdir: (root, [p]) => (root.removeDirectoryAt(p), 'removed'),
  rename: (root, [a, b]) => (root.renameAt(a, root, b), 'renamed'),
  symlink: (root, [t, l]) => (root.symlinkAt(t, l), 'linked'),
  link: (root, [a, b]) => (root.linkAt({}, a, root, b), 'linked'),
  stat: (root, [p]) => root.statAt({}, p).type,
  fill: (root, [p, mib]) => {
    const f = root.openAt({}, p, { create: true, truncate: true }, { write: true });
    const chunk = new Uint8Array(1048576).fill(120);
    for (let i = 0; i < Number(mib); i++) {
      try {
        f.write(chunk, BigInt(i) * 1048576n);
      } catch (e) {
        throw `${errName(e)} after ${i} MiB`;
      }
    }
    return `${mib} MiB`;
  },
  readlink: (root, [p]) => root.readlinkAt(p),
  'race-read': (root, [p, n]) => {
    const counts = {};
    for (let i = 0; i < Number(n); i++) {
      let key;
      try {
        // 64 bytes hold either file; asking 1 MiB made the host zero a 1 MiB buffer per read.
        key = `content:${readAll(root, p, true, 64n).trim()}`;
      } catch (e) {
        key = `error:${errName(e)}`;
      }
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  },
};

export const run = {
  run() {
    const [, cmd, ...args] = getArguments();
    const dirs = getDirectories();
    let out;
    try {
      if (dirs.length === 0) throw 'no preopens';
      const fn = commands[cmd];
      if (!fn) throw `unknown command ${cmd}`;
      out = { ok: true, value: fn(dirs[0][0], args) };
    } catch (e) {
      out = { ok: false, error: errName(e) };
    }
    console.log(JSON.stringify(out));
  },
};
