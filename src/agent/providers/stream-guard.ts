// The error boundary every SDK-backed provider runs its stream through: SDK errors become
// ProviderErrors, errors after the first yielded part are marked mid-stream, a fired signal is a cancellation,
// and a stream that goes silent for the provider's idle timeout is ended as stalled.

import { errorMessage } from '../../core/errors.ts';
import type { StreamPart } from '../types.ts';
import { abortedError, ProviderError, retryAfterMsOf, stalledError } from './errors.ts';
import { startIdleTimer } from './idle-timer.ts';

/** The two error classes both official SDKs (Stainless-generated) expose. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

/** Error `type` strings sent inside a 200 stream (SSE `error` events), mapped to the HTTP status they stand for. */
const STREAM_ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  api_error: 500,
  server_error: 500,
  timeout_error: 504,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  // Amazon Bedrock's stream exceptions (the Bedrock SDK turns them into `error` events of these types).
  throttlingException: 429,
  serviceUnavailableException: 503,
  internalServerException: 500,
  modelTimeoutException: 408,
  modelStreamErrorException: 424,
  validationException: 400,
};

interface ApiErrorShape {
  status?: number;
  headers?: Headers;
  type?: string | null;
  error?: { type?: string; message?: string; error?: { type?: string; message?: string } };
  message: string;
}

/** Turns whatever an SDK threw into a ProviderError ("the API said no" vs "the network failed"). */
export function fromSdkError(provider: string, err: unknown, sdk: SdkErrorClasses): ProviderError {
  if (err instanceof ProviderError) return err;
  // Our own credential step failed inside the SDK's request (Vertex's token exchange): its error says why.
  if (err instanceof sdk.APIConnectionError && err.cause instanceof ProviderError) return err.cause;
  if (err instanceof sdk.APIConnectionError) {
    return new ProviderError(provider, 'network', `could not reach the API: ${describeCause(err)}`, { cause: err });
  }
  if (err instanceof sdk.APIError) {
    const e = err as unknown as ApiErrorShape;
    if (typeof e.status === 'number') {
      const apiMessage = e.error?.error?.message ?? e.error?.message;
      return new ProviderError(provider, 'api', `the API answered ${e.status}: ${apiMessage ?? e.message}`, {
        status: e.status,
        retryAfterMs: retryAfterMsOf(e.headers),
        cause: err,
      });
    }
    // An error event inside a stream that had answered 200.
    const type = e.type ?? e.error?.error?.type ?? e.error?.type ?? '';
    const status = STREAM_ERROR_STATUS[type] ?? 500;
    return new ProviderError(
      provider,
      'api',
      `the API sent an error in the stream ` +
        `(${type || 'unknown'}): ${e.error?.error?.message ?? e.error?.message ?? e.message}`,
      {
        status,
        cause: err,
      },
    );
  }
  if (err instanceof SyntaxError)
    return new ProviderError(provider, 'stream', `malformed stream data: ${err.message}`, { cause: err });
  if (err instanceof TypeError && /fetch failed|terminated|socket|network/i.test(err.message)) {
    return new ProviderError(provider, 'network', `the connection failed: ${describeCause(err)}`, { cause: err });
  }
  const message = errorMessage(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR)/.test(code)) {
    return new ProviderError(provider, 'network', `the connection failed: ${message}`, { cause: err });
  }
  return new ProviderError(provider, 'stream', message, { cause: err });
}

function describeCause(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${err.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  return err.message;
}

/** What the guard watches besides errors. */
export interface GuardOptions {
  /** No data from the API for this long aborts the request as `stalled` (undefined or 0: no watchdog). */
  idleTimeoutMs?: number;
}

/**
 * Runs a provider's raw part generator inside the error boundary: thrown errors go through `classify`,
 * an error after the first yielded part is marked mid-stream, and a fired `signal` always ends in an
 * `aborted` ProviderError (the SDKs end their iteration silently on abort). `run` gets the request's own signal
 * and `alive`, which it calls for every event the SDK hands it (tool-call fragments yield no part but are data):
 * a request that sees none for `idleTimeoutMs` is aborted and ends in a `stalled` ProviderError, which the retry
 * and fallback layers treat like a network failure.
 */
export async function* guardStream(
  provider: string,
  signal: AbortSignal,
  classify: (err: unknown) => ProviderError,
  run: (requestSignal: AbortSignal, alive: () => void) => AsyncGenerator<StreamPart>,
  options: GuardOptions = {},
): AsyncGenerator<StreamPart> {
  if (signal.aborted) throw abortedError(provider, signal);
  // The SDKs add an abort listener to the signal they are given and never remove it. One run's
  // signal spans every request of the run (MaxListenersExceededWarning after about ten), so each
  // request gets its own signal, linked to the run's only while the request lasts.
  const request = new AbortController();
  const forward = () => request.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  const idleMs = options.idleTimeoutMs;
  let stalled: ProviderError | undefined;
  const idle = idleMs
    ? startIdleTimer(idleMs, () => {
        stalled = stalledError(provider, idleMs);
        request.abort(stalled);
      })
    : undefined;
  const alive = idle ? () => idle.touch() : () => {};
  let yielded = false;
  try {
    try {
      for await (const part of run(request.signal, alive)) {
        if (signal.aborted || stalled) break;
        const bad = malformedPart(part);
        if (bad) throw new ProviderError(provider, 'stream', `malformed stream data: ${bad}`);
        yielded = true;
        idle?.pause();
        yield part;
        idle?.touch();
      }
    } catch (err) {
      if (signal.aborted) throw abortedError(provider, signal);
      const e = stalled ?? classify(err);
      throw yielded ? e.asMidStream() : e;
    }
    if (signal.aborted) throw abortedError(provider, signal);
    if (stalled) throw yielded ? stalled.asMidStream() : stalled;
  } finally {
    idle?.stop();
    signal.removeEventListener('abort', forward);
  }
}

/**
 * What is wrong with a part a provider made from the stream's data, or undefined: text, ids and names
 * must be strings (the agent loop and the history rely on it; a server may send anything).
 */
function malformedPart(p: StreamPart): string | undefined {
  const notText = (v: unknown, what: string) =>
    typeof v === 'string' ? undefined : `${what} is ${typeof v}, not text`;
  switch (p.type) {
    case 'text-delta':
      return notText(p.text, 'text');
    case 'thinking':
      return notText(p.text, 'thinking') ?? (p.signature === undefined ? undefined : notText(p.signature, 'signature'));
    case 'tool-call':
      return notText(p.id, 'a tool call id') ?? notText(p.name, 'a tool name');
    default:
      return undefined;
  }
}

/** `v` as text (undefined when absent); any other type ends the stream as malformed data. */
export function streamText(provider: string, v: unknown, what: string): string | undefined {
  if (v === undefined || v === null || typeof v === 'string') return v ?? undefined;
  throw new ProviderError(provider, 'stream', `malformed stream data: ${what} is ${typeof v}, not text`);
}

/** The error for a stream that ended without saying why the model stopped. */
export function incompleteStream(provider: string): ProviderError {
  return new ProviderError(provider, 'stream', 'the stream ended before the model finished');
}
