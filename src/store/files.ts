// The byte layer under the store: named text files (and a few binary blobs) under one root,
// with atomic replacement.
// The disk implementation is the real one; the memory one lets tests run the same logic.

/** Text files addressed by `/`-separated paths relative to the store's root. */
export interface Files {
  /** The file's text, or undefined if it does not exist. */
  read(path: string): Promise<string | undefined>;
  /**
   * Replaces the file atomically: readers see the old text or the new, never a mix. Resolves with the new file's stamp.
   */
  write(path: string, text: string): Promise<string>;
  /** A string that changes whenever the file is replaced or edited (undefined if absent). */
  stamp(path: string): Promise<string | undefined>;
  /**
   * Takes `path`'s lock shared with other processes on the same data directory (a CLI beside the
   * running gateway); resolves with its release. A lock left by a dead process is broken.
   */
  lock(path: string): Promise<() => Promise<void>>;
  /** Replaces the file atomically with `bytes` (a binary blob: the outbox's copies of files to send). */
  writeBytes(path: string, bytes: Uint8Array): Promise<void>;
  /** The file's bytes, or undefined if it does not exist. */
  readBytes(path: string): Promise<Uint8Array | undefined>;
  /** Opens the file for appending (creating it); see AppendLog. Reopen after `write` replaces it. */
  openLog(path: string): Promise<AppendLog>;
  /** Deletes the file; true if it existed. */
  remove(path: string): Promise<boolean>;
  /** File names directly in `dir` (no hidden files), unsorted; empty if `dir` does not exist. */
  list(dir: string): Promise<string[]>;
  /** Folder names directly in `dir` (no hidden ones), unsorted; empty if `dir` does not exist. */
  folders(dir: string): Promise<string[]>;
  /** Renames the file to `<path>.corrupt-<timestamp>` and returns the new path (absolute on disk). */
  moveAside(path: string): Promise<string>;
  /**
   * Copies the file to `<path>.corrupt-<timestamp>`, leaving it in place; returns the copy's path (absolute on disk).
   */
  copyAside(path: string): Promise<string>;
  /** Where `path` is, for messages (absolute on disk). */
  describe(path: string): string;
}

/** A file kept open for appending: each `append` is durable (fdatasync) when it resolves. */
export interface AppendLog {
  append(text: string): Promise<void>;
  close(): Promise<void>;
}

/** A timestamp usable in a file name (`2024-04-05T12-30-00-123Z`). */
export function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}
