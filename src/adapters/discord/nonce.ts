// Discord's idempotency for sends: a message created with `nonce` and `enforce_nonce: true` is
// created once; the same nonce again within a few minutes returns the message already made. The
// nonce comes from the caller's idempotency key (an outbox entry and chunk), so a resend after a
// crash between the send and its receipt finds the first message instead of posting a second.
import { createHash } from 'node:crypto';

/** Discord's limit on a nonce's length. */
const MAX_NONCE = 25;

/** The nonce fields of a message create for `key` (none without a key). */
export function nonceFields(key: string | undefined): { nonce: string; enforce_nonce: true } | Record<never, never> {
  if (!key) return {};
  // 25 base64url characters of a hash: 150 bits, deterministic, within Discord's limit.
  const nonce = createHash('sha256').update(key).digest('base64url').slice(0, MAX_NONCE);
  return { nonce, enforce_nonce: true };
}
