// A real HTTP server on 127.0.0.1 speaking OpenAI Chat Completions (also at Azure's deployment paths), Anthropic
// Messages (also as Vertex's rawPredict and Bedrock's binary event stream), Gemini and Cohere Chat v2, so the
// official SDKs run unmodified. Replies come from a script (each used once) or a responder.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicRefusal, anthropicShowsThinking } from './anthropic-models.ts';
import { anthropicError, anthropicMessage, anthropicStream } from './anthropic-wire.ts';
import { bedrockErrorType, bedrockFrames, sigV4Mismatch, sigV4Problem } from './bedrock-wire.ts';
import { cohereError, cohereStream } from './cohere-wire.ts';
import type { Frame } from './frames.ts';
import { geminiError, geminiStream } from './gemini-wire.ts';
import { openaiCompletion, openaiError, openaiStream } from './openai-wire.ts';
import type { LlmReply } from './script.ts';
import { readTranscriptionForm } from './transcription.ts';

/**
 * Which API a request was addressed to, by path: `…/chat/completions`, `…/messages`, `…/audio/transcriptions`,
 * `…/models/<m>:streamGenerateContent` (Gemini), `/v2/chat` (Cohere), `/model/<m>/invoke-with-response-stream`
 * (Bedrock), `…/models/<m>:streamRawPredict` (Vertex), and the GET endpoints key checks call (`key-check`).
 */
export type LlmApi =
  | 'openai'
  | 'anthropic'
  | 'transcription'
  | 'gemini'
  | 'cohere'
  | 'bedrock'
  | 'vertex'
  | 'key-check';

/** The API of a request by method and path, and the model its path names (Gemini, Bedrock, Vertex, Azure). */
function routeOf(method: string, path: string): { api: LlmApi | 'unknown'; pathModel?: string } {
  const decode = (s: string | undefined) => (s === undefined ? undefined : decodeURIComponent(s));
  if (method === 'GET' && /\/(models|v1beta\/models)$/.test(path)) return { api: 'key-check' };
  if (method === 'POST' && path.endsWith('/v1/check-api-key')) return { api: 'key-check' };
  const azure = /\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
  if (azure) return { api: 'openai', pathModel: decode(azure[1]) };
  if (path.endsWith('/chat/completions')) return { api: 'openai' };
  if (path.endsWith('/messages')) return { api: 'anthropic' };
  if (path.endsWith('/v2/chat')) return { api: 'cohere' };
  const gemini = /\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
  if (gemini) return { api: 'gemini', pathModel: decode(gemini[1]) };
  const bedrock = /\/model\/([^/]+)\/(invoke-with-response-stream|invoke)$/.exec(path);
  if (bedrock) return { api: 'bedrock', pathModel: decode(bedrock[1]) };
  const vertex = /\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/.exec(path);
  if (vertex) return { api: 'vertex', pathModel: decode(vertex[1]) };
  return { api: 'unknown' };
}

/** The key a request carries, whatever header its API uses. */
function keyOf(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization ?? headers['x-api-key'] ?? headers['api-key'] ?? headers['x-goog-api-key'];
  return h === undefined ? undefined : String(h).replace(/^Bearer /, '');
}

/** How a response ended: written in full, cut by the client (e.g. an abort), or dropped by the server on purpose. */
export type LlmResponseEnd = 'complete' | 'client-closed' | 'server-closed';

/** One request the emulator received. */
export interface RecordedRequest {
  api: LlmApi | 'unknown';
  method: string;
  path: string;
  /** The query string without `?` (Gemini's `alt=sse`, Azure's `api-version`). */
  query: string;
  /** The model asked for: from the path where the API puts it there, else the body's `model`. */
  model: string | undefined;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when there was none). */
  body: any;
  /** Resolves when the response is over. */
  ended: Promise<LlmResponseEnd>;
  /** The body as received (UTF-8), for checks that hash it (SigV4). */
  rawBody: string;
}

