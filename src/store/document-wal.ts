// The write-ahead journal of the documents only this process writes (conversations, usage): an
// update is one group-committed append holding the documents' new texts, durable when its call
// resolves; the document files are written later, in the background (a checkpoint), and the
// journal's records they cover dropped. A crash between the append and the file write loses
// nothing: the journal is replayed at open (a torn last line dropped, as in append-log.ts).
// Until a checkpoint, the newest text of a journaled document is here, not in its file: readers go
// through `get` (documents.ts does, and its `files` view lists and reads through it).
import type { Logger } from '../core/log.ts';
import { createJournal } from './append-log.ts';
import type { BulkWriter } from './bulk-writer.ts';
import type { Documents } from './documents.ts';
import { StoreError } from './errors.ts';
import type { Files } from './files.ts';

/** One record: each document's new text, or null for a document deleted. */
type WalRecord = { d: Record<string, string | null> };

/**
 * A record's line: `{"d":{path: document}}`, each document's JSON text written as it is, not as a
 * JSON string (which would escape every quote of it again: about 10 µs and a second copy of a
 * 3 KB history per turn). A text that is not an object or an array (none of the journaled
 * documents, whose schemas are objects) and the lines of earlier versions are JSON strings;
 * `parse` reads both.
 */
function lineOf(r: WalRecord): string {
  let out = '{"d":{';
  let first = true;
  for (const path in r.d) {
    const text = r.d[path]!;
    const raw = text !== null && (text.startsWith('{') || text.startsWith('['));
    out += `${first ? '' : ','}${JSON.stringify(path)}:${raw ? text : JSON.stringify(text)}`;
    first = false;
  }
  return `${out}}}`;
}

/** The journaled documents' newest texts, and the background writes of their files. */
export interface DocumentWal {
  /** Journaled paths start with one of these. */
  covers(path: string): boolean;
  /** The journal read back (once); every other call waits for it. */
  ready(): Promise<void>;
  /** The newest text of `path`: a string, null when deleted, undefined when not journaled (its file is newest). */
  get(path: string): string | null | undefined;
  /** Paths journaled directly in folder `dir`, each with its newest text (null: deleted). */
  under(dir: string): [name: string, text: string | null][];
  /**
   * Journals the new texts of several documents as one record; resolves once it is durable.
   * `queued` runs once the record is in line: a record committed after that is never durable before it.
   */
  commit(changes: Record<string, string | null>, queued?: () => void): Promise<void>;
  /** Writes the files of what is journaled and durable, then drops their records from the journal. */
  checkpoint(): Promise<void>;
  /** Checkpoints what is left (if this process journaled anything) and closes the journal. */
  close(): Promise<void>;
}

/**
 * How soon after a change its file is written (changes in between share the write). Each file is a
 * synced write of its own on the disk the turns' appends sync to: every document a conversation
 * changes again within this time is written once, not once per change. The journal holds what is
 * not yet written (replayed at open), so a longer delay costs a longer journal, not durability.
 */
export const CHECKPOINT_DELAY_MS = 5000;
/** Files a checkpoint writes side by side (on the main thread). */
const CHECKPOINT_PARALLEL = 16;
/**
 * From how many files a checkpoint hands its writes to the bulk writer's thread (bulk-writer.ts):
 * a busy gateway's checkpoint (thousands of documents) costs its thread one message instead of
 * five pool trips per file; a quiet one's few files are not worth a thread.
 */
export const BULK_MIN_FILES = 64;
/**
 * Most characters of document texts the journal holds unwritten to their files: past it (checkpoints
 * failing, such as a folder made read-only), changes are refused as retryable I/O errors until a
 * checkpoint succeeds, so memory and the journal stop growing and the writers wait (back-pressure).
 */
export const JOURNAL_MAX_CHARS = 64 * 1024 * 1024;

