// How filesystem failures reach a guest: `wasi:filesystem` error codes thrown as plain strings
// (the glue turns a thrown non-Error into the `err` case), Node errno codes mapped onto them,
// and the stream error that carries a code for `filesystem-error-code`.
import { IoError, type StreamError } from './io.ts';

/** `wasi:filesystem/types.error-code`. */
export type ErrorCode =
  | 'access'
  | 'would-block'
  | 'already'
  | 'bad-descriptor'
  | 'busy'
  | 'deadlock'
  | 'quota'
  | 'exist'
  | 'file-too-large'
  | 'illegal-byte-sequence'
  | 'in-progress'
  | 'interrupted'
  | 'invalid'
  | 'io'
  | 'is-directory'
  | 'loop'
  | 'too-many-links'
  | 'message-size'
  | 'name-too-long'
  | 'no-device'
  | 'no-entry'
  | 'no-lock'
  | 'insufficient-memory'
  | 'insufficient-space'
  | 'not-directory'
  | 'not-empty'
  | 'not-recoverable'
  | 'unsupported'
  | 'no-tty'
  | 'no-such-device'
  | 'overflow'
  | 'not-permitted'
  | 'pipe'
  | 'read-only'
  | 'invalid-seek'
  | 'text-file-busy'
  | 'cross-device';

const BY_ERRNO: Record<string, ErrorCode> = {
  EACCES: 'access',
  EAGAIN: 'would-block',
  EWOULDBLOCK: 'would-block',
  EALREADY: 'already',
  EBADF: 'bad-descriptor',
  EBUSY: 'busy',
  EDEADLK: 'deadlock',
  EDQUOT: 'quota',
  EEXIST: 'exist',
  EFBIG: 'file-too-large',
  EILSEQ: 'illegal-byte-sequence',
  EINPROGRESS: 'in-progress',
  EINTR: 'interrupted',
  EINVAL: 'invalid',
  EIO: 'io',
  EISDIR: 'is-directory',
  ELOOP: 'loop',
  EMLINK: 'too-many-links',
  EMSGSIZE: 'message-size',
  ENAMETOOLONG: 'name-too-long',
  ENODEV: 'no-device',
  ENOENT: 'no-entry',
  ENOLCK: 'no-lock',
  ENOMEM: 'insufficient-memory',
  EMFILE: 'insufficient-memory',
  ENFILE: 'insufficient-memory',
  ENOSPC: 'insufficient-space',
  ENOTDIR: 'not-directory',
  ENOTEMPTY: 'not-empty',
  ENOTRECOVERABLE: 'not-recoverable',
  ENOTSUP: 'unsupported',
  EOPNOTSUPP: 'unsupported',
  ENOTTY: 'no-tty',
  ENXIO: 'no-such-device',
  EOVERFLOW: 'overflow',
  EPERM: 'not-permitted',
  EPIPE: 'pipe',
  EROFS: 'read-only',
  ESPIPE: 'invalid-seek',
  ETXTBSY: 'text-file-busy',
  EXDEV: 'cross-device',
};

/** Node's out-of-range and invalid-argument errors are the guest's bad input, not a host bug. */
const INVALID_ARG = new Set(['ERR_OUT_OF_RANGE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_ARG_TYPE']);

/** The error code for a failure, or undefined when it is not a filesystem failure (a host bug). */
export function errorCodeOf(e: unknown): ErrorCode | undefined {
  if (typeof e === 'string') return e as ErrorCode;
  if (e instanceof Error && 'code' in e && typeof e.code === 'string') {
    if (INVALID_ARG.has(e.code)) return 'invalid';
    if (/^E[A-Z0-9]+$/.test(e.code)) return BY_ERRNO[e.code] ?? 'io';
  }
  return undefined;
}

/** Runs `f`, turning filesystem failures into the thrown error-code string; host bugs still trap. */
export function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    const code = errorCodeOf(e);
    if (code === undefined) throw e;
    throw code;
  }
}

/** A `wasi:io/error.error` that remembers the filesystem error code behind a stream failure. */
export class FsIoError extends IoError {
  constructor(readonly code: ErrorCode) {
    super(`filesystem error: ${code}`);
  }
}

/** Runs a stream operation, turning filesystem failures into `last-operation-failed`. */
export function guardStream<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    const code = errorCodeOf(e);
    if (code === undefined) throw e;
    throw { tag: 'last-operation-failed', val: new FsIoError(code) } satisfies StreamError;
  }
}
