// Google Gemini through @google/genai (an optional peer dependency, imported on first use: optional-sdk.ts): streamed
// text, whole function calls, thought summaries with their signatures, usage from usageMetadata, and Google's error
// bodies (RetryInfo) classified.
import type { FinishReason, ModelRequest, Provider, StreamPart, Usage } from '../types.ts';
import { ProviderError, retryAfterMsOf } from './errors.ts';
import { toGeminiParams } from './gemini-messages.ts';
import { lazyProvider } from './lazy.ts';
import { importOptionalSdk, OPTIONAL_SDKS } from './optional-sdk.ts';
import { fromSdkError, guardStream, incompleteStream, streamText } from './stream-guard.ts';
import { tokenCount } from './token-count.ts';

/** What a Gemini provider needs; retries are not the SDK's business (see retry.ts). */
export interface GeminiProviderOptions {
  name?: string;
  apiKey: string;
  /** Default `https://generativelanguage.googleapis.com`. */
  baseURL?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Maps Gemini's `finishReason`; STOP after function calls means tool calls. */
export function mapGeminiFinishReason(reason: string | undefined, hadToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'STOP':
      return hadToolCalls ? 'tool-calls' : 'stop';
    case 'MAX_TOKENS':
      return 'max-tokens';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content-filter';
    default:
      return hadToolCalls ? 'tool-calls' : 'other';
  }
}

interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/** Gemini usage as unified usage: the prompt count includes cached tokens (ours does not); thoughts are output. */
export function mapGeminiUsage(u: GeminiUsage): Usage {
  const cached = tokenCount(u.cachedContentTokenCount) ?? 0;
  return {
    inputTokens: Math.max(0, (tokenCount(u.promptTokenCount) ?? 0) - cached),
    outputTokens: (tokenCount(u.candidatesTokenCount) ?? 0) + (tokenCount(u.thoughtsTokenCount) ?? 0),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** The google.rpc error inside an ApiError's message (the SDK puts the JSON body there). */
function googleErrorOf(message: string): { message?: string; details?: { '@type'?: string; retryDelay?: string }[] } {
  const json = message.slice(message.indexOf('{'));
  try {
    return (JSON.parse(json) as { error?: ReturnType<typeof googleErrorOf> }).error ?? {};
  } catch {
    return {};
  }
}

/** RetryInfo's `retryDelay` ("7s", "0.25s") in milliseconds. */
function retryDelayMs(details: { '@type'?: string; retryDelay?: string }[] | undefined): number | undefined {
  const delay = details?.find((d) => d['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const m = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

/** Creates the Gemini provider (the SDK is loaded on the first call). */
export function createGeminiProvider(options: GeminiProviderOptions): Provider {
  const name = options.name ?? 'gemini';
  return lazyProvider(name, async () => {
    const genai = await importOptionalSdk<typeof import('@google/genai')>(OPTIONAL_SDKS.gemini);
    const baseFetch = options.fetch ?? fetch;
    return {
      name,
      stream(request, signal) {
        // One client per request: its fetch keeps what the last error response said about waiting (the SDK's
        // ApiError carries no headers), for the retry layer.
        let retryAfterMs: number | undefined;
        const client = new genai.GoogleGenAI({
          apiKey: options.apiKey,
          vertexai: false,
          httpOptions: {
            baseUrl: options.baseURL ?? 'https://generativelanguage.googleapis.com',
            ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
            fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
              const res = await baseFetch(input, init);
              if (!res.ok) retryAfterMs = retryAfterMsOf(res.headers);
              return res;
            },
          },
        });
        const classify = (err: unknown): ProviderError => {
          if (err instanceof genai.ApiError) {
            const google = googleErrorOf(err.message);
            const message = `the API answered ${err.status}: ${google.message ?? err.message}`;
            return new ProviderError(name, 'api', message, {
              status: err.status,
              retryAfterMs: retryDelayMs(google.details) ?? retryAfterMs,
              cause: err,
            });
          }
          // The SDK has no connection error class: fetch's own errors are classified by their shape.
          return fromSdkError(name, err, { APIError: genai.ApiError, APIConnectionError: genai.ApiError });
        };
        return guardStream(name, signal, classify, (s, alive) => run(client, name, request, s, alive), {
          idleTimeoutMs: options.idleTimeoutMs,
        });
      },
    };
  });
}

type GeminiClient = InstanceType<typeof import('@google/genai').GoogleGenAI>;

async function* run(
  client: GeminiClient,
  name: string,
  request: ModelRequest,
  signal: AbortSignal,
  alive: () => void,
): AsyncGenerator<StreamPart> {
  const stream = await client.models.generateContentStream(toGeminiParams(request, signal));
  let usage: Usage | undefined;
  let finish: string | undefined;
  let thought = '';
  let signature: string | undefined;
  const calls: StreamPart[] = [];
  const flushThought = function* (): Generator<StreamPart> {
    if (thought || signature) yield { type: 'thinking', text: thought, ...(signature ? { signature } : {}) };
    thought = '';
    signature = undefined;
  };
  for await (const chunk of stream) {
    alive();
    if (chunk.usageMetadata) usage = mapGeminiUsage(chunk.usageMetadata);
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) {
        thought += streamText(name, part.text, 'thought text') ?? '';
        if (part.thoughtSignature) signature = part.thoughtSignature;
        continue;
      }
      // A signature on a text or call part belongs to the thinking before it (sent back with the next turn).
      if (part.thoughtSignature) signature = part.thoughtSignature;
      if (part.functionCall) {
        yield* flushThought();
        const id = streamText(name, part.functionCall.id, 'a tool call id') || `call_${calls.length}`;
        const fname = streamText(name, part.functionCall.name, 'a tool name') ?? '';
        calls.push({ type: 'tool-call', id, name: fname, input: part.functionCall.args ?? {} });
      } else if (part.text) {
        yield* flushThought();
        yield { type: 'text-delta', text: streamText(name, part.text, 'text') ?? '' };
      }
    }
    if (candidate?.finishReason) finish = candidate.finishReason;
  }
  if (signal.aborted) return;
  if (finish === undefined) throw incompleteStream(name);
  yield* flushThought();
  yield* calls;
  if (usage) yield { type: 'usage', usage, model: `${name}/${request.model}` };
  yield { type: 'finish', reason: mapGeminiFinishReason(finish, calls.length > 0) };
}
