// JSON documents over Files, through lowdb: each read and update of a path runs under that
// path's lock, validates the shape, and moves a corrupt file aside (reported, never reset).
// Updates of one document that arrive while its write is under way share the next write (group
// commit per file): each applies to what the one before it left, and each caller's promise settles
// when the write holding its change is durable (or failed). A user charged from many conversations
// at once, or a channel's document charged by its threads, pays one synced write per round.
import { type Adapter, Low } from 'lowdb';
import type { z } from 'zod';
import { errorMessage } from '../core/errors.ts';
import { createKeyedLock } from '../core/keyed-lock.ts';
import type { Logger } from '../core/log.ts';
import type { BulkWriter } from './bulk-writer.ts';
import { createDocumentWal } from './document-wal.ts';
import { StoreCorruptError, StoreError } from './errors.ts';
import type { Files } from './files.ts';
import type { CorruptReport } from './types.ts';

/** A document's location and the shape its JSON must have. */
export interface DocSpec {
  path: string;
  schema: z.ZodTypeAny;
  /**
   * A quick test that accepts only data `schema` accepts (quick-shapes.ts), for the documents
   * written on every turn; what it does not accept is checked by `schema`, which names the problem.
   */
  quick?: (data: unknown) => boolean;
  /** Extra check on valid-shaped data; returns a reason if it is wrong. */
  check?: (data: unknown) => string | undefined;
  /** Written by other processes too (the CLI beside the gateway): updates take the file's lock. */
  shared?: boolean;
}

/** Returned by an update function to leave the document as it is (no write). */
export const UNCHANGED: unique symbol = Symbol('unchanged');

/** Which documents are kept in memory, and how many of them (see createDocuments). */
export interface DocumentCache {
  prefixes: string[];
  max: number;
  maxChars: number;
}

/** How an update tells its caller that it is in line (Documents.update). */
export interface UpdateOptions {
  queued?: () => void;
}

/** Where the journaled documents' changes go first (document-wal.ts), and its test hooks. */
export interface DocumentJournal {
  path: string;
  prefixes: string[];
  /** Fault injection (tests): runs for each document of a change before its append. */
  beforeAppend?: (path: string) => void | Promise<void>;
  /** Most characters held unwritten to files (JOURNAL_MAX_CHARS unless set). */
  maxChars?: number;
  /** How soon after a change its file is written (CHECKPOINT_DELAY_MS unless set). */
  checkpointDelayMs?: number;
  /** Writes large checkpoints off the main thread (bulk-writer.ts); the journal closes it. */
  bulk?: BulkWriter;
  /** From how many files a checkpoint uses `bulk` (BULK_MIN_FILES unless set). */
  bulkMinFiles?: number;
}

/** An update waiting in a group (Documents.update), and its caller's promise. */
type Waiter = {
  fn: (c: unknown) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  queued?: (() => void) | undefined;
};

/** Validated, serialized access to JSON documents. */
export interface Documents {
  readonly files: Files;
  /** The document, or undefined if absent. Throws StoreCorruptError (after moving it aside). */
  read<T>(spec: DocSpec): Promise<T | undefined>;
  /**
   * Read-modify-write under the path's lock; `fn` returning undefined deletes the document.
   * `o.queued` runs once a journaled change is in the journal's line: a change committed after that
   * is never durable before it. It may not run at all (a document not journaled, nothing changed):
   * the update's settling then stands for it.
   */
  update<T>(
    spec: DocSpec,
    fn: (current: T | undefined) => T | undefined | typeof UNCHANGED,
    o?: UpdateOptions,
  ): Promise<T | undefined>;
  /** Runs `fn` under the lock of `path` (for non-JSON files such as logs). */
  locked<R>(path: string, fn: () => Promise<R>): Promise<R>;
  /**
   * Moves a bad file aside (or, with `keepLive`, copies it aside and leaves it for the caller to
   * replace), logs and reports it, and returns the error to throw.
   */
  corrupt(path: string, reason: string, o?: { keepLive?: boolean }): Promise<StoreCorruptError>;
  /** Waits for work in flight; later calls throw StoreError `closed`. */
  close(): Promise<void>;
}

