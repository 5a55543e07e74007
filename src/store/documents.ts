// JSON documents over Files, through lowdb: each read and update of a path runs under that
// path's lock, validates the shape, and moves a corrupt file aside (reported, never reset).
import { Low, type Adapter } from 'lowdb';
import type { z } from 'zod';
import type { Logger } from '../log.ts';
import { StoreCorruptError, StoreError } from './errors.ts';
import type { Files } from './files.ts';
import { createKeyedLock } from './keyed-lock.ts';
import type { CorruptReport } from './types.ts';

/** A document's location and the shape its JSON must have. */
export interface DocSpec {
  path: string;
  schema: z.ZodTypeAny;
  /** Extra check on valid-shaped data; returns a reason if it is wrong. */
  check?: (data: unknown) => string | undefined;
}

/** Returned by an update function to leave the document as it is (no write). */
export const UNCHANGED: unique symbol = Symbol('unchanged');

/** Validated, serialized access to JSON documents. */
export interface Documents {
  readonly files: Files;
  /** The document, or undefined if absent. Throws StoreCorruptError (after moving it aside). */
  read<T>(spec: DocSpec): Promise<T | undefined>;
  /** Read-modify-write under the path's lock; `fn` returning undefined deletes the document. */
  update<T>(spec: DocSpec, fn: (current: T | undefined) => T | undefined | typeof UNCHANGED): Promise<T | undefined>;
  /** Runs `fn` under the lock of `path` (for non-JSON files such as logs). */
  locked<R>(path: string, fn: () => Promise<R>): Promise<R>;
  /** Moves a bad file aside, logs and reports it, and returns the error to throw. */
  corrupt(path: string, reason: string): Promise<StoreCorruptError>;
  /** Waits for work in flight; later calls throw StoreError `closed`. */
  close(): Promise<void>;
}

/** Documents over `files`. */
export function createDocuments(files: Files, opts: { logger: Logger; onCorrupt?: (r: CorruptReport) => void }): Documents {
  const lock = createKeyedLock();
  let closed = false;

  async function corrupt(path: string, reason: string): Promise<StoreCorruptError> {
    const file = files.describe(path);
    const movedTo = await files.moveAside(path);
    opts.logger.error({ file, movedTo, reason }, 'store: corrupt file moved aside');
    opts.onCorrupt?.({ file, movedTo, reason });
    return new StoreCorruptError(file, movedTo, reason);
  }

  // lowdb's adapter contract, with validation on read and atomic writes underneath.
  function adapter<T>(spec: DocSpec): Adapter<T | null> {
    return {
      async read() {
        const text = await files.read(spec.path);
        if (text === undefined) return null;
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch (e) {
          throw await corrupt(spec.path, `invalid JSON: ${(e as Error).message}`);
        }
        const parsed = spec.schema.safeParse(data);
        const reason = parsed.success ? spec.check?.(data) : describeIssue(parsed.error);
        if (reason !== undefined) throw await corrupt(spec.path, `wrong shape: ${reason}`);
        return data as T;
      },
      write: (data) => files.write(spec.path, JSON.stringify(data)),
    };
  }

  function locked<R>(path: string, fn: () => Promise<R>): Promise<R> {
    if (closed) return Promise.reject(new StoreError('closed', 'the store is closed'));
    return lock.run(path, async () => {
      try {
        return await fn();
      } catch (e) {
        if (e instanceof StoreError || !isSystemError(e)) throw e;
        throw new StoreError('io', `store I/O failed on ${files.describe(path)}: ${(e as Error).message}`, { cause: e });
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
    update: <T>(spec: DocSpec, fn: (current: T | undefined) => T | undefined | typeof UNCHANGED) =>
      locked(spec.path, async () => {
        const db = new Low<T | null>(adapter<T>(spec), null);
        await db.read();
        const before = db.data ?? undefined;
        const next = fn(before);
        if (next === UNCHANGED) return before;
        if (next === undefined) {
          if (before !== undefined) await files.remove(spec.path);
          return undefined;
        }
        // Never write what a later read would call corrupt.
        const parsed = spec.schema.safeParse(next);
        const reason = parsed.success ? spec.check?.(next) : describeIssue(parsed.error);
        if (reason !== undefined) throw new StoreError('invalid', `refused to write ${files.describe(spec.path)}: ${reason}`);
        db.data = next;
        await db.write();
        return next;
      }),
    async close() {
      closed = true;
      await lock.idle();
    },
  };
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

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  return `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`;
}

function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}
