// wasi:io (error, poll, streams) for guests. Streams are thin wrappers over a byte source or
// sink supplied by whichever interface created them (stdio, files, HTTP bodies); every call
// here is synchronous because the guest is.
import { errorMessage } from '../../core/errors.ts';
import { GuestAbort } from './context.ts';

/** A stream error value as the guest sees it (`stream-error` variant). */
export type StreamError = { tag: 'closed' } | { tag: 'last-operation-failed'; val: IoError };

/** `wasi:io/error.error`: an opaque error with a debug string. */
export class IoError {
  constructor(private readonly message: string) {}
  toDebugString(): string {
    return this.message;
  }
}

/** `wasi:io/poll.pollable`. */
export class Pollable {
  constructor(
    private readonly isReady: () => boolean = () => true,
    private readonly waitFor: () => void = () => {},
  ) {}
  ready(): boolean {
    return this.isReady();
  }
  block(): void {
    if (!this.isReady()) this.waitFor();
  }
}

/** `wasi:io/poll.poll`: blocks until at least one is ready; returns the ready indexes. */
export function poll(pollables: Pollable[]): Uint32Array {
  if (pollables.length === 0) throw new Error('poll: empty list');
  for (;;) {
    const ready: number[] = [];
    pollables.forEach((p, i) => {
      if (p.ready()) ready.push(i);
    });
    if (ready.length > 0) return Uint32Array.from(ready);
    // Nothing ready: block on the first; each block call returns on readiness or its timeout.
    pollables[0]!.block();
  }
}

/** Where an input stream's bytes come from. */
export interface ByteSource {
  /** Up to `max` bytes; an empty array when none are available yet; null at end of stream. */
  read(max: number): Uint8Array | null;
  /** Whether a read would return without blocking. Default: always. */
  ready?(): boolean;
  /** Waits until ready (or a bounded time passes). */
  wait?(): void;
  close?(): void;
}

/** Where an output stream's bytes go. */
export interface ByteSink {
  write(bytes: Uint8Array): void;
  /** How many bytes may be written now. */
  capacity?(): number;
  close?(): void;
}

const failed = (message: string): StreamError => ({ tag: 'last-operation-failed', val: new IoError(message) });

/** Turns a host exception into the stream error the guest expects; aborts pass through. */
function asStreamError(e: unknown): unknown {
  if (e && typeof e === 'object' && 'tag' in e) return e;
  if (e instanceof GuestAbort) return e;
  return failed(errorMessage(e));
}

/** `wasi:io/streams.input-stream`. */
export class InputStream {
  private closed = false;
  constructor(private readonly source: ByteSource) {}

  read(len: bigint): Uint8Array {
    if (this.closed) throw { tag: 'closed' } satisfies StreamError;
    let chunk: Uint8Array | null;
    try {
      chunk = this.source.read(Number(len > 1_048_576n ? 1_048_576n : len));
    } catch (e) {
      throw asStreamError(e);
    }
    if (chunk === null) throw { tag: 'closed' } satisfies StreamError;
    return chunk;
  }

  blockingRead(len: bigint): Uint8Array {
    for (;;) {
      const chunk = this.read(len);
      if (chunk.length > 0 || len === 0n) return chunk;
      if (this.source.wait) this.source.wait();
      else return chunk;
    }
  }

  skip(len: bigint): bigint {
    return BigInt(this.read(len).length);
  }

  blockingSkip(len: bigint): bigint {
    return BigInt(this.blockingRead(len).length);
  }

  subscribe(): Pollable {
    return new Pollable(
      () => this.closed || (this.source.ready?.() ?? true),
      () => this.source.wait?.(),
    );
  }

  [Symbol.dispose](): void {
    if (this.closed) return;
    this.closed = true;
    this.source.close?.();
  }
}

const DEFAULT_WRITE_BUDGET = 1_048_576n;

/** `wasi:io/streams.output-stream`. */
export class OutputStream {
  private closed = false;
  constructor(private readonly sink: ByteSink) {}

  checkWrite(): bigint {
    if (this.closed) throw { tag: 'closed' } satisfies StreamError;
    const cap = this.sink.capacity?.();
    return cap === undefined ? DEFAULT_WRITE_BUDGET : BigInt(cap);
  }

  write(contents: Uint8Array): void {
    if (this.closed) throw { tag: 'closed' } satisfies StreamError;
    try {
      this.sink.write(contents);
    } catch (e) {
      throw asStreamError(e);
    }
  }

  blockingWriteAndFlush(contents: Uint8Array): void {
    this.write(contents);
  }

  flush(): void {
    if (this.closed) throw { tag: 'closed' } satisfies StreamError;
  }

  blockingFlush(): void {
    this.flush();
  }

  writeZeroes(len: bigint): void {
    this.write(new Uint8Array(Number(len)));
  }

  blockingWriteZeroesAndFlush(len: bigint): void {
    this.writeZeroes(len);
  }

  splice(src: InputStream, len: bigint): bigint {
    const chunk = src.read(len);
    this.write(chunk);
    return BigInt(chunk.length);
  }

  blockingSplice(src: InputStream, len: bigint): bigint {
    const chunk = src.blockingRead(len);
    this.write(chunk);
    return BigInt(chunk.length);
  }

  subscribe(): Pollable {
    return new Pollable();
  }

  [Symbol.dispose](): void {
    if (this.closed) return;
    this.closed = true;
    this.sink.close?.();
  }
}

/** The `wasi:io/*` import objects. */
export function ioImports(): Record<string, Record<string, unknown>> {
  return {
    'wasi:io/error': { Error: IoError },
    'wasi:io/poll': { Pollable, poll },
    'wasi:io/streams': { InputStream, OutputStream },
  };
}
