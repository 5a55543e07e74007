// The byte layer under the store: named text files under one root, with atomic replacement.
// The disk implementation is the real one; the memory one lets tests run the same logic.

/** Text files addressed by `/`-separated paths relative to the store's root. */
export interface Files {
  /** The file's text, or undefined if it does not exist. */
  read(path: string): Promise<string | undefined>;
  /** Replaces the file atomically: readers see the old text or the new, never a mix. */
  write(path: string, text: string): Promise<void>;
  /** Appends to the file (creating it) and makes the append durable. */
  append(path: string, text: string): Promise<void>;
  /** Deletes the file; true if it existed. */
  remove(path: string): Promise<boolean>;
  /** File names directly in `dir` (no hidden files), unsorted; empty if `dir` does not exist. */
  list(dir: string): Promise<string[]>;
  /** Renames the file to `<path>.corrupt-<timestamp>` and returns the new path (absolute on disk). */
  moveAside(path: string): Promise<string>;
  /** Where `path` is, for messages (absolute on disk). */
  describe(path: string): string;
}

/** A timestamp usable in a file name (`2024-04-05T12-30-00-123Z`). */
export function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}
