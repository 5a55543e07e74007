// The one way an adapter downloads an inbound file: a GET whose body is read chunk by chunk and
// abandoned (connection aborted) as soon as it passes the byte cap, so an oversized upload costs
// at most the cap in memory and traffic. The URL may carry a credential (Telegram's file URL holds
// the bot token), so no error text ever includes it: callers name the file, not the address.
import { fetchFailureCode } from '../core/errors.ts';
import { AdapterApiError, AdapterError, AdapterNetworkError } from './errors.ts';
import type { Platform } from './types.ts';

/** One capped download. */
export interface DownloadOptions {
  maxBytes: number;
  signal?: AbortSignal;
  /** Request headers (Slack's `Authorization: Bearer`). */
  headers?: Record<string, string>;
  /** Whole request, headers to last byte (default 60 s). */
  timeoutMs?: number;
}

/** Whether a failure says the file was over its cap (AdapterError `too-large`). */
export function isTooLarge(e: unknown): boolean {
  return e instanceof AdapterError && e.code === 'too-large';
}

/** The error for a file over `maxBytes` (`size` when known). */
export function tooLarge(channel: Platform, maxBytes: number, size?: number): AdapterError {
  const was = size !== undefined ? `${size} bytes` : `more than ${maxBytes} bytes`;
  return new AdapterError(channel, 'too-large', `the file is ${was}; the limit is ${maxBytes} bytes`);
}

/**
 * GETs `url` and returns the body, at most `maxBytes` of it, else rejects AdapterError
 * `too-large` without reading the rest. `what` names the file in errors instead of the URL.
 * Example: const bytes = await downloadCapped('discord', attachment.url, 'photo.png', { maxBytes });
 */
export async function downloadCapped(
  channel: Platform,
  url: string,
  what: string,
  opts: DownloadOptions,
): Promise<{ bytes: Uint8Array; contentType?: string }> {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(new Error('timed out')), opts.timeoutMs ?? 60_000).unref();
  const onAbort = () => controller.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers: opts.headers ?? {}, signal: controller.signal, redirect: 'follow' });
    } catch (e) {
      throw new AdapterNetworkError(channel, `downloading ${what}: ${reasonOf(e, controller.signal)}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new AdapterApiError(channel, res.status, `downloading ${what}: ${res.statusText || 'refused'}`);
    }
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      controller.abort();
      throw tooLarge(channel, opts.maxBytes, declared);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = res.body?.getReader();
    try {
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > opts.maxBytes) {
          controller.abort(); // stops the transfer: the rest is never read
          throw tooLarge(channel, opts.maxBytes);
        }
        chunks.push(value);
      }
    } catch (e) {
      if (e instanceof AdapterError) throw e;
      throw new AdapterNetworkError(channel, `downloading ${what}: ${reasonOf(e, controller.signal)}`);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    const contentType = res.headers.get('content-type') ?? undefined;
    return { bytes, ...(contentType ? { contentType } : {}) };
  } finally {
    clearTimeout(timeout);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** Why a fetch failed, in words that never include the URL (undici's messages can). */
function reasonOf(e: unknown, signal: AbortSignal): string {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason.message : 'aborted';
  return fetchFailureCode(e) ?? 'the connection failed';
}
