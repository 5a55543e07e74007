// The one way the host reads a file that a tool (or a chat user) could have placed: AGENTS.md
// in a workspace, a SKILL.md in the data dir, attachments. It resolves the path with the same
// walk guests get (host/fs-walk.ts: one pinned component at a time, symlinks only inside the
// root, never an absolute target), accepts regular files only (a FIFO would hang the host, a
// device like /dev/zero never ends, /proc files hold the host's secrets) and checks the size
// before reading a byte.
import fs from 'node:fs';
import { errorMessage } from '../core/errors.ts';
import { DIRECTORY_BYTES, exists, MAX_ENTRIES, mountUsage } from './host/fs-quota.ts';
import { at, closeQuietly, lookup, type MountRoot, openMountRoot, Walk } from './host/fs-walk.ts';

/** What reading a workspace file gave: the bytes, or why not (`missing`: nothing there at all). */
export type WorkspaceRead = { ok: true; bytes: Uint8Array } | { ok: false; missing: boolean; reason: string };

const REASONS: Record<string, string> = {
  'not-permitted': 'it leads outside the folder (an absolute or escaping symlink, or ..)',
  loop: 'too many symlinks',
  'not-directory': 'a component of the path is not a directory',
  'name-too-long': 'the path is too long',
  invalid: 'the path is not valid',
};

function refused(reason: string, missing = false): WorkspaceRead {
  return { ok: false, missing, reason };
}

/** A read-only root held for one read. */
function rootOf(host: string): MountRoot & { close(): void } {
  const { realRoot, fd } = openMountRoot(host);
  let open = fd;
  return {
    guest: '/',
    readOnly: true,
    realRoot,
    rootFd: () => open,
    close() {
      closeQuietly(open);
      open = -1;
    },
  };
}

/** Reads all of `fd` (a regular file), failing once more than `maxBytes` arrive (it grew meanwhile). */
function readCapped(fd: number, maxBytes: number): Uint8Array | undefined {
  const buf = Buffer.alloc(Math.min(maxBytes + 1, 1 << 20));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) return undefined;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

/**
 * Reads `relPath` below the folder `root`, as a tool with a read-only mount of `root` would see
 * it: never outside `root`, a regular file of at most `maxBytes`, else a reason (never throws).
 * Example: const r = readWorkspaceFile(workspace, 'AGENTS.md', { maxBytes: 64 * 1024 });
 */
