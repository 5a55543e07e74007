// The web chat's files on disk: uploads from the page (kept until the host fetches them through
// fetchAttachment) and files the bot sends (kept for the download link). One folder per session
// under the adapter's files dir, so a file is only ever found by the session that owns it; names
// are random ids, never the user's file name, and metadata sits beside the bytes.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanFileName } from '../../clean-file-name.ts';

/** What is kept about one file besides its bytes. */
export interface WebFileMeta {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  /** `upload`: from the page; `sent`: from the bot. */
  origin: 'upload' | 'sent';
}

/** File ids the adapter makes: 24 hex digits. */
export const FILE_ID = /^[0-9a-f]{24}$/;

/** The files of every web chat session, under `dir`. */
export interface WebFiles {
  save(session: string, bytes: Uint8Array, meta: Omit<WebFileMeta, 'id' | 'size'>): Promise<WebFileMeta>;
  /** The metadata of a file of `session`, or undefined (no such file, or another session's). */
  meta(session: string, id: string): Promise<WebFileMeta | undefined>;
  read(session: string, id: string): Promise<Uint8Array>;
}

/** Creates the file store; folders are made on first write. */
export function createWebFiles(dir: string): WebFiles {
  const folder = (session: string) => join(dir, session);
  return {
    async save(session, bytes, m) {
      const id = randomBytes(12).toString('hex');
      const meta: WebFileMeta = {
        id,
        name: cleanFileName(m.name),
        mimeType: m.mimeType,
        size: bytes.length,
        origin: m.origin,
      };
      await mkdir(folder(session), { recursive: true });
      // Bytes first, then the metadata (renamed into place): a file without metadata is never offered.
      await writeFile(join(folder(session), `${id}.bin`), bytes);
      const tmp = join(folder(session), `${id}.json.tmp`);
      await writeFile(tmp, JSON.stringify(meta));
      await rename(tmp, join(folder(session), `${id}.json`));
      return meta;
    },
    async meta(session, id) {
      if (!FILE_ID.test(id)) return undefined;
      try {
        const meta = JSON.parse(await readFile(join(folder(session), `${id}.json`), 'utf8')) as WebFileMeta;
        const s = await stat(join(folder(session), `${id}.bin`));
        return s.isFile() ? { ...meta, size: s.size } : undefined;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async read(session, id) {
      if (!FILE_ID.test(id)) throw new Error(`bad web file id ${JSON.stringify(id)}`);
      return new Uint8Array(await readFile(join(folder(session), `${id}.bin`)));
    },
  };
}
