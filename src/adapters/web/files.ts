// The web chat's files on disk: uploads from the page (kept until the host fetches them through
// fetchAttachment) and files the bot sends (kept for the download link). One folder per session
// under the adapter's files dir, so a file is only ever found by the session that owns it; names
// are random ids, never the user's file name, and metadata sits beside the bytes.
// Nothing here grows without bound: uploads never sent with a message expire (a day by default),
// every other file after its retention (30 days), and each browser's uploads share one quota.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanFileName } from '../../core/clean-file-name.ts';
import { BoxbotError } from '../../core/errors.ts';
import { createKeyedLock } from '../../core/keyed-lock.ts';

/** What is kept about one file besides its bytes. */
export interface WebFileMeta {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  /** `upload`: from the page; `sent`: from the bot. */
  origin: 'upload' | 'sent';
  /** When it was saved (ISO 8601); absent in metadata written before it was kept (the file's time counts). */
  createdAt?: string;
  /** When an upload went out with a message (from then on it is kept like a sent file). */
  attachedAt?: string;
}

/** How long files are kept and how much one browser may upload. */
export interface WebFileRetention {
  /** An upload no message carried is deleted this long after it arrived (default 24 h). */
  unsentUploadMs: number;
  /** Every other file (sent by the bot, or an upload a message carried) is deleted after this (default 30 days). */
  keepMs: number;
  /** What one browser's uploads may hold on disk together (default 200 MB). */
  ownerQuotaBytes: number;
}

/** The defaults of WebFileRetention. */
export const DEFAULT_WEB_FILE_RETENTION: WebFileRetention = Object.freeze({
  unsentUploadMs: 24 * 3600_000,
  keepMs: 30 * 24 * 3600_000,
  ownerQuotaBytes: 200 * 1024 * 1024,
});

/** File ids the adapter makes: 24 hex digits. */
export const FILE_ID = /^[0-9a-f]{24}$/;

/**
 * The browser a session belongs to: session ids are `<owner>-<tab>` with a 16-character owner
 * (http-guard's sessionOwner); any other well-formed id is its own owner.
 */
export function ownerOfSession(session: string): string {
  return session.length > 17 && session[16] === '-' ? session.slice(0, 16) : session;
}

/** An upload refused because the browser's uploads would pass its quota. */
export class WebQuotaError extends BoxbotError<'quota'> {
  constructor(
    readonly usedBytes: number,
    readonly quotaBytes: number,
  ) {
    super('quota', `the uploads of this browser would pass its quota of ${quotaBytes} bytes (${usedBytes} in use)`);
  }
}

/** The files of every web chat session, under `dir`. */
export interface WebFiles {
  /** Saves a file; an upload that would pass its browser's quota is refused (WebQuotaError). */
  save(session: string, bytes: Uint8Array, meta: Omit<WebFileMeta, 'id' | 'size'>): Promise<WebFileMeta>;
  /** The metadata of a file of `session`, or undefined (no such file, or another session's). */
  meta(session: string, id: string): Promise<WebFileMeta | undefined>;
  read(session: string, id: string): Promise<Uint8Array>;
  /** Marks uploads as sent with a message: they are kept for the full retention from now on. */
  attach(session: string, ids: string[]): Promise<void>;
  /** Bytes the uploads of one browser (owner) hold. */
  usage(owner: string): Promise<number>;
  /** Deletes what is past its retention (and bytes a crash left without metadata); resolves with the count. */
  sweep(): Promise<number>;
}