/** Decides a reply from the request when the script is empty (e.g. instant answers forever for benchmarks). */
export type LlmResponder = (request: RecordedRequest) => LlmReply | Promise<LlmReply>;

/** A running emulator. Point `OPENAI_BASE_URL` at `openaiBaseURL` and `ANTHROPIC_BASE_URL` at `anthropicBaseURL`. */
export interface LlmEmulator {
  url: string;
  openaiBaseURL: string;
  anthropicBaseURL: string;
  /** Queues replies; each answers exactly one request, in order. */
  script(replies: LlmReply[]): void;
  /** Answers requests the script does not cover (replaces any earlier responder; undefined removes it). */
  respond(responder: LlmResponder | undefined): void;
  /** Every request received so far, in order. */
  readonly requests: RecordedRequest[];
  /** Queues transcripts; each answers exactly one `POST .../audio/transcriptions`, in order. */
  transcripts(texts: string[]): void;
  /** Keys the key-check endpoints accept (others, and no key, get 401); by default any request is accepted. */
  acceptKeys(keys: string[] | undefined): void;
  /** Throws if scripted replies were left unused or a request found nothing to answer it. */
  assertDone(): void;
  close(): Promise<void>;
}

/**
 * Starts an emulator on 127.0.0.1, port 0. Example:
 * `const emu = await startLlmEmulator(); emu.script([llm.say('hi')]);`
 */
/** How the emulator checks what needs more than a header's shape. */
export interface LlmEmulatorOptions {
  /** With it, a Bedrock request's SigV4 signature is recomputed with this secret and must match exactly. */
  awsSecretAccessKey?: string;
}

