// The Slack Web API client as the gateway needs it: no silent retries (a 429 surfaces with its
// Retry-After so the gateway's single outbound queue decides), and every failure mapped onto
// AdapterApiError ("Slack said no") or AdapterNetworkError ("Slack was not reached"); and the
// bridge from the Slack libraries' logger to ours.
import { ErrorCode, LogLevel, type Logger as SlackLogger, type WebAPICallError, WebClient } from '@slack/web-api';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { AdapterApiError, AdapterError, AdapterNetworkError } from '../errors.ts';

/** Slack's public Web API root (override with the `slack.apiUrl` config). */
export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** A WebClient against `apiUrl` that never retries and rejects rate-limited calls at once. */
export function createWebClient(
  token: string,
  opts: { apiUrl?: string; logger: Logger; timeoutMs?: number },
): WebClient {
  return new WebClient(token, {
    slackApiUrl: withSlash(opts.apiUrl ?? DEFAULT_SLACK_API_URL),
    logger: slackLogger(opts.logger),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: opts.timeoutMs ?? 30_000,
  });
}

/** The WebClient options shared with the Socket Mode client's own apps.connections.open calls. */
export function webClientOptions(opts: { apiUrl?: string; timeoutMs?: number }): {
  slackApiUrl: string;
  retryConfig: { retries: number };
  rejectRateLimitedCalls: boolean;
  timeout: number;
} {
  return {
    slackApiUrl: withSlash(opts.apiUrl ?? DEFAULT_SLACK_API_URL),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: opts.timeoutMs ?? 30_000,
  };
}

// Slack answers almost every refusal with HTTP 200 and {ok:false,error}; give the common ones
// the status a caller would expect, so `retryable` is right (5xx, 429) and the rest are final.
const ERROR_STATUS: Record<string, number> = {
  not_authed: 401,
  invalid_auth: 401,
  account_inactive: 401,
  token_revoked: 401,
  token_expired: 401,
  missing_scope: 403,
  not_allowed_token_type: 403,
  not_in_channel: 403,
  restricted_action: 403,
  is_archived: 403,
  ekm_access_denied: 403,
  access_denied: 403,
  channel_not_found: 404,
  message_not_found: 404,
  thread_not_found: 404,
  user_not_found: 404,
  ratelimited: 429,
  rate_limited: 429,
  internal_error: 500,
  fatal_error: 500,
  request_timeout: 504,
  service_unavailable: 503,
};

/** Maps anything the WebClient throws onto the adapter's error classes. */
export function toAdapterError(e: unknown): AdapterError {
  if (e instanceof AdapterError) return e;
  const err = e as Partial<WebAPICallError> & { message?: string };
  switch (err.code) {
    case ErrorCode.RateLimitedError: {
      const seconds = (err as { retryAfter?: number }).retryAfter ?? 1;
      return new AdapterApiError('slack', 429, 'ratelimited', Math.max(0, seconds) * 1000);
    }
    case ErrorCode.PlatformError: {
      const data = (err as { data?: { error?: string; response_metadata?: { retryAfter?: number } } }).data;
      const error = data?.error ?? 'unknown_error';
      const status = ERROR_STATUS[error] ?? 400;
      const retryAfter = data?.response_metadata?.retryAfter;
      return new AdapterApiError('slack', status, error, status === 429 ? (retryAfter ?? 1) * 1000 : undefined);
    }
    case ErrorCode.HTTPError: {
      const http = err as { statusCode?: number; statusMessage?: string };
      return new AdapterApiError('slack', http.statusCode ?? 500, http.statusMessage || 'HTTP error');
    }
    case ErrorCode.RequestError: {
      const original = (err as { original?: Error }).original;
      return new AdapterNetworkError('slack', original?.message ?? err.message ?? 'request failed');
    }
    default:
      return new AdapterNetworkError('slack', errorMessage(e));
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

// Bridges @slack/logger's interface to our pino logger. Slack's debug output includes raw
// payloads (message bodies), so debug is dropped and the libraries are told the level is INFO.

/** A @slack/logger Logger writing to `log` (info → debug, warn → warn, error → error). */
export function slackLogger(log: Logger): SlackLogger {
  const line = (args: unknown[]): string => args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
  return {
    debug: () => undefined,
    info: (...args: unknown[]) => log.debug(line(args)),
    warn: (...args: unknown[]) => log.warn(line(args)),
    error: (...args: unknown[]) => log.error(line(args)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
