// Slack request signing (HTTP Events mode): `X-Slack-Signature` = `v0=` + hex HMAC-SHA256 of
// `v0:<X-Slack-Request-Timestamp>:<raw body>` under the app's signing secret.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../constant-time-equal.ts';

/** How far a request's timestamp may be from now before it is refused as a replay (Slack's advice: 5 minutes). */
export const SIGNATURE_MAX_AGE_SECONDS = 300;

/** The outcome of a check; `reason` is safe to log (it never contains the secret or the body). */
export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** Computes the `X-Slack-Signature` value of a body sent at `timestamp` (seconds). */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  return 'v0=' + createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest('hex');
}

/** Verifies a request's signature and timestamp window with a constant-time compare. */
export function verifySlackSignature(opts: {
  signingSecret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  nowMs: number;
}): SignatureCheck {
  const { timestamp, signature } = opts;
  if (!timestamp || !signature) return { ok: false, reason: 'missing X-Slack-Request-Timestamp or X-Slack-Signature' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed X-Slack-Request-Timestamp' };
  if (Math.abs(opts.nowMs / 1000 - Number(timestamp)) > SIGNATURE_MAX_AGE_SECONDS) return { ok: false, reason: 'timestamp outside the 5-minute window' };
  if (!constantTimeEqual(signature, slackSignature(opts.signingSecret, timestamp, opts.rawBody))) return { ok: false, reason: 'signature mismatch' };
  return { ok: true };
}
