// Adapter failures, with grammY's distinction kept: "the platform said no" (AdapterApiError: a status
// and description, retryable only on 429/5xx) is not "the network failed" (AdapterNetworkError).
import { BoxbotError } from '../core/errors.ts';
import type { Platform } from './types.ts';

/** Why an adapter failed: its setup, a call made wrongly, the platform's answer, or the network. */
export type AdapterErrorCode =
  | 'config'
  | 'already-started'
  | 'not-running'
  | 'not-a-press'
  | 'bad-button'
  | 'bad-history'
  | 'not-found'
  | 'too-large'
  | 'gateway-refused'
  | 'disallowed-intents'
  | 'sink-refused'
  | 'rate-limited'
  | 'api-error'
  | 'network-error';

/** Any adapter failure; `channel` names the platform. */
export class AdapterError extends BoxbotError<AdapterErrorCode> {
  constructor(
    readonly channel: Platform,
    code: AdapterErrorCode,
    message: string,
    retryable = false,
    /** When the platform said how long to wait (429 retry_after), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(code, `${channel}: ${message}`, retryable);
  }
}

/**
 * start() on an adapter that is started or still starting: refused the same way on every
 * platform, because a second connection (or a silently swapped sink) would deliver messages
 * twice or to the wrong place. stop() first; start() after stop() is fine.
 */
export function alreadyStarted(channel: Platform): AdapterError {
  return new AdapterError(channel, 'already-started', 'the adapter is already started (stop it first)');
}

/** The platform answered and refused (bad request, forbidden, rate limited...). */
export class AdapterApiError extends AdapterError {
  constructor(
    channel: Platform,
    readonly status: number,
    readonly description: string,
    retryAfterMs?: number,
  ) {
    super(
      channel,
      status === 429 ? 'rate-limited' : 'api-error',
      `the API said ${status}: ${description}`,
      status === 429 || status >= 500,
      retryAfterMs,
    );
  }

  /** True when the platform rejected the message's markup (the gateway retries as plain text). */
  get isMarkupError(): boolean {
    return this.status === 400 && /pars|entit|markup|format|html|mrkdwn|invalid_blocks/i.test(this.description);
  }
}

/** The platform could not be reached (DNS, connection, timeout). Always retryable. */
export class AdapterNetworkError extends AdapterError {
  constructor(channel: Platform, message: string) {
    super(channel, 'network-error', `network failure: ${message}`, true);
  }
}
