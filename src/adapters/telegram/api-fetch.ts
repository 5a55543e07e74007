// The HTTP client under grammY's API calls: one request over node:http(s) on grammY's keep-alive
// agent, the answer read whole and parsed. grammY's default (node-fetch 2) builds a WHATWG request,
// parses the URL twice, a Headers object each way and a stream for every answer: about 5 % of a busy
// gateway's main thread, for calls that only ever need `res.json()`. Redirects are not followed (a
// Bot API server never redirects, and the request URL holds the bot token); no error names the URL.
import { type ClientRequest, type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
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

/** A parsed answer's body (the Response grammY reads). */
class Answer implements ApiAnswer {
  constructor(
    readonly status: number,
    private readonly text: string,
  ) {}
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  async json(): Promise<unknown> {
    try {
      return JSON.parse(this.text) as unknown;
    } catch (e) {
      throw failure(`invalid json response body: ${(e as Error).message}`, 'invalid-json');
    }
  }
}

/**
 * One call in flight. A class rather than closures: its methods are made once, not per call (the
 * bundle keeps function names, which costs a property definition for every closure made).
 */
class Call {
  private settled = false;
  private req: ClientRequest | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly abortListener = () => this.abort();
  constructor(
    private readonly signal: ApiFetchInit['signal'],
    private readonly resolve: (a: ApiAnswer) => void,
    private readonly reject: (e: Error) => void,
  ) {}

  start(url: string, init: ApiFetchInit): void {
    if (this.signal?.aborted) return this.reject(aborted());
    const headers: Record<string, string | number> = { accept: '*/*', ...init.headers };
    if (typeof init.body === 'string') headers['content-length'] = Buffer.byteLength(init.body);
    if (init.compress) headers['accept-encoding'] = 'gzip';
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method: init.method ?? 'GET', headers, ...(init.agent ? { agent: init.agent } : {}) });
    this.req = req;
    req.on('error', (e) => this.fail(failure(`request failed: ${e.message}`, 'system', e)));
    req.on('response', (res) => this.read(res));
    this.signal?.addEventListener('abort', this.abortListener);
    const body = init.body;
    if (body instanceof Readable) {
      // A multipart upload (grammY's form-data stream): its failure ends the request.
      body.on('error', (e) => {
        this.fail(failure(`sending the upload failed: ${e.message}`, 'system', e));
        req.destroy();
      });
      body.pipe(req);
    } else req.end(body);
  }

  private read(res: IncomingMessage): void {
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      res.resume();
      return this.fail(
        failure(`the Bot API answered with a redirect (HTTP ${status}), which is not followed`, 'redirect'),
      );
    }
    const body: Readable = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
    if (body !== res) res.on('error', (e) => this.broken(e));
    // A connection closed before the whole answer came (no 'end' will follow).
    res.on('close', () => {
      if (!res.complete) this.fail(failure('the answer was cut off', 'system'));
    });
    body.on('data', (chunk: Buffer) => this.take(chunk));
    body.on('error', (e) => this.broken(e));
    body.on('end', () => {
      const c = this.chunks;
      const text = c.length === 1 ? c[0]!.toString('utf8') : Buffer.concat(c).toString('utf8');
      if (this.finish()) this.resolve(new Answer(status, text));
    });
  }

  private broken(e: Error): void {
    this.fail(failure(`reading the answer failed: ${e.message}`, 'system', e));
  }

  private take(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_API_ANSWER_BYTES) {
      this.fail(failure(`the Bot API's answer passed ${MAX_API_ANSWER_BYTES} bytes`, 'max-size'));
      this.req?.destroy();
      return;
    }
    this.chunks.push(chunk);
  }

  private abort(): void {
    this.fail(aborted());
    this.req?.destroy();
  }

  /** True the first time: the call settles once. */
  private finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.signal?.removeEventListener('abort', this.abortListener);
    return true;
  }

  private fail(e: Error): void {
    if (this.finish()) this.reject(e);
  }
}

/**
 * grammY's `client.fetch`: POSTs (or GETs) `url` and resolves with the status and a `json()` of
 * the body. Rejects on network failures, an abort, a redirect or an answer over MAX_API_ANSWER_BYTES.
 */
export function apiFetch(url: string, init: ApiFetchInit = {}): Promise<ApiAnswer> {
  return new Promise((resolve, reject) => new Call(init.signal, resolve, reject).start(url, init));
}
