// OpenAI Chat Completions via the `openai` SDK (v6), also used for every OpenAI-compatible server:
// streamed text, parallel tool calls assembled by index, usage from the include_usage chunk. The SDK is
// loaded on the provider's first call (lazyProvider): a command or gateway that calls no OpenAI model
// (doctor, tool and job commands, a start on another provider) does not pay for loading it.
import type OpenAI from 'openai';
import type { FinishReason, ModelRequest, Provider, StreamPart, Usage } from '../types.ts';
import { lazyProvider } from './lazy.ts';
import { type MaxTokensParam, toOpenAIParams } from './openai-messages.ts';
import { fromSdkError, guardStream, incompleteStream, streamText } from './stream-guard.ts';
import { tokenCount } from './token-count.ts';
import { parseToolInput } from './tool-input.ts';

/** What an OpenAI (or compatible) provider needs; retries are not the SDK's business (see retry.ts). */
export interface OpenAIProviderOptions {
  name?: string;
  /** Omitted for local servers that take no key: then no Authorization header is sent. */
  apiKey?: string;
  baseURL?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** A stream that sends nothing for this long is ended as stalled (undefined or 0: only the SDK's own timeout). */
  idleTimeoutMs?: number;
  /** `max_completion_tokens` for OpenAI itself (default), `max_tokens` for compatible servers. */
  maxTokensParam?: MaxTokensParam;
  /**
   * Azure OpenAI: `baseURL` is the resource endpoint (`https://<resource>.openai.azure.com`), the model is the
   * deployment name, and the key goes in the `api-key` header.
   */
  azure?: { apiVersion: string };
}

type OpenAISdk = typeof import('openai');

/** The client for `options`: OpenAI's, or its Azure client (deployment paths, `api-version`, `api-key`). */
function clientOf(sdk: OpenAISdk, options: OpenAIProviderOptions): OpenAI {
  const common = {
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    logLevel: 'off' as const,
  };
  if (options.azure) {
    // Every option is passed, so the SDK reads none of AZURE_OPENAI_ENDPOINT, OPENAI_API_VERSION, ... itself.
    return new sdk.AzureOpenAI({
      endpoint: options.baseURL,
      apiKey: options.apiKey ?? '',
      apiVersion: options.azure.apiVersion,
      organization: null,
      project: null,
      webhookSecret: null,
      ...common,
    });
  }
  return new sdk.default({
    apiKey: options.apiKey ?? 'no-key',
    baseURL: options.baseURL ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    webhookSecret: null,
    ...(options.apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
    ...common,
  });
}

/** Maps a Chat Completions `finish_reason`; servers that say `stop` after tool calls still mean tool calls. */
export function mapOpenAIFinishReason(reason: string | null | undefined, hadToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'stop':
      return hadToolCalls ? 'tool-calls' : 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'max-tokens';
    case 'content_filter':
      return 'content-filter';
    default:
      return hadToolCalls ? 'tool-calls' : 'other';
  }
}

/** Chat Completions usage as unified usage (`prompt_tokens` includes cached tokens; ours does not). */
export function mapOpenAIUsage(u: OpenAI.CompletionUsage): Usage {
  const cached = tokenCount(u.prompt_tokens_details?.cached_tokens) ?? 0;
  return {
    inputTokens: Math.max(0, (tokenCount(u.prompt_tokens) ?? 0) - cached),
    outputTokens: tokenCount(u.completion_tokens) ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** Creates an OpenAI or OpenAI-compatible provider; its SDK is loaded on the first call. */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const name = options.name ?? 'openai';
  return lazyProvider(name, async () => openAIProvider(name, options, await import('openai')));
}

function openAIProvider(name: string, options: OpenAIProviderOptions, sdk: OpenAISdk): Provider {
  const client = clientOf(sdk, options);
  const classify = (err: unknown) => fromSdkError(name, err, sdk.default);

  async function* run(request: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const stream = await client.chat.completions.create(toOpenAIParams(request, options.maxTokensParam), { signal });
    const calls = new Map<number, PendingCall>();
    let reasoning = '';
    let usage: Usage | undefined;
    let finish: string | null | undefined;
    const flushReasoning = function* (): Generator<StreamPart> {
      if (reasoning) yield { type: 'thinking', text: reasoning };
      reasoning = '';
    };
    for await (const chunk of stream) {
      alive();
      if (chunk.usage) usage = mapOpenAIUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      // DeepSeek and others stream reasoning beside the content; it is shown, never sent back.
      const thought =
        (delta as { reasoning_content?: string | null; reasoning?: string | null }).reasoning_content ??
        (delta as { reasoning?: string | null }).reasoning;
      if (thought) reasoning += thought;
      const text = delta.content ?? delta.refusal;
      if (text) {
        yield* flushReasoning();
        yield { type: 'text-delta', text };
      }
      delta.tool_calls?.forEach((tc, i) => {
        const index = Number.isSafeInteger(tc.index) ? tc.index : i;
        const call = calls.get(index) ?? { id: '', name: '', args: '' };
        // Pieces are joined as text: an object would join as "[object Object]", so it is refused.
        const id = streamText(name, tc.id, 'a tool call id');
        if (id) call.id = id;
        call.name += streamText(name, tc.function?.name, 'a tool name') ?? '';
        call.args += streamText(name, tc.function?.arguments, 'tool arguments') ?? '';
        calls.set(index, call);
      });
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    if (signal.aborted) return;
    if (finish === undefined) throw incompleteStream(name);
    yield* flushReasoning();
    const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
    for (const [index, call] of ordered) {
      yield { type: 'tool-call', id: call.id || `call_${index}`, name: call.name, input: parseToolInput(call.args) };
    }
    if (usage) yield { type: 'usage', usage, model: `${name}/${request.model}` };
    yield { type: 'finish', reason: mapOpenAIFinishReason(finish, calls.size > 0) };
  }

  return {
    name,
    stream: (request, signal) =>
      guardStream(name, signal, classify, (requestSignal, alive) => run(request, requestSignal, alive), {
        idleTimeoutMs: options.idleTimeoutMs,
      }),
  };
}