/** The journal at `path` of the documents under `prefixes`; `remember` is told each file written. */
export function createDocumentWal(
  docs: Pick<Documents, 'corrupt'> & { files: Files },
  opts: {
    path: string;
    prefixes: string[];
    logger: Logger;
    readOnly?: boolean;
    written?: (path: string, text: string | null, stamp: string | undefined) => void;
    /** Fault injection (tests): runs for each document of a change before its append. */
    beforeAppend?: (path: string) => void | Promise<void>;
    /** JOURNAL_MAX_CHARS unless set (tests). */
    maxChars?: number;
    /** CHECKPOINT_DELAY_MS unless set (tests). */
    checkpointDelayMs?: number;
    /** Writes large checkpoints off this thread (the disk store's); closed with the journal. */
    bulk?: BulkWriter;
    /** BULK_MIN_FILES unless set (tests). */
    bulkMinFiles?: number;
  },
): DocumentWal {
  const { files } = docs;
  type Entry = { text: string | null; seq: number; durable: boolean };
  const pending = new Map<string, Entry>();
  let held = 0; // characters of the texts in `pending`
  const size = (e: Entry | undefined): number => e?.text?.length ?? 0;
  const put = (path: string, e: Entry): void => {
    held += size(e) - size(pending.get(path));
    pending.set(path, e);
  };
  const drop = (path: string): void => {
    held -= size(pending.get(path));
    pending.delete(path);
  };
  const maxChars = opts.maxChars ?? JOURNAL_MAX_CHARS;
  let lastFailure: string | undefined; // why the last checkpoint failed, until one succeeds
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  // Only a process that journals changes writes files or rewrites the journal: one that only reads
  // (the CLI beside a running gateway) must not put back texts the gateway has since replaced.
  let wrote = false;
  const covers = (path: string): boolean => opts.prefixes.some((p) => path.startsWith(p));

  const journal = createJournal<WalRecord>(docs, {
    path: opts.path,
    what: 'document journal',
    logger: opts.logger,
    parse,
    apply: (r) => {
      for (const [path, text] of Object.entries(r.d)) {
        // Only a journaled document's path is taken from the file (never one outside the prefixes).
        if (!covers(path) || path.split('/').includes('..')) continue;
        put(path, { text, seq: ++seq, durable: true });
      }
    },
    line: lineOf,
    snapshot: () => [...pending].map(([p, e]) => `${lineOf({ d: { [p]: e.text } })}\n`).join(''),
    // Never rewritten on an append's path (a turn would wait for it): the checkpoint compacts it.
    live: () => Number.POSITIVE_INFINITY,
    gather: true, // a turn's charges and history, put in line one after another, share a sync
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
  const loaded = journal.load().then(({ unterminated }) => {
    if (unterminated && !opts.readOnly) journal.rewriteSoon();
  });
  loaded.catch(() => undefined); // reported to each caller that waits for it

  function schedule(): void {
    if (timer || closed || opts.readOnly) return;
    timer = setTimeout(() => {
      timer = undefined;
      void checkpoint().catch((e: unknown) => {
        opts.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'store: document checkpoint failed');
        schedule(); // the journal still holds everything: tried again later
      });
    }, opts.checkpointDelayMs ?? CHECKPOINT_DELAY_MS);
    timer.unref();
  }

  async function checkpointNow(): Promise<void> {
    try {
      await writeFiles();
    } catch (e) {
      lastFailure = e instanceof Error ? e.message : String(e);
      // The journal is kept to what is live (each document's newest text once): without this,
      // every change while checkpoints fail would stay in the file.
      await journal.compact(true).catch(() => undefined);
      throw e;
    }
    lastFailure = undefined;
  }

  async function writeFiles(): Promise<void> {
    const due = [...pending].filter(([, e]) => e.durable);
    if (!due.length) return;
    /** The file of `path` now holds `e`: its record can go (unless a newer change came meanwhile). */
    const wrote = (path: string, e: Entry, stamp: string | undefined): void => {
      // Dropped only if no newer change came meanwhile (that one waits for the next checkpoint).
      if (pending.get(path)?.seq !== e.seq) return;
      drop(path);
      opts.written?.(path, e.text, stamp);
    };
    if (opts.bulk && due.length >= (opts.bulkMinFiles ?? BULK_MIN_FILES)) {
      const results = await opts.bulk.write(due.map(([path, e]) => ({ path, text: e.text })));
      let failed: string | undefined;
      for (const [i, [path, e]] of due.entries()) {
        const r = results[i]!;
        if (r.ok) wrote(path, e, r.stamp);
        else failed ??= `${files.describe(path)}: ${r.error}`;
      }
      // What was written leaves the journal (checkpointNow compacts it); what failed stays for the next checkpoint.
      if (failed !== undefined) throw new StoreError('io', `checkpoint write failed on ${failed}`);
    } else {
      for (let i = 0; i < due.length; i += CHECKPOINT_PARALLEL)
        await Promise.all(
          due.slice(i, i + CHECKPOINT_PARALLEL).map(async ([path, e]) => {
            const stamp = e.text === null ? (await files.remove(path), undefined) : await files.write(path, e.text);
            wrote(path, e, stamp);
          }),
        );
    }
    await journal.compact(true);
  }

  function checkpoint(): Promise<void> {
    const next = (running ?? Promise.resolve()).then(checkpointNow);
    // One at a time; the next waits for this one whatever its outcome (told to its own caller).
    const settled: Promise<void> = next.then(
      () => undefined,
      () => undefined,
    );
    running = settled;
    void settled.then(() => {
      if (running === settled) running = undefined;
    });
    return next;
  }

  return {
    covers,
    ready: () => loaded,
    get: (path) => pending.get(path)?.text,
    under(dir) {
      const out: [string, string | null][] = [];
      const prefix = `${dir}/`;
      for (const [path, e] of pending)
        if (path.startsWith(prefix) && !path.slice(prefix.length).includes('/'))
          out.push([path.slice(prefix.length), e.text]);
      return out;
    },
    async commit(changes, queued) {
      await loaded;
      if (held > maxChars) {
        const why = `the document journal holds ${held} characters not yet written to their files (cap ${maxChars})`;
        throw new StoreError('io', `${why}; last checkpoint failure: ${lastFailure ?? 'none yet'}; change refused`);
      }
      wrote = true;
      if (opts.beforeAppend) await Promise.all(Object.keys(changes).map((p) => opts.beforeAppend!(p)));
      const mine = ++seq;
      const before = Object.keys(changes).map((p) => [p, pending.get(p)] as const);
      for (const [path, text] of Object.entries(changes)) put(path, { text, seq: mine, durable: false });
      // The journal takes records in call order and syncs them in that order (append-log.ts).
      const appended = journal.commit({ d: changes }, () => {
        for (const [path, prev] of before) {
          if (pending.get(path)?.seq !== mine) continue;
          if (prev) put(path, prev);
          else drop(path);
        }
      });
      queued?.();
      await appended;
      for (const path of Object.keys(changes)) {
        const e = pending.get(path);
        if (e?.seq === mine) e.durable = true;
      }
      schedule();
    },
    checkpoint,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      try {
        await loaded;
        if (wrote && !opts.readOnly) await checkpoint();
      } catch (e) {
        // Nothing is lost: the journal keeps what was not written and the next open replays it.
        opts.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'store: document checkpoint failed');
      } finally {
        await opts.bulk?.close();
        await journal.close();
      }
    },
  };
}

/** A line of the journal, or undefined when it holds no record. */
function parse(line: string): WalRecord | undefined {
  try {
    const r = JSON.parse(line) as unknown;
    if (!r || typeof r !== 'object' || !('d' in r)) return undefined;
    const d = (r as { d: unknown }).d;
    if (!d || typeof d !== 'object' || Array.isArray(d)) return undefined;
    const texts: Record<string, string | null> = Object.create(null); // a path is data, never __proto__'s setter
    for (const [path, v] of Object.entries(d)) {
      if (v === null || typeof v === 'string') texts[path] = v;
      // A document written as it is (lineOf).
      else if (typeof v === 'object') texts[path] = JSON.stringify(v);
      else return undefined;
    }
    return { d: texts };
  } catch {
    return undefined;
  }
}
