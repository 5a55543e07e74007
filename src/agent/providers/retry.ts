// The one place model calls are retried (the SDKs run with maxRetries: 0): 429/529/5xx, network failures and
// stalled streams, with exponential backoff and jitter, honouring retry-after(-ms). Never after content was yielded.
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { sleep } from '../../core/sleep.ts';
import type { Provider, StreamPart } from '../types.ts';
import { abortedError, ProviderError } from './errors.ts';

/** How hard to retry. Tests pass tiny delays or their own `sleep`. */
export interface RetryOptions {
  /** Attempts after the first (default 3). */
  maxRetries?: number;
  /** First backoff step in ms (default 500); doubles each attempt. */
  baseDelayMs?: number;
  /** Cap on one computed backoff in ms (default 8000). */
  maxDelayMs?: number;
  /**
   * A server asking to wait longer than this (default 60 s) is not waited for: the error goes up (and a fallback may
   * take over).
   */
  maxRetryAfterMs?: number;
  /**
   * Attempts after the first for a stream that stalled (default 1): each costs a whole idle timeout, so a provider
   * that keeps going silent is handed to the fallback (or reported) after two, not after `maxRetries`.
   */
  maxStallRetries?: number;
  /** Retry Anthropic's 529 "overloaded" (default true; off when a fallback model should take over at once). */
  retryOverloaded?: boolean;
  /** Waits `ms` or rejects when `signal` fires (default: a real timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** 0 ≤ x < 1 (default Math.random); jitter source. */
  random?: () => number;
  logger?: Logger;
}

/** Defaults used when a field of RetryOptions is left out. */
export const DEFAULT_RETRY = {
  maxRetries: 3,
  maxStallRetries: 1,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
} as const;

/**
 * The wait before retry number `attempt` (0-based): the server's word if it gave one, else capped exponential backoff
 * with jitter.
 */
export function retryDelayMs(attempt: number, error: ProviderError, options: RetryOptions = {}): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const base = options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const cap = options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const exp = Math.min(cap, base * 2 ** attempt);
  // "equal jitter": never less than half the step
  return Math.round(exp / 2 + (exp / 2) * (options.random ?? Math.random)());
}

/** Whether `error` on attempt `attempt` deserves another try under `options`. */
export function shouldRetry(attempt: number, error: ProviderError, options: RetryOptions = {}): boolean {
  if (!error.retryable || error.midStream) return false;
  if (attempt >= (options.maxRetries ?? DEFAULT_RETRY.maxRetries)) return false;
  if (error.kind === 'stalled' && attempt >= (options.maxStallRetries ?? DEFAULT_RETRY.maxStallRetries)) return false;
  if (error.status === 529 && options.retryOverloaded === false) return false;
  if (
    error.retryAfterMs !== undefined &&
    error.retryAfterMs > (options.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs)
  )
    return false;
  return true;
}

/**
 * Wraps `provider` so failed calls are retried before any part is yielded; errors after that go up, marked mid-stream.
 */
export function withRetry(provider: Provider, options: RetryOptions = {}): Provider {
  const wait = options.sleep ?? sleep;
  const log = options.logger ?? silentLogger;
  return {
    name: provider.name,
    async *stream(request, signal): AsyncGenerator<StreamPart> {
      for (let attempt = 0; ; attempt++) {
        let yielded = false;
        try {
          for await (const part of provider.stream(request, signal)) {
            yielded = true;
            yield part;
          }
          return;
        } catch (err) {
          if (signal.aborted) throw abortedError(provider.name, signal);
          if (!(err instanceof ProviderError)) throw err;
          if (yielded) throw err.asMidStream();
          if (!shouldRetry(attempt, err, options)) throw err;
          const delay = retryDelayMs(attempt, err, options);
          log.warn(
            {
              provider: provider.name,
              model: request.model,
              status: err.status,
              kind: err.kind,
              attempt: attempt + 1,
              delayMs: delay,
            },
            'model call failed; retrying',
          );
          try {
            await wait(delay, signal);
          } catch {
            throw abortedError(provider.name, signal);
          }
        }
      }
    },
  };
}
