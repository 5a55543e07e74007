// Provider failures. Keeps grammY's distinction: "the API said no" (kind `api`, with a status) is
// not "the network failed" (kind `network`); a broken or cut-off stream, a stream that went silent (`stalled`) and
// a cancellation are their own kinds.
import { BoxbotError } from '../../core/errors.ts';

/**
 * What went wrong: the API answered with an error, the network failed, the stream broke, the stream sent nothing for
 * the provider's idle timeout, or the caller aborted.
 */
export type ProviderErrorKind = 'api' | 'network' | 'stream' | 'stalled' | 'aborted';

/** A ProviderError's code: its kind, prefixed (`provider-api`). */
export type ProviderErrorCode = `provider-${ProviderErrorKind}`;

/** Statuses worth another attempt: timeouts, conflicts, rate limits, server errors and Anthropic's 529 overload. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Options of a ProviderError beyond its kind and message. */
export interface ProviderErrorInit {
  status?: number;
  /** The response already delivered content when this happened: replaying it would duplicate an answer. */
  midStream?: boolean;
  /** From `retry-after-ms` / `retry-after`, when the API said how long to wait. */
  retryAfterMs?: number;
  cause?: unknown;
}

/** A model call that failed; `provider` names the backend, `status` the HTTP status if the API answered. */
export class ProviderError extends BoxbotError<ProviderErrorCode> {
  readonly status: number | undefined;
  readonly midStream: boolean;
  readonly retryAfterMs: number | undefined;
  /** The message without the provider prefix. */
  readonly detail: string;

  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    init: ProviderErrorInit = {},
  ) {
    const midStream = init.midStream ?? false;
    const retryable =
      !midStream &&
      (kind === 'network' ||
        kind === 'stream' ||
        kind === 'stalled' ||
        (kind === 'api' && init.status !== undefined && isRetryableStatus(init.status)));
    super(
      `provider-${kind}`,
      `${provider}: ${message}${midStream ? ' (after the answer had started streaming)' : ''}`,
      retryable,
    );
    this.status = init.status;
    this.midStream = midStream;
    this.retryAfterMs = init.retryAfterMs;
    this.detail = message;
    if (init.cause !== undefined) (this as { cause?: unknown }).cause = init.cause;
  }

  /** The same failure, marked as having happened after content was delivered (never retried). */
  asMidStream(): ProviderError {
    if (this.midStream) return this;
    return new ProviderError(this.provider, this.kind, this.detail, {
      status: this.status,
      midStream: true,
      retryAfterMs: this.retryAfterMs,
      cause: (this as { cause?: unknown }).cause,
    });
  }

  /**
   * The API (or the network on its way) reports overload: 529, or 429/5xx that retries did not cure, or a stream
   * that went silent.
   */
  get isOverload(): boolean {
    if (this.midStream) return false;
    if (this.kind === 'network' || this.kind === 'stalled') return true;
    return this.kind === 'api' && this.status !== undefined && (this.status === 429 || this.status >= 500);
  }
}

/** A `provider/model` string that cannot be served: unknown provider, missing key or base URL. */
export class ModelConfigError extends BoxbotError<'model-config'> {
  constructor(message: string) {
    super('model-config', message);
  }
}

/** Parses `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMsOf(
  headers: Headers | Record<string, string | undefined> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | undefined =>
    headers instanceof Headers ? (headers.get(name) ?? undefined) : (headers[name] ?? headers[name.toLowerCase()]);
  const ms = get('retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const after = get('retry-after');
  if (after === undefined || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error for a stream that sent nothing for `idleTimeoutMs`: it names the provider and says it stalled. */
export function stalledError(provider: string, idleTimeoutMs: number): ProviderError {
  const quiet = idleTimeoutMs % 1000 === 0 ? `${idleTimeoutMs / 1000} s` : `${idleTimeoutMs} ms`;
  return new ProviderError(provider, 'stalled', `the model stream stalled (no data for ${quiet})`);
}

/** The error a provider throws once `signal` has fired. */
export function abortedError(provider: string, signal: AbortSignal): ProviderError {
  return new ProviderError(provider, 'aborted', 'the request was cancelled', { cause: signal.reason });
}
