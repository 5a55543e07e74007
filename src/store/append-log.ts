// A journal of JSON records, one per line, behind an in-memory state: what the delivery log needs
// from a file, apart from what its records mean. Every change is one appended line made durable
// (fdatasync) before its call resolves; changes that arrive while a sync is in flight share the
// next one (group commit), so a busy process pays one sync for many changes and a quiet one pays
// one small append per change instead of a file rewrite.
// The file is rewritten atomically (a snapshot of what is live) once it holds twice what is live,
// and after a failed append (a torn line is never followed by more). At load, a half-written last
// line (a crash while appending: the start of a record, no newline) was never acknowledged and is
// dropped; any other unreadable line, the last one included, is reported and a copy of the file
// set aside for an admin; every readable line is applied.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Documents } from './documents.ts';
import { StoreError } from './errors.ts';
import type { AppendLog } from './files.ts';
import { isTornJson } from './torn-line.ts';

/** What the journal needs from its owner: how to read a line and what is live. */
export interface JournalOptions<R> {
  /** The file, relative to the store's root. */
  path: string;
  /** What the file is, in log lines (`delivery log`). */
  what: string;
  logger: Logger;
  /** The record a line holds, or undefined when it holds none (unreadable). */
  parse(line: string): R | undefined;
  /** Applies a record read back at load. */
  apply(record: R): void;
  /** A record's line, without its newline (default: `JSON.stringify`); `parse` reads it back. */
  line?(record: R): string;
  /** The lines that rebuild what is live now (a compacted file). */
  snapshot(): string;
  /** How many records are live (the file is rewritten once it holds over twice that). */
  live(): number;
  /** The file is only read, never rewritten, repaired or appended to (another process owns it). */
  readOnly?: boolean;
  /**
   * An idle journal's write waits until the promise steps under way stop putting records in line
   * (GATHER_TICKS microtask turns without a new one), so the records a chain of in-memory steps puts
   * in line (a usage charge's two documents, then the history written behind them, about ten turns
   * later) share one sync instead of the first going alone. Not a setImmediate: that waits for the
   * rest of the event loop's round too (other callbacks, about 1 ms under load), with the disk idle.
   */
  gather?: boolean;
}

/** Microtask turns without a new record that end a gathering (the records it waits for come within ten or so). */
const GATHER_TICKS = 64;

/** Resolves once `count()` has not changed for GATHER_TICKS microtask turns. */
async function quietFor(count: () => number): Promise<void> {
  let seen = count();
  for (let still = 0; still < GATHER_TICKS; still++) {
    await null;
    if (count() !== seen) {
      seen = count();
      still = -1;
    }
  }
}

/** What a load found. */
export interface Replayed {
  /** The file did not end with a newline (a crash while appending): rewrite it before appending. */
  unterminated: boolean;
}

/** The journal's operations; the owner keeps the state and its meaning. */
export interface Journal<R> {
  /** Reads the file and applies every readable record; reports unreadable lines (unless read-only). */
  load(): Promise<Replayed>;
  /**
   * Appends `record` and resolves once it is durable; the change is already applied in memory (so calls are ordered as
   * made), and if the write fails `undo` restores memory and the call rejects.
   */
  commit(record: R, undo: () => void): Promise<void>;
  /** The next write replaces the file whole (after a repair, or to drop what is no longer live). */
  rewriteSoon(): void;
  /** Rewrites the file now if it is due (`rewriteSoon`), oversized, or `force`; appends wait for it. */
  compact(force?: boolean): Promise<void>;
  /** Waits for appends in flight and closes the file; later commits are refused. */
  close(): Promise<void>;
}

