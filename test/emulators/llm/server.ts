// A real HTTP server on 127.0.0.1 speaking OpenAI Chat Completions and Anthropic Messages (SSE and
// JSON), so the official SDKs run unmodified. Replies come from a script (each used once) or a responder.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicRefusal, anthropicShowsThinking } from './anthropic-models.ts';
import { anthropicError, anthropicMessage, anthropicStream } from './anthropic-wire.ts';
import type { Frame } from './frames.ts';
import { openaiCompletion, openaiError, openaiStream } from './openai-wire.ts';
import type { LlmReply } from './script.ts';
import { readTranscriptionForm } from './transcription.ts';

/** Which API a request was addressed to, by path: `…/chat/completions`, `…/messages`, `…/audio/transcriptions`. */
export type LlmApi = 'openai' | 'anthropic' | 'transcription';

/** How a response ended: written in full, cut by the client (e.g. an abort), or dropped by the server on purpose. */
export type LlmResponseEnd = 'complete' | 'client-closed' | 'server-closed';

/** One request the emulator received. */
export interface RecordedRequest {
  api: LlmApi | 'unknown';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when there was none). */
  body: any;
  /** Resolves when the response is over. */
  ended: Promise<LlmResponseEnd>;
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
  /** Throws if scripted replies were left unused or a request found nothing to answer it. */
  assertDone(): void;
  close(): Promise<void>;
}

/**
 * Starts an emulator on 127.0.0.1, port 0. Example:
 * `const emu = await startLlmEmulator(); emu.script([llm.say('hi')]);`
 */
export async function startLlmEmulator(): Promise<LlmEmulator> {
  const queue: LlmReply[] = [];
  const heard: string[] = [];
  const requests: RecordedRequest[] = [];
  const unanswered: string[] = [];
  let responder: LlmResponder | undefined;
  let seq = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0]!;
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
      const api: RecordedRequest['api'] = path.endsWith('/chat/completions')
        ? 'openai'
        : path.endsWith('/messages')
          ? 'anthropic'
          : 'unknown';
      let serverClosed = false;
      const ended = new Promise<LlmResponseEnd>((resolve) => {
        res.on('close', () =>
          resolve(serverClosed ? 'server-closed' : res.writableFinished ? 'complete' : 'client-closed'),
        );
      });
      ended.catch(() => {});
      const record: RecordedRequest = { api, method: req.method ?? 'GET', path, headers: req.headers, body, ended };
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
    requests.push({ api: 'transcription', method, path, headers, body: form, ended });
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

  async function answer(record: RecordedRequest, res: ServerResponse, markServerClosed: () => void): Promise<void> {
    const n = ++seq;
    if (record.api === 'unknown') {
      unanswered.push(`${record.method} ${record.path} (not an emulated endpoint)`);
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no such endpoint: ${record.path}` } }));
      return;
    }
    // A request the real API refuses for its model never reaches the script.
    const refusal = record.api === 'anthropic' ? anthropicRefusal(record.body, record.headers) : undefined;
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
          record.api === 'openai'
            ? openaiError(500, 'server_error', 'llm emulator: script exhausted')
            : anthropicError(500, 'api_error', 'llm emulator: script exhausted', `req_emu_${n}`),
        ),
      );
      return;
    }
    if (reply.kind === 'stall') {
      await new Promise<void>((resolve) => res.once('close', resolve));
      return;
    }
    const model = String(record.body?.model ?? 'emulated-model');
    const requestId = `req_emu_${n}`;
    if (reply.kind === 'status') {
      const body =
        record.api === 'openai'
          ? openaiError(reply.status, reply.errorType, reply.message)
          : anthropicError(reply.status, reply.errorType, reply.message, requestId);
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'request-id': requestId,
        'x-request-id': requestId,
        ...reply.headers,
      });
      res.end(JSON.stringify(body));
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
    if (record.body?.stream !== true) {
      const body =
        record.api === 'openai'
          ? openaiCompletion(reply, model, id)
          : anthropicMessage(reply, model, id, anthropicShowsThinking(record.body));
      res
        .writeHead(200, { 'content-type': 'application/json', 'request-id': requestId, 'x-request-id': requestId })
        .end(JSON.stringify(body));
      return;
    }
    const frames =
      record.api === 'openai'
        ? openaiStream(reply, model, id, record.body?.stream_options?.include_usage === true)
        : anthropicStream(reply, model, id, anthropicShowsThinking(record.body));
    res.writeHead(200, {
      'content-type': 'text/event-stream',
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
