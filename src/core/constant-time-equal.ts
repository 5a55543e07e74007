// Comparing tokens and secrets without leaking where they differ. Both sides are hashed first,
// so the compare always sees two 32-byte buffers: any length, any characters (timingSafeEqual
// itself throws when byte lengths differ, which non-ASCII input of the same length triggers).
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (v: string | Uint8Array) => createHash('sha256').update(v).digest();

/** True when `a` and `b` are the same, compared in constant time; never throws. */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