/** A journal at `opts.path` under `docs` (its Files and corruption reporting). */
export function createJournal<R>(docs: Pick<Documents, 'files' | 'corrupt'>, opts: JournalOptions<R>): Journal<R> {
  const { files, corrupt } = docs;
  const PATH = opts.path;
  let lines = 0;
  let log: AppendLog | undefined;
  let shut = false; // the file is closed: not even a call already under way may write

  // Group commit: lines waiting for the next sync, and who waits for it.
  let buffer: string[] = [];
  let waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;
  let rewriteDue = false;

  /** The file holds over twice what is live: time to rewrite it. */
  const oversized = (): boolean => lines > 2 * opts.live() + 64;

  async function rewrite(): Promise<void> {
    const text = opts.snapshot(); // before any await: exactly the changes made so far
    await log?.close();
    log = undefined;
    await files.write(PATH, text);
    lines = text ? text.split('\n').length - 1 : 0;
    rewriteDue = false; // the file is opened for appending at the next change
  }

  async function flush(): Promise<void> {
    if (opts.gather) await quietFor(() => waiters.length);
    while (waiters.length) {
      const text = buffer.join('');
      const batch = waiters;
      buffer = [];
      waiters = [];
      try {
        if (rewriteDue || oversized()) await rewrite();
        else {
          log ??= await files.openLog(PATH);
          await log.append(text);
          lines += batch.length;
        }
        for (const w of batch) w.resolve();
      } catch (e) {
        rewriteDue = true; // whatever reached the file, the next commit replaces it whole
        // What was put in line behind the failed records fails with them: a record is never durable
        // while one committed before it is not (a turn's history never outlives its usage charge).
        const behind = waiters;
        buffer = [];
        waiters = [];
        for (const w of [...batch, ...behind].reverse()) w.reject(e); // undone newest first
      }
    }
  }

  function kick(): void {
    if (flushing) return;
    // A commit made after the loop's last check and before this settles starts the next round.
    flushing = flush().finally(() => {
      flushing = undefined;
      if (waiters.length) kick();
    });
  }

  function commit(record: R, undo: () => void): Promise<void> {
    if (shut || opts.readOnly) {
      undo();
      return Promise.reject(
        new StoreError('closed', opts.readOnly ? 'the store is open read-only' : 'the store is closed'),
      );
    }
    const done = new Promise<void>((resolve, reject) => {
      waiters.push({
        resolve,
        reject: (e) => {
          undo();
          reject(
            e instanceof StoreError
              ? e
              : new StoreError('io', `store I/O failed on ${files.describe(PATH)}: ${errorMessage(e)}`, { cause: e }),
          );
        },
      });
    });
    buffer.push(`${opts.line ? opts.line(record) : JSON.stringify(record)}\n`);
    kick();
    return done;
  }

  async function load(): Promise<Replayed> {
    const text = (await files.read(PATH)) ?? '';
    const parts = text.split('\n');
    const last = parts.pop()!; // after the last newline: '' when the file ends whole
    // Only the start of a line cut short by a crash is a torn append (never acknowledged, so
    // dropped). A whole record that lost only its newline is kept; anything else there is damage.
    const torn = last !== '' && !opts.parse(last) && isTornJson(last);
    if (last !== '' && !torn) parts.push(last);
    if (torn)
      opts.logger.warn(
        { file: files.describe(PATH) },
        `store: dropped a half-written last line of the ${opts.what} (crash while appending)`,
      );
    const bad: number[] = [];
    for (const [i, line] of parts.entries()) {
      const record = opts.parse(line);
      if (record) opts.apply(record);
      else bad.push(i + 1);
    }
    lines = parts.length;
    // The owner of the file (not a read-only reader beside it) repairs what it found.
    if (bad.length && !opts.readOnly) {
      // Reported and kept for an admin; what could be read goes on (nothing readable is dropped).
      // A copy is set aside and the live file stays until the next rewrite replaces it whole:
      // a crash in between leaves the log as it was, not missing.
      await corrupt(
        PATH,
        `unreadable line${bad.length > 1 ? 's' : ''} ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}; ` +
          `the other ${parts.length - bad.length} kept`,
        { keepLive: true },
      );
      rewriteDue = true;
    }
    return { unterminated: last !== '' };
  }

  return {
    load,
    commit,
    rewriteSoon() {
      rewriteDue = true;
    },
    async compact(force = false) {
      // Taken in turn with the appends: a commit arriving meanwhile waits for the rewrite, then appends.
      while (flushing) await flushing;
      if (!(force || rewriteDue || oversized())) return;
      flushing = rewrite().finally(() => {
        flushing = undefined;
        if (waiters.length) kick();
      });
      await flushing;
    },
    async close() {
      while (flushing) await flushing;
      shut = true;
      await log?.close();
      log = undefined;
    },
  };
}
