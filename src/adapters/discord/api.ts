// The adapter's own REST calls for what it sends (messages, edits, typing). Deliberately not
// discord.js's queue: a 429 must surface at once as AdapterApiError(429, retryAfterMs) so the
// gateway's single outbound queue owns retries, and a 5xx is not retried here either.
import { fetchFailureCode } from '../../core/errors.ts';
import { AdapterApiError, AdapterNetworkError } from '../errors.ts';

/** Where and as whom to call Discord's REST API. */
export interface DiscordRestOptions {
  /** API root without version, e.g. `https://discord.com/api`. */
  restApi: string;
  token: string;
  timeoutMs: number;
}

/** Discord REST API version the adapter speaks. */
export const DISCORD_API_VERSION = 10;
const USER_AGENT = 'DiscordBot (https://github.com/boxbot/boxbot, 0.1.0)';

/** Calls `method path` with a JSON body (or a multipart form: files); returns the parsed answer (undefined for 204). */
export async function discordRequest<T>(
  opts: DiscordRestOptions,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT',
  path: string,
  body?: unknown,
): Promise<T> {
  const url = `${opts.restApi.replace(/\/+$/, '')}/v${DISCORD_API_VERSION}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bot ${opts.token}`,
        'user-agent': USER_AGENT,
        // A form sets its own multipart content type (with the boundary).
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (e) {
    throw new AdapterNetworkError('discord', `${method} ${path}: ${networkReason(e)}`);
  }
  const text = await res.text().catch(() => '');
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (res.ok) return data as T;
  throw apiError(res, data, `${method} ${path}`);
}

/** Maps an error answer to AdapterApiError; a 429 carries Discord's retry_after in ms. */
function apiError(res: Response, data: unknown, what: string): AdapterApiError {
  const body = (typeof data === 'object' && data !== null ? data : {}) as {
    message?: unknown;
    code?: unknown;
    retry_after?: unknown;
    global?: unknown;
    errors?: unknown;
  };
  const message = typeof body.message === 'string' ? body.message : res.statusText || 'no description';
  const code = typeof body.code === 'number' && body.code !== 0 ? ` (code ${body.code})` : '';
  const detail = firstFieldError(body.errors);
  if (res.status === 429) {
    const seconds = typeof body.retry_after === 'number' ? body.retry_after : Number(res.headers.get('retry-after'));
    const retryAfterMs = Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : 1000;
    const scope = body.global === true || res.headers.get('x-ratelimit-global') === 'true' ? ' (global)' : '';
    return new AdapterApiError('discord', 429, `${what}: ${message}${scope}`, retryAfterMs);
  }
  return new AdapterApiError('discord', res.status, `${what}: ${message}${code}${detail ? `: ${detail}` : ''}`);
}

// Discord nests form errors: {content: {_errors: [{code, message}]}}; name the first one.
function firstFieldError(errors: unknown, path: string[] = []): string | undefined {
  if (typeof errors !== 'object' || errors === null) return undefined;
  for (const [key, value] of Object.entries(errors)) {
    if (key === '_errors' && Array.isArray(value)) {
      const first = value[0] as { message?: unknown } | undefined;
      if (first && typeof first.message === 'string') return `${path.join('.') || 'body'}: ${first.message}`;
    } else {
      const found = firstFieldError(value, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

function networkReason(e: unknown): string {
  if (e instanceof Error) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
    return fetchFailureCode(e) ?? e.message;
  }
  return String(e);
}
