// The copies of the files a reply sends, kept under `outbox-files/` beside the delivery log: the
// workspace file may change or vanish before it is sent, so its bytes are copied before the entry's
// line is written, and removed once the entry is finished or failed. A crash between those steps
// leaves copies no pending entry names; they are swept at the next load.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { StoreError } from './errors.ts';
import type { Files } from './files.ts';
import { encodeName } from './names.ts';
import type { StoredOutbox } from './schemas.ts';
import type { OutboxEntry } from './types.ts';

/** Where the copies of outbound files wait until their entry is done. */
const FILES_DIR = 'outbox-files';

/** A file of an entry as the log names it (`blob`: where its copy is). */
export type StoredFile = NonNullable<StoredOutbox['files']>[number];

/** The copies of one store's outbound files. */
export interface OutboxCopies {
  /** Writes the copies of `entry`'s files (durable when it resolves) and returns them as the log names them. */
  write(entry: OutboxEntry): Promise<StoredFile[]>;
  /** The bytes of one copy (a retryable StoreError naming the file if it cannot be read). */
  read(file: StoredFile): Promise<Uint8Array | undefined>;
  /** Removes an ended entry's copies; one left behind (a failing disk) goes at the next load. */
  drop(entry: StoredOutbox | undefined): Promise<void>;
  /**
   * Removes copies no pending entry of `outbox` names (left by a crash before their entry was written or
   * after it ended).
   */
  sweep(outbox: Iterable<StoredOutbox>): Promise<void>;
}

/** The outbox file copies over `files`. */
export function createOutboxCopies(files: Files, logger: Logger): OutboxCopies {
  /** Runs a file copy's I/O; a failure is a retryable StoreError naming the file. */
  async function io<T>(path: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw new StoreError('io', `store I/O failed on ${files.describe(path)}: ${errorMessage(e)}`, { cause: e });
    }
  }

  return {
    async write(entry) {
      const stem = encodeName(entry.id);
      const stemmed = (entry.files ?? []).map((f, i) => {
        if (!f.bytes)
          throw new StoreError('invalid', `outbox entry ${JSON.stringify(entry.id)}: file ${i} has no bytes`);
        return {
          name: f.name,
          mimeType: f.mimeType,
          ...(f.caption !== undefined ? { caption: f.caption } : {}),
          size: f.bytes.byteLength,
          blob: `${FILES_DIR}/${stem}.${i}`,
          bytes: f.bytes,
        };
      });
      for (const f of stemmed) await io(f.blob, () => files.writeBytes(f.blob, f.bytes));
      return stemmed.map(({ bytes: _bytes, ...f }) => f);
    },
    read: (f) => io(f.blob, () => files.readBytes(f.blob)),
    async drop(entry) {
      for (const f of entry?.files ?? []) {
        await files
          .remove(f.blob)
          .catch((e: unknown) =>
            logger.warn({ file: files.describe(f.blob), err: errorMessage(e) }, 'store: an outbox file copy stayed'),
          );
      }
    },
    async sweep(outbox) {
      const live = new Set<string>();
      for (const e of outbox) if (e.state === 'pending') for (const f of e.files ?? []) live.add(f.blob);
      for (const name of await files.list(FILES_DIR)) {
        const path = `${FILES_DIR}/${name}`;
        if (!live.has(path)) await files.remove(path);
      }
    },
  };
}