const enoent = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** Creates the file store; folders are made on first write. `now` is the clock (tests). */
export function createWebFiles(
  dir: string,
  retention: Partial<WebFileRetention> = {},
  now: () => number = Date.now,
): WebFiles {
  const rules = { ...DEFAULT_WEB_FILE_RETENTION, ...retention };
  const folder = (session: string) => join(dir, session);
  // Uploads of one browser are checked against its quota and saved one at a time, so two at once
  // cannot both fit into the space that is left for one.
  const owners = createKeyedLock();

  async function readMeta(session: string, id: string): Promise<WebFileMeta | undefined> {
    try {
      return JSON.parse(await readFile(join(folder(session), `${id}.json`), 'utf8')) as WebFileMeta;
    } catch (e) {
      if (enoent(e) || e instanceof SyntaxError) return undefined;
      throw e;
    }
  }
  async function writeMeta(session: string, meta: WebFileMeta): Promise<void> {
    const tmp = join(folder(session), `${meta.id}.json.tmp`);
    await writeFile(tmp, JSON.stringify(meta));
    await rename(tmp, join(folder(session), `${meta.id}.json`));
  }
  async function list(path: string): Promise<string[]> {
    try {
      return await readdir(path);
    } catch (e) {
      if (enoent(e)) return [];
      throw e;
    }
  }
  /** The sessions folders of one browser. */
  const sessionsOf = async (owner: string) => (await list(dir)).filter((s) => ownerOfSession(s) === owner);

  async function usage(owner: string): Promise<number> {
    let used = 0;
    for (const session of await sessionsOf(owner))
      for (const name of await list(folder(session))) {
        if (!name.endsWith('.json')) continue;
        const meta = await readMeta(session, name.slice(0, -5));
        if (meta?.origin === 'upload') used += meta.size;
      }
    return used;
  }

  async function store(session: string, bytes: Uint8Array, m: Omit<WebFileMeta, 'id' | 'size'>) {
    const id = randomBytes(12).toString('hex');
    const meta: WebFileMeta = {
      id,
      name: cleanFileName(m.name),
      mimeType: m.mimeType,
      size: bytes.length,
      origin: m.origin,
      createdAt: new Date(now()).toISOString(),
    };
    await mkdir(folder(session), { recursive: true });
    // Bytes first, then the metadata (renamed into place): a file without metadata is never offered.
    await writeFile(join(folder(session), `${id}.bin`), bytes);
    await writeMeta(session, meta);
    return meta;
  }

  /** Whether a file (its metadata, if any, and its bytes' time in ms) has outlived its retention. */
  const expired = (meta: WebFileMeta | undefined, fileTime: number): boolean => {
    // Bytes a crash left without metadata were never offered: they go like an unsent upload.
    if (!meta || (meta.origin === 'upload' && !meta.attachedAt))
      return now() - (meta?.createdAt ? Date.parse(meta.createdAt) : fileTime) > rules.unsentUploadMs;
    const since = meta.attachedAt ?? meta.createdAt;
    return now() - (since ? Date.parse(since) : fileTime) > rules.keepMs;
  };

  return {
    async save(session, bytes, m) {
      if (m.origin !== 'upload') return store(session, bytes, m);
      const owner = ownerOfSession(session);
      return owners.run(owner, async () => {
        const used = await usage(owner);
        if (used + bytes.length > rules.ownerQuotaBytes) throw new WebQuotaError(used, rules.ownerQuotaBytes);
        return store(session, bytes, m);
      });
    },
    async meta(session, id) {
      if (!FILE_ID.test(id)) return undefined;
      const meta = await readMeta(session, id);
      if (!meta) return undefined;
      try {
        const s = await stat(join(folder(session), `${id}.bin`));
        return s.isFile() ? { ...meta, size: s.size } : undefined;
      } catch (e) {
        if (enoent(e)) return undefined;
        throw e;
      }
    },
    async read(session, id) {
      if (!FILE_ID.test(id)) throw new Error(`bad web file id ${JSON.stringify(id)}`);
      return new Uint8Array(await readFile(join(folder(session), `${id}.bin`)));
    },
    async attach(session, ids) {
      const at = new Date(now()).toISOString();
      for (const id of ids) {
        if (!FILE_ID.test(id)) continue;
        const meta = await readMeta(session, id);
        if (meta?.origin === 'upload' && !meta.attachedAt) await writeMeta(session, { ...meta, attachedAt: at });
      }
    },
    usage,
    async sweep() {
      let removed = 0;
      for (const session of await list(dir)) {
        const names = await list(folder(session));
        const ids = new Set(names.map((n) => n.replace(/\.(bin|json|json\.tmp)$/, '')));
        for (const id of ids) {
          const meta = FILE_ID.test(id) ? await readMeta(session, id) : undefined;
          let fileTime: number;
          try {
            const first = names.includes(`${id}.bin`) ? `${id}.bin` : names.find((n) => n.startsWith(id))!;
            fileTime = (await stat(join(folder(session), first))).mtimeMs;
          } catch (e) {
            if (enoent(e)) continue;
            throw e;
          }
          if (!expired(meta, fileTime)) continue;
          // Metadata first: a file without it is never offered, and the bytes go right after.
          for (const suffix of ['.json', '.json.tmp', '.bin'])
            await rm(join(folder(session), `${id}${suffix}`), { force: true });
          removed++;
        }
        await rmdir(folder(session)).catch(() => undefined); // only when empty
      }
      return removed;
    },
  };
}