export async function startLlmEmulator(options: LlmEmulatorOptions = {}): Promise<LlmEmulator> {
  const queue: LlmReply[] = [];
  const heard: string[] = [];
  const requests: RecordedRequest[] = [];
  const unanswered: string[] = [];
  let responder: LlmResponder | undefined;
  let accepted: Set<string> | undefined;
  let seq = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const [path = '/', query = ''] = (req.url ?? '/').split('?');
      if (path.endsWith('/audio/transcriptions')) {
        void transcribe(bytes, String(req.headers['content-type'] ?? ''), req.method ?? 'POST', path, req.headers, res);
        return;
      }
      const raw = bytes.toString('utf8');
      let body: unknown;
      try {
        body = raw ? (JSON.parse(raw) as unknown) : undefined;
      } catch {
        body = raw;
      }
      const { api, pathModel } = routeOf(req.method ?? 'GET', path);
      let serverClosed = false;
      const ended = new Promise<LlmResponseEnd>((resolve) => {
        res.on('close', () =>
          resolve(serverClosed ? 'server-closed' : res.writableFinished ? 'complete' : 'client-closed'),
        );
      });
      ended.catch(() => {});
      const model =
        pathModel ??
        (typeof (body as { model?: unknown })?.model === 'string' ? (body as { model: string }).model : undefined);
      const record: RecordedRequest = {
        api,
        method: req.method ?? 'GET',
        path,
        query,
        model,
        headers: req.headers,
        body,
        ended,
        rawBody: raw,
      };
      requests.push(record);
      void answer(record, res, () => (serverClosed = true)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `llm emulator failed: ${String(err)}` } }));
      });
    });
  });

  /** `POST .../audio/transcriptions`: the form recorded as the body, the next scripted transcript as the answer. */
  async function transcribe(
    raw: Buffer,
    contentType: string,
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    res: ServerResponse,
  ): Promise<void> {
    const form = await readTranscriptionForm(raw, contentType);
    const ended = new Promise<LlmResponseEnd>((resolve) =>
      res.on('close', () => resolve(res.writableFinished ? 'complete' : 'client-closed')),
    );
    const rec = { api: 'transcription' as const, method, path, query: '', model: undefined, headers, body: form };
    requests.push({ ...rec, ended, rawBody: '' });
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (typeof form === 'string') return json(400, openaiError(400, 'invalid_request_error', form));
    const text = heard.shift();
    if (text === undefined) {
      unanswered.push(`${method} ${path} found no scripted transcript`);
      return json(500, openaiError(500, 'server_error', 'llm emulator: no transcript scripted'));
    }
    json(200, { text, usage: { type: 'duration', seconds: 2 } });
  }

  /** The error body `record`'s API sends with `status`. */
  function errorBody(
    record: RecordedRequest,
    status: number,
    reply: { errorType?: string; message?: string; headers?: Record<string, string> },
    requestId: string,
  ): unknown {
    switch (record.api) {
      case 'openai':
      case 'key-check':
        return openaiError(status, reply.errorType, reply.message);
      case 'gemini': {
        const ms = reply.headers?.['retry-after-ms'];
        return geminiError(status, reply.message, ms === undefined ? undefined : Number(ms));
      }
      case 'cohere':
        return cohereError(status, reply.message);
      case 'bedrock':
        return { message: reply.message ?? `emulated ${status}` };
      default:
        return anthropicError(status, reply.errorType, reply.message, requestId);
    }
  }

  /** A key check (`GET …/models`, Cohere's `POST /v1/check-api-key`): 200 for an accepted key, else 401. */
  function keyCheck(record: RecordedRequest, res: ServerResponse): void {
    const key = keyOf(record.headers);
    const ok = accepted === undefined || (key !== undefined && accepted.has(key));
    const body = ok
      ? record.path.endsWith('check-api-key')
        ? { valid: true }
        : { data: [], models: [] }
      : errorBody(record, 401, { message: 'invalid api key' }, 'req_key');
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  /** Whether `record` asked for a streamed answer (in the body, or by its path for Gemini and Bedrock). */
  function streamed(record: RecordedRequest): boolean {
    if (record.api === 'gemini') return record.path.endsWith(':streamGenerateContent');
    if (record.api === 'bedrock') return record.path.endsWith('/invoke-with-response-stream');
    return record.body?.stream === true;
  }

  async function answer(record: RecordedRequest, res: ServerResponse, markServerClosed: () => void): Promise<void> {
    const n = ++seq;
    if (record.api === 'unknown') {
      unanswered.push(`${record.method} ${record.path} (not an emulated endpoint)`);
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no such endpoint: ${record.path}` } }));
      return;
    }
    if (record.api === 'key-check') return keyCheck(record, res);
    // Bedrock refuses a request without a well-formed SigV4 signature (or a Bedrock API key) before anything else.
    const signed = record.api === 'bedrock' && !String(record.headers.authorization ?? '').startsWith('Bearer ');
    const unsigned = !signed
      ? undefined
      : options.awsSecretAccessKey
        ? await sigV4Mismatch({ ...record, body: record.rawBody }, options.awsSecretAccessKey)
        : sigV4Problem(record.headers);
    if (unsigned) {
      res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'InvalidSignatureException' });
      res.end(JSON.stringify({ message: unsigned }));
      return;
    }
    // A request the real API refuses for its model never reaches the script.
    const anthropicWire = record.api === 'anthropic' || record.api === 'vertex' || record.api === 'bedrock';
    const refusal = anthropicWire
      ? anthropicRefusal({ model: record.model, ...record.body }, record.headers)
      : undefined;
    if (refusal) {
      res.writeHead(400, { 'content-type': 'application/json', 'request-id': `req_emu_${n}` });
      res.end(JSON.stringify(anthropicError(400, 'invalid_request_error', refusal, `req_emu_${n}`)));
      return;
    }
    const reply = queue.shift() ?? (responder ? await responder(record) : undefined);
    if (!reply) {
      unanswered.push(`request ${n}: ${record.method} ${record.path} found no scripted reply`);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          errorBody(
            record,
            500,
            {
              errorType: record.api === 'openai' ? 'server_error' : 'api_error',
              message: 'llm emulator: script exhausted',
            },
            `req_emu_${n}`,
          ),
        ),
      );
      return;
    }
    if (reply.kind === 'stall') {
      await new Promise<void>((resolve) => res.once('close', resolve));
      return;
    }
    const model = record.model ?? 'emulated-model';
    const requestId = `req_emu_${n}`;
    if (reply.kind === 'status') {
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'request-id': requestId,
        'x-request-id': requestId,
        ...(record.api === 'bedrock' ? { 'x-amzn-errortype': bedrockErrorType(reply.status) } : {}),
        ...reply.headers,
      });
      res.end(JSON.stringify(errorBody(record, reply.status, reply, requestId)));
      return;
    }
    if (reply.kind === 'raw') {
      res.writeHead(reply.status ?? 200, {
        'content-type': reply.contentType,
        'request-id': requestId,
        ...reply.headers,
      });
      res.end(reply.body);
      return;
    }
    const id = record.api === 'openai' ? `chatcmpl-emu${n}` : `msg_emu_${n}`;
    const showThinking = anthropicShowsThinking({ model, ...record.body });
    if (!streamed(record)) {
      if (record.api !== 'openai' && !anthropicWire)
        throw new Error(`${record.api}: only streamed answers are emulated`);
      const body =
        record.api === 'openai' ? openaiCompletion(reply, model, id) : anthropicMessage(reply, model, id, showThinking);
      res
        .writeHead(200, { 'content-type': 'application/json', 'request-id': requestId, 'x-request-id': requestId })
        .end(JSON.stringify(body));
      return;
    }
    const frames =
      record.api === 'openai'
        ? openaiStream(reply, model, id, record.body?.stream_options?.include_usage === true)
        : record.api === 'gemini'
          ? geminiStream(reply, model, id)
          : record.api === 'cohere'
            ? cohereStream(reply, id)
            : record.api === 'bedrock'
              ? bedrockFrames(anthropicStream(reply, model, id, showThinking))
              : anthropicStream(reply, model, id, showThinking);
    res.writeHead(200, {
      'content-type': record.api === 'bedrock' ? 'application/vnd.amazon.eventstream' : 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': requestId,
      'x-request-id': requestId,
    });
    await writeFrames(res, frames, reply.chunkDelayMs ?? 0, markServerClosed);
  }

  async function writeFrames(
    res: ServerResponse,
    frames: Frame[],
    chunkDelayMs: number,
    markServerClosed: () => void,
  ): Promise<void> {
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    const pause = (ms: number) => Promise.race([closed, new Promise<void>((r) => setTimeout(r, ms).unref())]);
    for (const frame of frames) {
      if (res.destroyed) return;
      if ('data' in frame) {
        // Wait for the bytes to leave, so a scripted disconnect never swallows what was sent before it.
        await new Promise<void>((resolve) => res.write(frame.data, () => resolve()));
        if (chunkDelayMs > 0) await pause(chunkDelayMs);
      } else if ('delay' in frame) {
        await pause(frame.delay);
      } else if (frame.control === 'hang') {
        await closed;
        return;
      } else if (frame.control === 'disconnect') {
        markServerClosed();
        res.socket?.destroy();
        return;
      } else {
        break;
      }
    }
    if (!res.destroyed) res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    script(replies) {
      queue.push(...replies);
    },
    respond(fn) {
      responder = fn;
    },
    transcripts(texts) {
      heard.push(...texts);
    },
    acceptKeys(keys) {
      accepted = keys && new Set(keys);
    },
    requests,
    assertDone() {
      const problems: string[] = [];
      if (heard.length > 0) problems.push(`${heard.length} scripted transcript(s) never requested`);
      if (queue.length > 0)
        problems.push(
          `${queue.length} scripted repl${queue.length === 1 ? 'y was' : 'ies were'} never requested ` +
            `(${queue.map((r) => r.kind).join(', ')})`,
        );
      problems.push(...unanswered);
      if (problems.length > 0) throw new Error(`llm emulator: ${problems.join('; ')}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