export function readWorkspaceFile(root: string, relPath: string, opts: { maxBytes: number }): WorkspaceRead {
  let mount: ReturnType<typeof rootOf>;
  try {
    mount = rootOf(root);
  } catch (e) {
    return refused(
      `cannot open the folder ${root}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`,
      (e as NodeJS.ErrnoException).code === 'ENOENT',
    );
  }
  const walk = new Walk(mount, { fd: mount.rootFd(), names: [] });
  let pinned = -1;
  let file = -1;
  try {
    let name = walk.toParent(relPath);
    let st: fs.Stats;
    for (;;) {
      if (name === '.') return refused('it is a directory');
      pinned = lookup(mount, walk.fd, name);
      st = fs.fstatSync(pinned);
      if (!st.isSymbolicLink()) break;
      closeQuietly(pinned);
      pinned = -1;
      name = walk.followFinal(name);
    }
    if (!st.isFile()) return refused(`it is not a regular file (${kindOf(st)})`);
    if (st.size > opts.maxBytes) return refused(`it is ${st.size} bytes; the limit is ${opts.maxBytes}`);
    // Reopening the pinned inode through its magic link reads exactly what was checked.
    file = fs.openSync(
      `/proc/self/fd/${pinned}`,
      fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY,
    );
    const again = fs.fstatSync(file);
    if (!again.isFile() || again.ino !== st.ino || again.dev !== st.dev)
      return refused('it changed while it was being opened');
    const bytes = readCapped(file, opts.maxBytes);
    if (!bytes) return refused(`it grew past the limit of ${opts.maxBytes} bytes while it was read`);
    return { ok: true, bytes };
  } catch (e) {
    if (typeof e === 'string') return refused(REASONS[e] ?? e, e === 'no-entry');
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return refused('it does not exist', true);
    if (code === 'ENOTDIR') return refused(REASONS['not-directory']!);
    return refused(`it cannot be read: ${code ?? errorMessage(e)}`);
  } finally {
    if (file >= 0) closeQuietly(file);
    if (pinned >= 0) closeQuietly(pinned);
    walk.close();
    mount.close();
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/** What saving a file into a workspace folder gave: its path below the root, or why not. */
export type WorkspaceWrite = { ok: true; path: string } | { ok: false; reason: string };

/** One path component the host may create: no separators, no `.`/`..`, no NUL, at most 255 bytes. */
const SAFE_COMPONENT = /^(?!\.{1,2}$)[^/\0]{1,255}$/;

/**
 * Saves `bytes` as `dir/name` below the folder `root` (attachments into `inbox/`). Both are one
 * path component. Unlike a read, nothing here follows a symlink: a tool that turned `dir` into a
 * link (to another folder of the workspace, or out of it) gets a refusal, not a redirected write,
 * and a link at `dir/name` is replaced, never written through. The file is written under a
 * temporary name and renamed into place, so a reader never sees half a file and saving the same
 * attachment again (a resumed message) replaces it whole. Never throws.
 * Example: writeWorkspaceFile(workspace, 'inbox', 'photo-1.jpg', bytes)
 */
export function writeWorkspaceFile(
  root: string,
  dir: string,
  name: string,
  bytes: Uint8Array,
  opts: { maxWorkspaceBytes?: number; maxEntries?: number } = {},
): WorkspaceWrite {
  if (!SAFE_COMPONENT.test(dir) || !SAFE_COMPONENT.test(name) || Buffer.byteLength(name) > 255)
    return { ok: false, reason: 'the file name is not valid' };
  let mount: ReturnType<typeof rootOf>;
  try {
    fs.mkdirSync(root, { recursive: true });
    mount = rootOf(root);
  } catch (e) {
    return {
      ok: false,
      reason: `cannot open the folder ${root}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`,
    };
  }
  let dirFd = -1;
  let file = -1;
  // Not derived from `name`: a name near the 255-byte limit (a long non-ASCII one) would push it past.
  const temp = `.boxbot-${process.pid}-${Math.random().toString(36).slice(2, 10)}.part`;
  try {
    // The same quota tools write under (sandbox.limits.maxWorkspaceMb), counted the same way.
    if (opts.maxWorkspaceBytes !== undefined) {
      const maxEntries = opts.maxEntries ?? MAX_ENTRIES;
      const usage = mountUsage(mount.rootFd(), maxEntries);
      // The file and perhaps its folder: past the limit no tool could write to the workspace.
      if (usage.entries + 2 > maxEntries)
        return { ok: false, reason: `the workspace would hold more than ${maxEntries} files, folders and links` };
      // A folder the file needs counts a block, as a tool's mkdir does.
      const folder = exists(at(mount.rootFd(), dir)) ? 0 : DIRECTORY_BYTES;
      if (usage.bytes + folder + bytes.length > opts.maxWorkspaceBytes)
        return { ok: false, reason: `the workspace would exceed its quota of ${opts.maxWorkspaceBytes} bytes` };
    }
    try {
      fs.mkdirSync(at(mount.rootFd(), dir), 0o755);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    dirFd = lookup(mount, mount.rootFd(), dir);
    const st = fs.fstatSync(dirFd);
    if (!st.isDirectory())
      return {
        ok: false,
        reason: `${dir} in the workspace is not a folder (${st.isSymbolicLink() ? 'a symlink' : kindOf(st)})`,
      };
    const C = fs.constants;
    file = fs.openSync(at(dirFd, temp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW | C.O_NOCTTY, 0o644);
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(file, bytes, off, bytes.length - off);
    fs.closeSync(file);
    file = -1;
    // rename replaces whatever `name` is (a symlink included) and never follows it.
    fs.renameSync(at(dirFd, temp), at(dirFd, name));
    return { ok: true, path: `${dir}/${name}` };
  } catch (e) {
    if (file >= 0) {
      closeQuietly(file);
      file = -1;
    }
    if (dirFd >= 0) fs.rmSync(at(dirFd, temp), { force: true });
    if (typeof e === 'string') return { ok: false, reason: REASONS[e] ?? e };
    return { ok: false, reason: `it cannot be written: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}` };
  } finally {
    if (file >= 0) closeQuietly(file);
    if (dirFd >= 0) closeQuietly(dirFd);
    mount.close();
  }
}
