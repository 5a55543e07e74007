// Files on disk. A write goes to a unique temp file in the same folder, is fsynced, then
// renamed over the target, so a crash at any point leaves the old or the new file whole.
import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileStamp, type Files } from './files.ts';

let tempSeq = 0;

/** Files under `root`; `beforeCommit` runs between the durable temp write and the rename. */
export function createDiskFiles(
  root: string,
  opts: { now: () => number; beforeCommit?: (path: string) => void | Promise<void> },
): Files {
  const made = new Set<string>();
  const abs = (path: string): string => join(root, ...path.split('/'));

  async function ensureDir(dir: string): Promise<void> {
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true });
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

  return {
    read: (path) => missingOk(() => readFile(abs(path), 'utf8'), undefined),

    async write(path, text) {
      const file = abs(path);
      const dir = dirname(file);
      await ensureDir(dir);
      const tmp = join(dir, `.${file.slice(dir.length + 1)}.${process.pid}.${++tempSeq}.tmp`);
      try {
        const fh = await open(tmp, 'w');
        try {
          await fh.writeFile(text, 'utf8');
          await fh.sync();
        } finally {
          await fh.close();
        }
        await opts.beforeCommit?.(path);
        await rename(tmp, file);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },

    async append(path, text) {
      const file = abs(path);
      await ensureDir(dirname(file));
      const fh = await open(file, 'a');
      try {
        await fh.appendFile(text, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
    },

    remove: (path) => missingOk(async () => (await unlink(abs(path)), true), false),

    list: (dir) =>
      missingOk(async () => (await readdir(abs(dir), { withFileTypes: true })).filter((d) => d.isFile() && !d.name.startsWith('.')).map((d) => d.name), []),

    async moveAside(path) {
      const to = `${abs(path)}.corrupt-${fileStamp(opts.now())}`;
      await rename(abs(path), to);
      return to;
    },

    describe: (path) => abs(path),
  };
}

