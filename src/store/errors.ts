// Errors the store raises: a bad key or record, a missing record, a closed store, a write whose lease
// fence no longer holds, and a corrupt file (moved aside, naming both paths). I/O failures are retryable.
import { BoxbotError } from '../core/errors.ts';

/** Why a store call failed. */
export type StoreErrorCode = 'bad-key' | 'invalid' | 'not-found' | 'closed' | 'corrupt' | 'fenced' | 'io';

/** A store call that could not be done. */
export class StoreError extends BoxbotError<StoreErrorCode> {
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, code === 'io');
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** A file that was not valid JSON or not the expected shape; it was moved to `movedTo`. */
export class StoreCorruptError extends StoreError {
  constructor(
    readonly file: string,
    readonly movedTo: string,
    readonly reason: string,
  ) {
    super('corrupt', `corrupt store file ${file} (${reason}); moved aside to ${movedTo}`);
  }
}
