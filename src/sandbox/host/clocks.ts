// wasi:clocks and wasi:random for guests. Clocks are real (tools need timestamps); a
// monotonic subscription blocks the guest's thread with Atomics.wait, which only pauses
// its own worker, and the call's wall-clock timeout still applies.
import { randomBytes, randomFillSync } from 'node:crypto';
import { Pollable } from './io.ts';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepUntil(deadlineNs: bigint): void {
  for (;;) {
    const left = deadlineNs - process.hrtime.bigint();
    if (left <= 0n) return;
    Atomics.wait(sleeper, 0, 0, Math.max(1, Number(left / 1_000_000n)));
  }
}

const MAX_RANDOM_BYTES = 16 * 1024 * 1024;

/** Random requests are bounded so a guest cannot make the host allocate without limit. */
function boundedLength(len: bigint): number {
  if (len > BigInt(MAX_RANDOM_BYTES)) throw new Error(`random: ${len} bytes requested, at most ${MAX_RANDOM_BYTES}`);
  return Number(len);
}

function deadlinePollable(deadlineNs: bigint): Pollable {
  return new Pollable(
    () => process.hrtime.bigint() >= deadlineNs,
    () => sleepUntil(deadlineNs),
  );
}

/** The `wasi:clocks/*` and `wasi:random/*` import objects. */
export function clockAndRandomImports(): Record<string, Record<string, unknown>> {
  return {
    'wasi:clocks/monotonic-clock': {
      now: () => process.hrtime.bigint(),
      resolution: () => 1n,
      subscribeInstant: (when: bigint) => deadlinePollable(when),
      subscribeDuration: (d: bigint) => deadlinePollable(process.hrtime.bigint() + d),
    },
    'wasi:clocks/wall-clock': {
      now: () => {
        const ms = Date.now();
        return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1_000_000 };
      },
      resolution: () => ({ seconds: 0n, nanoseconds: 1_000_000 }),
    },
    'wasi:random/random': {
      getRandomBytes: (len: bigint) => new Uint8Array(randomBytes(boundedLength(len))),
      getRandomU64: () => randomBytes(8).readBigUInt64LE(),
    },
    'wasi:random/insecure': {
      getInsecureRandomBytes: (len: bigint) => randomFillSync(new Uint8Array(boundedLength(len))),
      getInsecureRandomU64: () => randomBytes(8).readBigUInt64LE(),
    },
    'wasi:random/insecure-seed': {
      insecureSeed: () => {
        const b = randomBytes(16);
        return [b.readBigUInt64LE(0), b.readBigUInt64LE(8)];
      },
    },
  };
}
