// HTTP Events mode: the `POST /webhooks/slack` route. Verifies the signature over the raw body
// (401 and nothing delivered otherwise), answers url_verification, and acknowledges an event
// with 200 only once the sink accepted it, so a failure becomes one of Slack's redeliveries.
// Request signing is checked here too (slackSignature, verifySlackSignature).
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../constant-time-equal.ts';
import type { Logger } from '../../log.ts';
import type { AdapterRoute } from '../types.ts';
import type { DeliveryInfo } from './inbound.ts';

/** The default path of the Events API request URL on the gateway's server. */
export const DEFAULT_SLACK_EVENTS_PATH = '/webhooks/slack';

/** The route Slack's Events API posts to. */
export function slackEventsRoute(opts: {
  path?: string;
  signingSecret: string;
  logger: Logger;
  /** Clock in ms (tests move it to check the timestamp window). */
  now?: () => number;
  isOpen: () => boolean;
  onEvent: (body: unknown, info: DeliveryInfo) => Promise<boolean>;
}): AdapterRoute {
  const now = opts.now ?? Date.now;
  return {
    method: 'POST',
    path: opts.path ?? DEFAULT_SLACK_EVENTS_PATH,
    async handle(req) {
      const check = verifySlackSignature({
        signingSecret: opts.signingSecret,
        timestamp: header(req.headers, 'x-slack-request-timestamp'),
        signature: header(req.headers, 'x-slack-signature'),
        rawBody: req.rawBody,
        nowMs: now(),
      });
      if (!check.ok) {
        opts.logger.warn({ reason: check.reason }, 'refused an unsigned or stale Slack request');
        return text(401, 'invalid request signature');
      }
      let body: { type?: unknown; challenge?: unknown } | undefined;
      try {
        body = JSON.parse(req.rawBody.toString('utf8')) as typeof body;
      } catch {
        body = undefined;
      }
      if (typeof body !== 'object' || body === null) return text(400, 'expected a JSON Events API body');
      if (body.type === 'url_verification')
        return typeof body.challenge === 'string' ? text(200, body.challenge) : text(400, 'missing challenge');
      if (body.type !== 'event_callback') return text(200, '');
      // Stopped: refuse so Slack keeps the event and redelivers it later.
      if (!opts.isOpen()) return text(503, 'not accepting events');
      const retry = header(req.headers, 'x-slack-retry-num');
      const reason = header(req.headers, 'x-slack-retry-reason');
      const info: DeliveryInfo = {
        via: 'http',
        ...(retry && /^\d+$/.test(retry) ? { retryNum: Number(retry) } : {}),
        ...(reason ? { retryReason: reason } : {}),
      };
      return (await opts.onEvent(body, info)) ? text(200, '') : text(500, 'not delivered');
    },
  };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  let v = headers[name];
  if (v === undefined) {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : headers[key];
  }
  return Array.isArray(v) ? v[0] : v;
}

function text(status: number, body: string): { status: number; headers: Record<string, string>; body: string } {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

// Slack request signing (HTTP Events mode): `X-Slack-Signature` = `v0=` + hex HMAC-SHA256 of
// `v0:<X-Slack-Request-Timestamp>:<raw body>` under the app's signing secret.

/** How far a request's timestamp may be from now before it is refused as a replay (Slack's advice: 5 minutes). */
export const SIGNATURE_MAX_AGE_SECONDS = 300;

/** The outcome of a check; `reason` is safe to log (it never contains the secret or the body). */
export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** Computes the `X-Slack-Signature` value of a body sent at `timestamp` (seconds). */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
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
  if (Math.abs(opts.nowMs / 1000 - Number(timestamp)) > SIGNATURE_MAX_AGE_SECONDS)
    return { ok: false, reason: 'timestamp outside the 5-minute window' };
  if (!constantTimeEqual(signature, slackSignature(opts.signingSecret, timestamp, opts.rawBody)))
    return { ok: false, reason: 'signature mismatch' };
  return { ok: true };
}
