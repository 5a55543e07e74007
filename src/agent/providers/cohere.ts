// Cohere's native Chat v2 API over fetch (no SDK): the SSE stream of message-start, content-delta,
// tool-call-start/-delta and message-end events parsed under size limits, errors classified like the SDKs' are.
import type { FinishReason, ModelRequest, Provider, StreamPart, Usage } from '../types.ts';
import { toCohereBody } from './cohere-messages.ts';
import { ProviderError, retryAfterMsOf } from './errors.ts';
import { readSse } from './sse.ts';
import { guardStream, incompleteStream, streamText } from './stream-guard.ts';
import { tokenCount } from './token-count.ts';
import { parseToolInput } from './tool-input.ts';

/** What a Cohere provider needs. */
export interface CohereProviderOptions {
  name?: string;
  apiKey: string;
  /** Default `https://api.cohere.com`. */
  baseURL?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Maps Cohere's `finish_reason`. */
export function mapCohereFinishReason(reason: string | undefined, hadToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'COMPLETE':
    case 'STOP_SEQUENCE':
      return hadToolCalls ? 'tool-calls' : 'stop';
    case 'TOOL_CALL':
      return 'tool-calls';
    case 'MAX_TOKENS':
      return 'max-tokens';
    default:
      return 'other';
  }
}

interface CohereUsage {
  billed_units?: { input_tokens?: number; output_tokens?: number };
  tokens?: { input_tokens?: number; output_tokens?: number };
  cached_tokens?: number;
}

/** Cohere usage as unified usage: the token counts (else the billed units), cached tokens taken out of the input. */
export function mapCohereUsage(u: CohereUsage): Usage {
  const counts = u.tokens ?? u.billed_units ?? {};
  const cached = tokenCount(u.cached_tokens) ?? 0;
  return {
    inputTokens: Math.max(0, (tokenCount(counts.input_tokens) ?? 0) - cached),
    outputTokens: tokenCount(counts.output_tokens) ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

interface CohereEvent {
  type?: string;
  index?: number;
  delta?: {
    message?: {
      content?: { text?: unknown; thinking?: unknown };
      tool_plan?: unknown;
      tool_calls?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    };
    finish_reason?: string;
    error?: unknown;
    usage?: CohereUsage;
  };
}

/** The error for a non-2xx answer: status, Cohere's message, and how long it said to wait. */
async function httpError(name: string, res: Response): Promise<ProviderError> {
  const text = (await res.text().catch(() => '')).slice(0, 2000);
  let message = text;
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message;
  } catch {}
  return new ProviderError(name, 'api', `the API answered ${res.status}: ${message || res.statusText}`, {
    status: res.status,
    retryAfterMs: retryAfterMsOf(res.headers),
  });
}

/** Creates the Cohere provider. */
export function createCohereProvider(options: CohereProviderOptions): Provider {
  const name = options.name ?? 'cohere';
  const base = (options.baseURL ?? 'https://api.cohere.com').replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  async function* run(request: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const timeout = options.timeoutMs ? AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]) : signal;
    const res = await doFetch(`${base}/v2/chat`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(toCohereBody(request)),
      signal: timeout,
    });
    if (!res.ok) throw await httpError(name, res);
    if (!res.body) throw incompleteStream(name);
    const calls = new Map<number, { id: string; name: string; args: string }>();
    let thinking = '';
    let finish: string | undefined;
    let usage: Usage | undefined;
    for await (const data of readSse(name, res.body, signal)) {
      alive();
      let event: CohereEvent;
      try {
        event = JSON.parse(data) as CohereEvent;
      } catch (err) {
        throw new ProviderError(name, 'stream', `malformed stream data: ${(err as Error).message}`);
      }
      const msg = event.delta?.message;
      switch (event.type) {
        case 'content-delta': {
          const text = streamText(name, msg?.content?.text, 'text');
          const thought = streamText(name, msg?.content?.thinking, 'thinking');
          if (thought) thinking += thought;
          if (text) {
            if (thinking) yield { type: 'thinking', text: thinking };
            thinking = '';
            yield { type: 'text-delta', text };
          }
          break;
        }
        case 'tool-plan-delta':
          thinking += streamText(name, msg?.tool_plan, 'a tool plan') ?? '';
          break;
        case 'tool-call-start':
        case 'tool-call-delta': {
          const index = Number.isSafeInteger(event.index) ? event.index! : calls.size;
          const call = calls.get(index) ?? { id: '', name: '', args: '' };
          const tc = msg?.tool_calls;
          call.id ||= streamText(name, tc?.id, 'a tool call id') ?? '';
          call.name += streamText(name, tc?.function?.name, 'a tool name') ?? '';
          call.args += streamText(name, tc?.function?.arguments, 'tool arguments') ?? '';
          calls.set(index, call);
          break;
        }
        case 'message-end':
          finish = event.delta?.finish_reason ?? 'other';
          if (event.delta?.usage) usage = mapCohereUsage(event.delta.usage);
          if (finish === 'ERROR' || finish === 'TIMEOUT') {
            const why = typeof event.delta?.error === 'string' ? event.delta.error : finish.toLowerCase();
            throw new ProviderError(name, 'api', `the API sent an error in the stream: ${why}`, {
              status: finish === 'TIMEOUT' ? 504 : 500,
            });
          }
          break;
      }
    }
    if (signal.aborted) return;
    if (finish === undefined) throw incompleteStream(name);
    if (thinking) yield { type: 'thinking', text: thinking };
    for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
      yield { type: 'tool-call', id: call.id || `call_${index}`, name: call.name, input: parseToolInput(call.args) };
    }
    if (usage) yield { type: 'usage', usage, model: `${name}/${request.model}` };
    yield { type: 'finish', reason: mapCohereFinishReason(finish, calls.size > 0) };
  }

  const classify = (err: unknown): ProviderError => {
    if (err instanceof ProviderError) return err;
    const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e?.name === 'TimeoutError') return new ProviderError(name, 'network', 'the request timed out', { cause: err });
    const why = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
    return new ProviderError(name, 'network', `the connection failed: ${why}`, { cause: err });
  };

  return {
    name,
    stream: (request, signal) =>
      guardStream(name, signal, classify, (s, alive) => run(request, s, alive), {
        idleTimeoutMs: options.idleTimeoutMs,
      }),
  };
}
