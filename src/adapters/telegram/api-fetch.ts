// The HTTP client under grammY's API calls: one request over node:http(s) on grammY's keep-alive
// agent, the answer read whole and parsed. grammY's default (node-fetch 2) builds a WHATWG request,
// parses the URL twice, a Headers object each way and a stream for every answer: about 5 % of a busy
// gateway's main thread, for calls that only ever need `res.json()`. Redirects are not followed (a
// Bot API server never redirects, and the request URL holds the bot token); no error names the URL.
import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Largest answer read (a getUpdates batch of 100 updates is far smaller); past it the call fails. */
export const MAX_API_ANSWER_BYTES = 64 * 1024 * 1024;

/** What grammY's ApiClient passes to its `fetch` (its baseFetchConfig, the payload and the signal). */
export interface ApiFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Readable;
  agent?: HttpAgent;
  compress?: boolean;
  signal?: {
    aborted: boolean;
    addEventListener(t: 'abort', f: () => void): void;
    removeEventListener(t: 'abort', f: () => void): void;
  };
}

/** The part of a fetch Response grammY reads. */
export interface ApiAnswer {
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}

/** A failure before an answer, shaped as node-fetch's (grammY's HttpError keeps it; api.ts reads `type`/`code`). */
function failure(message: string, type: string, cause?: unknown): Error {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return Object.assign(new Error(message), { type, ...(typeof code === 'string' ? { code } : {}) });
}

function aborted(): Error {
  const e = failure('The user aborted a request.', 'aborted');
  e.name = 'AbortError';
  return e;
}

/**
 * grammY's `client.fetch`: POSTs (or GETs) `url` and resolves with the status and a `json()` of
 * the body. Rejects on network failures, an abort, a redirect or an answer over MAX_API_ANSWER_BYTES.
 */
export function apiFetch(url: string, init: ApiFetchInit = {}): Promise<ApiAnswer> {
  return new Promise((resolve, reject) => {
    const signal = init.signal;
    if (signal?.aborted) return reject(aborted());
    const headers: Record<string, string | number> = { accept: '*/*', ...init.headers };
    if (typeof init.body === 'string') headers['content-length'] = Buffer.byteLength(init.body);
    if (init.compress) headers['accept-encoding'] = 'gzip';
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    const fail = (e: Error) => settle(() => reject(e));
    const onAbort = () => {
      fail(aborted());
      req.destroy();
    };
    const req = send(url, { method: init.method ?? 'GET', headers, ...(init.agent ? { agent: init.agent } : {}) });
    req.on('error', (e) => fail(failure(`request failed: ${e.message}`, 'system', e)));
    req.on('response', (res) => read(res));
    signal?.addEventListener('abort', onAbort);

    function read(res: IncomingMessage): void {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        return fail(
          failure(`the Bot API answered with a redirect (HTTP ${status}), which is not followed`, 'redirect'),
        );
      }
      const body: Readable = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
      if (body !== res) res.on('error', (e) => fail(failure(`reading the answer failed: ${e.message}`, 'system', e)));
      // A connection closed before the whole answer came (no 'end' will follow).
      res.on('close', () => {
        if (!res.complete) fail(failure('the answer was cut off', 'system'));
      });
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_API_ANSWER_BYTES) {
          fail(failure(`the Bot API's answer passed ${MAX_API_ANSWER_BYTES} bytes`, 'max-size'));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      body.on('error', (e) => fail(failure(`reading the answer failed: ${e.message}`, 'system', e)));
      body.on('end', () => {
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        settle(() =>
          resolve({
            ok: status >= 200 && status < 300,
            status,
            json: async () => {
              try {
                return JSON.parse(text) as unknown;
              } catch (e) {
                throw failure(`invalid json response body: ${(e as Error).message}`, 'invalid-json');
              }
            },
          }),
        );
      });
    }

    const body = init.body;
    if (body instanceof Readable) {
      // A multipart upload (grammY's form-data stream): its failure ends the request.
      body.on('error', (e) => {
        fail(failure(`sending the upload failed: ${e.message}`, 'system', e));
        req.destroy();
      });
      body.pipe(req);
    } else req.end(body);
  });
}