/**
 * Documents over `files`. Paths under one of `cache.prefixes` keep their last text in memory with
 * the file's stamp (the most recently used, up to `cache.max` documents and `cache.maxChars`
 * characters), so reading a recently used document that nobody changed costs one stat instead
 * of a read and a shape check; a file changed behind the store's back is read and checked again.
 */
export function createDocuments(
  raw: Files,
  opts: {
    logger: Logger;
    onCorrupt?: (r: CorruptReport) => void;
    cache?: DocumentCache;
    /** The documents (by path prefix, never `shared` ones) written through a journal (document-wal.ts). */
    journal?: DocumentJournal;
    /** Another process owns the journal: it is read, never written or checkpointed. */
    readOnly?: boolean;
  },
): Documents {
  const lock = createKeyedLock();
  let closed = false;
  /** Per path, the group of updates waiting for its lock (the next write). */
  const groups = new Map<string, Waiter[]>();
  type Cached = { text: string; stamp: string };
  const cache = new Map<string, Cached>(); // insertion order = least recently used first
  let cachedChars = 0;
  const cacheable = (path: string): boolean => !!opts.cache?.prefixes.some((p) => path.startsWith(p));
  function forget(path: string): void {
    const old = cache.get(path);
    if (!old) return;
    cache.delete(path);
    cachedChars -= old.text.length;
  }
  function remember(path: string, entry: Cached | undefined): void {
    if (!cacheable(path)) return;
    forget(path);
    if (!entry || entry.text.length > opts.cache!.maxChars / 4) return; // a huge document is read each time
    cache.set(path, entry);
    cachedChars += entry.text.length;
    while (cache.size > opts.cache!.max || cachedChars > opts.cache!.maxChars) forget(cache.keys().next().value!);
  }
  /** The cached text if the file is still the one cached. */
  async function recall(path: string): Promise<string | undefined> {
    const entry = cache.get(path);
    if (!entry) return undefined;
    if ((await files.stamp(path)) !== entry.stamp) {
      forget(path);
      return undefined;
    }
    remember(path, entry);
    return entry.text;
  }

  const wal = opts.journal
    ? createDocumentWal(
        { files: raw, corrupt: (path, reason, o) => corrupt(path, reason, o) },
        {
          ...opts.journal,
          logger: opts.logger,
          ...(opts.readOnly ? { readOnly: true } : {}),
          // A file the checkpoint wrote is the newest text: cached with its stamp, as after a write.
          written: (path, text, stamp) => remember(path, text === null || !stamp ? undefined : { text, stamp }),
        },
      )
    : undefined;
  const journaled = (path: string): boolean => !!wal?.covers(path);
  // What the store's modules (and the delivery log) read through: a journaled document's newest text
  // and presence come from the journal until its file is written.
  const files: Files = !wal
    ? raw
    : {
        ...raw,
        async read(path) {
          if (!wal.covers(path)) return raw.read(path);
          await wal.ready();
          const text = wal.get(path);
          return text === undefined ? raw.read(path) : (text ?? undefined);
        },
        async list(dir) {
          if (!wal.covers(`${dir}/`)) return raw.list(dir);
          await wal.ready();
          const names = new Set(await raw.list(dir));
          for (const [name, text] of wal.under(dir))
            if (text === null) names.delete(name);
            else names.add(name);
          return [...names];
        },
      };

  async function corrupt(path: string, reason: string, o?: { keepLive?: boolean }): Promise<StoreCorruptError> {
    remember(path, undefined);
    const file = files.describe(path);
    const movedTo = o?.keepLive ? await files.copyAside(path) : await files.moveAside(path);
    opts.logger.error(
      { file, movedTo, reason },
      o?.keepLive ? 'store: corrupt file copied aside (what could be read is kept)' : 'store: corrupt file moved aside',
    );
    opts.onCorrupt?.({ file, movedTo, reason });
    return new StoreCorruptError(file, movedTo, reason);
  }

  // lowdb's adapter contract, with validation on read and atomic writes underneath.
  function adapter<T>(spec: DocSpec, queued?: () => void): Adapter<T | null> {
    return {
      async read() {
        if (journaled(spec.path)) {
          await wal!.ready();
          const text = wal!.get(spec.path);
          if (text === null) return null;
          if (text !== undefined) return JSON.parse(text) as T;
        }
        const cached = await recall(spec.path);
        if (cached !== undefined) return JSON.parse(cached) as T;
        const keep = cacheable(spec.path);
        const stamp = keep ? await files.stamp(spec.path) : undefined;
        // No stamp, no file (as of the stat): one call for an absent document, as without the cache.
        if (keep && stamp === undefined) return null;
        const text = await files.read(spec.path);
        if (text === undefined) return null;
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch (e) {
          throw await corrupt(spec.path, `invalid JSON: ${errorMessage(e)}`);
        }
        const reason = shapeIssue(spec, data);
        if (reason !== undefined) throw await corrupt(spec.path, `wrong shape: ${reason}`);
        // Stamped before the read: a change in between makes the next read miss, never go stale.
        if (stamp !== undefined) remember(spec.path, { text, stamp });
        return data as T;
      },
      async write(data) {
        const text = JSON.stringify(data);
        remember(spec.path, undefined); // a failed write leaves the disk as the truth
        if (journaled(spec.path)) {
          await wal!.commit({ [spec.path]: text }, queued); // the file is written by the next checkpoint
          return;
        }
        const stamp = await files.write(spec.path, text);
        remember(spec.path, { text, stamp });
      },
    };
  }

  /** A system error on `path` as StoreError `io`; any other error as it is. */
  function ioError(path: string, e: unknown): unknown {
    if (e instanceof StoreError || !isSystemError(e)) return e;
    return new StoreError('io', `store I/O failed on ${files.describe(path)}: ${errorMessage(e)}`, { cause: e });
  }

  function locked<R>(path: string, fn: () => Promise<R>): Promise<R> {
    if (closed) return Promise.reject(new StoreError('closed', 'the store is closed'));
    return lock.run(path, async () => {
      try {
        return await fn();
      } catch (e) {
        throw ioError(path, e);
      }
    });
  }

  return {
    files,
    locked,
    corrupt,
    read: <T>(spec: DocSpec) =>
      locked(spec.path, async () => {
        const db = new Low<T | null>(adapter<T>(spec), null);
        await db.read();
        return db.data ?? undefined;
      }),
    update: <T>(spec: DocSpec, fn: (current: T | undefined) => T | undefined | typeof UNCHANGED, o?: UpdateOptions) => {
      // A document other processes write too takes their lock per update: never grouped.
      if (!spec.shared) return grouped(spec, fn, o?.queued);
      return locked(spec.path, async () => {
        const release = await files.lock(spec.path);
        try {
          return await updateNow(spec, fn);
        } finally {
          await release();
        }
      });
    },
    async close() {
      closed = true;
      await lock.idle();
      await wal?.close(); // a clean stop leaves every document in its file and the journal empty
    },
  };

  /**
   * `update` of a document only this process writes: joins the group of updates waiting for the
   * path's lock, or starts one. The group takes the lock, applies its updates in arrival order to
   * one read of the document and writes the result once.
   */
  function grouped<T>(
    spec: DocSpec,
    fn: (current: T | undefined) => T | undefined | typeof UNCHANGED,
    queued: (() => void) | undefined,
  ) {
    return new Promise<T | undefined>((resolve, reject) => {
      const waiter: Waiter = { fn: fn as Waiter['fn'], resolve: resolve as Waiter['resolve'], reject, queued };
      if (closed) {
        reject(new StoreError('closed', 'the store is closed'));
        return;
      }
      const open = groups.get(spec.path);
      if (open) {
        open.push(waiter);
        return;
      }
      const group = [waiter];
      groups.set(spec.path, group);
      locked(spec.path, () => {
        groups.delete(spec.path); // what arrives from now on waits for the next write
        return applyGroup(spec, group);
      }).catch((e: unknown) => {
        for (const w of group) w.reject(e); // the store was closed: nothing ran
      });
    });
  }

  /** Applies `group`'s updates to the document and writes it once; settles each caller. */
  async function applyGroup(spec: DocSpec, group: Waiter[]): Promise<void> {
    const inLine = () => {
      for (const w of group) w.queued?.();
    };
    const db = new Low<unknown>(adapter<unknown>(spec, inLine), null);
    let first = 0;
    try {
      await db.read();
    } catch (e) {
      // As before grouping: the call that found the file corrupt is told; the file is aside, and
      // the later calls start from no document, as they would have read it after.
      group[0]!.reject(ioError(spec.path, e));
      if (!(e instanceof StoreCorruptError)) {
        for (const w of group.slice(1)) w.reject(ioError(spec.path, e));
        return;
      }
      db.data = null;
      first = 1;
    }
    const before: unknown = db.data ?? undefined;
    let current: unknown = before;
    let changed = false;
    const done: { w: Waiter; result: unknown }[] = [];
    for (const w of group.slice(first)) {
      try {
        const next = w.fn(current);
        if (next === UNCHANGED) {
          done.push({ w, result: current });
          continue;
        }
        if (next !== undefined) refuseInvalid(spec, next);
        current = next;
        changed = true;
        done.push({ w, result: next });
      } catch (e) {
        w.reject(e); // refused alone: the others apply to what the one before it left
      }
    }
    try {
      if (changed && current === undefined) {
        remember(spec.path, undefined);
        if (before !== undefined && journaled(spec.path)) await wal!.commit({ [spec.path]: null }, inLine);
        else if (before !== undefined) await files.remove(spec.path);
      } else if (changed) {
        db.data = current;
        await db.write();
      }
    } catch (e) {
      for (const { w } of done) w.reject(ioError(spec.path, e));
      return;
    }
    for (const { w, result } of done) w.resolve(result);
  }

  /** Throws StoreError `invalid` for data a later read would call corrupt. */
  function refuseInvalid(spec: DocSpec, next: unknown): void {
    const reason = shapeIssue(spec, next);
    if (reason !== undefined)
      throw new StoreError('invalid', `refused to write ${files.describe(spec.path)}: ${reason}`);
  }

  /** The read-modify-write of `update`, under the path's lock(s). */
  async function updateNow<T>(
    spec: DocSpec,
    fn: (current: T | undefined) => T | undefined | typeof UNCHANGED,
  ): Promise<T | undefined> {
    const db = new Low<T | null>(adapter<T>(spec), null);
    await db.read();
    const before = db.data ?? undefined;
    const next = fn(before);
    if (next === UNCHANGED) return before;
    if (next === undefined) {
      remember(spec.path, undefined);
      if (before !== undefined) await files.remove(spec.path);
      return undefined;
    }
    refuseInvalid(spec, next); // never write what a later read would call corrupt
    db.data = next;
    await db.write();
    return next;
  }
}

/** Lists the valid documents of a folder; corrupt ones are moved aside and reported, not fatal. */
export async function readFolder<T>(docs: Documents, dir: string, schema: DocSpec['schema']): Promise<T[]> {
  const names = (await docs.files.list(dir)).filter((n) => n.endsWith('.json'));
  const out: T[] = [];
  for (const name of names) {
    try {
      const doc = await docs.read<T>({ path: `${dir}/${name}`, schema });
      if (doc !== undefined) out.push(doc);
    } catch (e) {
      if (!(e instanceof StoreCorruptError)) throw e;
    }
  }
  return out;
}

/** What is wrong with `data` as the document of `spec` (its shape, then its extra check), or undefined. */
function shapeIssue(spec: DocSpec, data: unknown): string | undefined {
  if (!spec.quick?.(data)) {
    const parsed = spec.schema.safeParse(data);
    if (!parsed.success) return describeIssue(parsed.error);
  }
  return spec.check?.(data);
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`;
}

function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}
