// Files on disk. A write goes to a unique temp file in the same folder, is synced, then
// renamed over the target, so a crash at any point leaves the old or the new file whole. An
// append log is synced per append (O_DSYNC, or fdatasync), and its folder when it is opened.
// A document's stamp (the cache's check that nobody changed the file, made at every read of a
// recently used document) is a stat made in place: it reads an inode from the page cache in
// microseconds, where a trip to libuv's pool and back costs a wake-up of the main thread (a
// scheduling delay of its own on a loaded machine). Writes stay in the pool: a rename or a
// file's creation in place can wait on the file system's journal while other writes sync.
import type { Stats } from 'node:fs';
import { constants, statSync } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sleep } from '../core/sleep.ts';
import { StoreError } from './errors.ts';
import { type Files, fileStamp } from './files.ts';

let tempSeq = 0;

// A small file (a document) is written with O_DSYNC where the platform has it: the one write
// returns once the data, and what reading it back needs, is on disk (an fdatasync's guarantee,
// which the write-then-rename needs) in one trip to libuv's pool instead of a write and an
// fsync. A large one (an upload) is written in chunks, each would be synced: it is synced once.
export const SYNCED_WRITE_MAX = 64 * 1024;
const SYNCED_OPEN =
  constants.O_DSYNC === undefined
    ? undefined
    : constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DSYNC;
const SYNCED_APPEND =
  constants.O_DSYNC === undefined
    ? undefined
    : constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

/** Files under `root`; `beforeCommit` runs between the durable temp write and the rename. */
export function createDiskFiles(
  root: string,
  opts: { now: () => number; beforeCommit?: (path: string) => void | Promise<void> },
): Files {
  const made = new Set<string>();
  const abs = (path: string): string => join(root, ...path.split('/'));

  async function ensureDir(dir: string): Promise<void> {
    if (made.has(dir)) return;
    // Private to boxbot's user: conversations and jobs are nobody else's business.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    made.add(dir);
  }

  async function missingOk<T>(f: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
      throw e;
    }
  }

  /** Writes a temp file, syncs it, then renames it over `path`; resolves with the new file's stamp. */
  async function replace(path: string, data: string | Uint8Array): Promise<string> {
    const file = abs(path);
    const dir = dirname(file);
    await ensureDir(dir);
    const tmp = join(dir, `.${file.slice(dir.length + 1)}.${process.pid}.${++tempSeq}.tmp`);
    try {
      const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
      const synced = SYNCED_OPEN !== undefined && size > 0 && size <= SYNCED_WRITE_MAX;
      const fh = await open(tmp, synced ? SYNCED_OPEN : 'w', 0o600);
      let stamp: string;
      try {
        await fh.writeFile(data);
        if (!synced) await fh.sync();
        stamp = stampOf(await fh.stat()); // a rename keeps inode, size and mtime
      } finally {
        await fh.close();
      }
      await opts.beforeCommit?.(path);
      await rename(tmp, file);
      return stamp;
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  return {
    read: (path) => missingOk(() => readFile(abs(path), 'utf8'), undefined),

    write: (path, text) => replace(path, text),

    async writeBytes(path, bytes) {
      await replace(path, bytes);
    },

    readBytes: (path) => missingOk(async () => new Uint8Array(await readFile(abs(path))), undefined),

    async lock(path) {
      const file = `${abs(path)}.lock`;
      await ensureDir(dirname(file));
      const started = Date.now();
      for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
        try {
          const fh = await open(file, 'wx', 0o600);
          await fh.writeFile(JSON.stringify({ pid: process.pid, at: Date.now() }));
          await fh.close();
          return () => rm(file, { force: true });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
        const holder = await readLock(file);
        if (holder && !holder.alive) {
          await rm(file, { force: true }); // left by a process that died holding it
          continue;
        }
        if (Date.now() - started > LOCK_WAIT_MS) {
          throw new StoreError(
            'io',
            `${abs(path)} is locked by process ${holder?.pid ?? '?'} (its lock file ${file}); try again, or remove ` +
              `the lock file if that process is gone`,
          );
        }
        await sleep(wait);
      }
    },

    async openLog(path) {
      const file = abs(path);
      await ensureDir(dirname(file));
      // With O_DSYNC, each append's write is its sync (one trip to the pool instead of two).
      const fh = await open(file, SYNCED_APPEND ?? 'a', 0o600);
      // The folder is synced once per open: the log's name (new, or just renamed over the old
      // log) is then as durable as the appends that follow.
      try {
        await syncDir(dirname(file));
      } catch (e) {
        await fh.close();
        throw e;
      }
      return {
        async append(text) {
          // One synced write per call (a short write, rare on a regular file, takes more); without
          // O_DSYNC, one write and one data sync.
          let bytes = Buffer.from(text, 'utf8');
          while (bytes.length) {
            const { bytesWritten } = await fh.write(bytes);
            bytes = bytes.subarray(bytesWritten);
          }
          if (SYNCED_APPEND === undefined) await fh.datasync();
        },
        close: () => fh.close(),
      };
    },

    // In place: the page cache answers, and a recently used document's read costs no trip to the pool.
    stamp: async (path) => {
      const s = statSync(abs(path), { throwIfNoEntry: false });
      return s && stampOf(s);
    },

    remove: (path) => missingOk(async () => (await unlink(abs(path)), true), false),

    list: (dir) =>
      missingOk(
        async () =>
          (await readdir(abs(dir), { withFileTypes: true }))
            .filter((d) => d.isFile() && !d.name.startsWith('.'))
            .map((d) => d.name),
        [],
      ),

    folders: (dir) =>
      missingOk(
        async () =>
          (await readdir(abs(dir), { withFileTypes: true }))
            .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
            .map((d) => d.name),
        [],
      ),

    async moveAside(path) {
      const to = `${abs(path)}.corrupt-${fileStamp(opts.now())}`;
      await rename(abs(path), to);
      return to;
    },

    async copyAside(path) {
      const to = `${abs(path)}.corrupt-${fileStamp(opts.now())}`;
      await copyFile(abs(path), to);
      return to;
    },

    describe: (path) => abs(path),
  };
}

/** How long a locked file is waited for before the call fails. */
const LOCK_WAIT_MS = 10_000;

/** Who holds a lock file, and whether that process still runs (undefined: the file just went away). */
async function readLock(file: string): Promise<{ pid: number; alive: boolean } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let pid = NaN;
  try {
    pid = (JSON.parse(text) as { pid: number }).pid;
  } catch {
    // Created but not yet filled: held while it is being written, abandoned if it stays that way.
    const age = await stat(file).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    return { pid: NaN, alive: age < 2000 };
  }
  if (!Number.isInteger(pid) || pid <= 0) return { pid, alive: false };
  try {
    process.kill(pid, 0);
    return { pid, alive: true };
  } catch (e) {
    return { pid, alive: (e as NodeJS.ErrnoException).code === 'EPERM' };
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Inode, size and modification time: any replacement or edit of the file changes one of them. */
function stampOf(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}
