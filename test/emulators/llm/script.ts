// What the LLM emulator is told to answer, independent of the wire format: each reply is rendered as
// OpenAI Chat Completions or Anthropic Messages depending on the endpoint the SDK called.
import { readFileSync } from 'node:fs';

/** Token counts the emulated API reports. */
export interface LlmUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** One tool call; `args` are the JSON fragments in the order they are streamed. */
export interface LlmToolCall {
  id: string;
  name: string;
  args: string[];
}

/** One step of a streamed answer. */
export type LlmEvent =
  | { type: 'text'; deltas: string[] }
  | { type: 'thinking'; deltas: string[]; signature: string }
  | { type: 'redacted-thinking'; data: string }
  /** Several calls are parallel calls: OpenAI interleaves their fragments by index, Anthropic sends one block each. */
  | { type: 'tool-calls'; calls: LlmToolCall[] }
  /** An error event inside a 200 stream (Anthropic `event: error`, OpenAI `data: {"error":...}`); ends the response. */
  | { type: 'error'; errorType: string; message: string }
  /** The server drops the connection. */
  | { type: 'disconnect' }
  /** The server ends the response cleanly but early: no finish reason, no usage, no [DONE]/message_stop. */
  | { type: 'truncate' }
  /** The server stops sending and waits until the client goes away (for cancellation tests). */
  | { type: 'hang' }
  | { type: 'delay'; ms: number };

/** How the model says it stopped. Default: `tool-calls` when the reply has tool calls, else `stop`. */
export type LlmFinish = 'stop' | 'tool-calls' | 'max-tokens';

/** One answer to one request. */
export type LlmReply =
  | { kind: 'answer'; events: LlmEvent[]; finish?: LlmFinish; usage?: LlmUsage; chunkDelayMs?: number }
  | { kind: 'status'; status: number; headers?: Record<string, string>; errorType?: string; message?: string }
  /** No response at all, not even headers, until the client goes away (a stalled provider). */
  | { kind: 'stall' }
  /** A recorded response body replayed verbatim (fixtures). */
  | { kind: 'raw'; status?: number; contentType: string; body: string; headers?: Record<string, string> };

/** The usage reported when a reply does not set one. */
export const DEFAULT_USAGE: LlmUsage = { input: 12, output: 5 };

let callCounter = 0;

/** Builders for scripts: `emu.script([llm.say('Hi'), llm.fail(429, { retryAfterMs: 5 })])`. */
export const llm = {
  /** A whole answer made of `events`. */
  answer(events: LlmEvent[], opts: { finish?: LlmFinish; usage?: LlmUsage; chunkDelayMs?: number } = {}): LlmReply {
    return { kind: 'answer', events, ...opts };
  },
  /** A text-only answer; several strings are several deltas. */
  say(text: string | string[], opts: { finish?: LlmFinish; usage?: LlmUsage; chunkDelayMs?: number } = {}): LlmReply {
    return llm.answer([llm.text(...(Array.isArray(text) ? text : [text]))], opts);
  },
  /** A text block streamed as these deltas. */
  text(...deltas: string[]): LlmEvent {
    return { type: 'text', deltas };
  },
  /** A thinking block with its signature. */
  thinking(text: string | string[], signature: string): LlmEvent {
    return { type: 'thinking', deltas: Array.isArray(text) ? text : [text], signature };
  },
  /** A redacted thinking block (opaque data). */
  redactedThinking(data: string): LlmEvent {
    return { type: 'redacted-thinking', data };
  },
  /** One tool call whose JSON input is streamed in `fragments` pieces (default 3). */
  call(name: string, input: unknown, opts: { id?: string; fragments?: number } = {}): LlmToolCall {
    const json = JSON.stringify(input);
    const n = Math.max(1, Math.min(opts.fragments ?? 3, json.length));
    const size = Math.ceil(json.length / n);
    const args: string[] = [];
    for (let i = 0; i < json.length; i += size) args.push(json.slice(i, i + size));
    return { id: opts.id ?? `call_emu_${++callCounter}`, name, args };
  },
  /** The model calls these tools (in parallel when several). */
  toolCalls(...calls: LlmToolCall[]): LlmEvent {
    return { type: 'tool-calls', calls };
  },
  /** An error event in the middle of a 200 stream. */
  streamError(errorType = 'overloaded_error', message = 'Overloaded'): LlmEvent {
    return { type: 'error', errorType, message };
  },
  truncate(): LlmEvent {
    return { type: 'truncate' };
  },
  disconnect(): LlmEvent {
    return { type: 'disconnect' };
  },
  hang(): LlmEvent {
    return { type: 'hang' };
  },
  /** The request is taken and never answered: no status, no headers, no bytes, until the client closes. */
  stall(): LlmReply {
    return { kind: 'stall' };
  },
  delay(ms: number): LlmEvent {
    return { type: 'delay', ms };
  },
  /** An HTTP error answer, with `retry-after-ms` / `retry-after` headers when asked. */
  fail(
    status: number,
    opts: { retryAfterMs?: number; retryAfterSeconds?: number; errorType?: string; message?: string } = {},
  ): LlmReply {
    const headers: Record<string, string> = {};
    if (opts.retryAfterMs !== undefined) headers['retry-after-ms'] = String(opts.retryAfterMs);
    if (opts.retryAfterSeconds !== undefined) headers['retry-after'] = String(opts.retryAfterSeconds);
    return {
      kind: 'status',
      status,
      headers,
      ...(opts.errorType ? { errorType: opts.errorType } : {}),
      ...(opts.message ? { message: opts.message } : {}),
    };
  },
  /** Replays a recorded SSE stream from a file (test/fixtures/llm/*.sse). */
  replay(file: string | URL): LlmReply {
    return { kind: 'raw', contentType: 'text/event-stream', body: readFileSync(file, 'utf8') };
  },
};
