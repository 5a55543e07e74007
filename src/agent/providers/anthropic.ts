// Anthropic Messages API via @anthropic-ai/sdk: streamed text, tool use assembled from
// input_json_delta fragments, thinking blocks with signatures, usage with cache tokens. Notes a model
// writes for the user between tool calls arrive in thinking blocks on newer models; they are shown as text too.
// The SDK is imported at the provider's first call: a gateway that never calls Anthropic never loads it.
import type Anthropic from '@anthropic-ai/sdk';
import type { FinishReason, ModelRequest, Provider, StreamPart, Usage } from '../types.ts';
import { anthropicRequestExtras, toAnthropicParams } from './anthropic-messages.ts';
import { lazyProvider } from './lazy.ts';
import { fromSdkError, guardStream, incompleteStream } from './stream-guard.ts';
import { tokenCount } from './token-count.ts';
import { parseToolInput } from './tool-input.ts';

/** What an Anthropic provider needs; retries are not the SDK's business (see retry.ts). */
export interface AnthropicProviderOptions {
  name?: string;
  apiKey: string;
  baseURL?: string;
  fetch?: typeof fetch;
  /** Per-request timeout in ms (default: the SDK's 10 minutes). */
  timeoutMs?: number;
  /** A stream that sends nothing for this long is ended as stalled (undefined or 0: only the SDK's own timeout). */
  idleTimeoutMs?: number;
  /** Ask the API to cache the request prefix (default true; turn off for proxies that reject `cache_control`). */
  promptCaching?: boolean;
  /**
   * A client of the same SDK family to use instead of one made from the options above: Anthropic's Bedrock and
   * Vertex clients speak the Messages API through their hosts (anthropic-hosts.ts).
   */
  client?: { messages: Pick<Anthropic['messages'], 'create'> };
}

/** Maps Anthropic's `stop_reason` to the unified finish reason. */
export function mapAnthropicStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
      return 'max-tokens';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other'; // pause_turn, model_context_window_exceeded, anything newer
  }
}

/** Anthropic usage (either the message_start or a message_delta shape) merged into `into`. */
export function mergeAnthropicUsage(
  into: Usage,
  u: {
    input_tokens?: number | null;
    output_tokens?: number | null;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
  },
): Usage {
  // message_delta counts are cumulative, so later values replace earlier ones.
  return {
    inputTokens: tokenCount(u.input_tokens) ?? into.inputTokens,
    outputTokens: tokenCount(u.output_tokens) ?? into.outputTokens,
    cacheReadTokens: tokenCount(u.cache_read_input_tokens) ?? into.cacheReadTokens ?? 0,
    cacheWriteTokens: tokenCount(u.cache_creation_input_tokens) ?? into.cacheWriteTokens ?? 0,
  };
}

type Block =
  | { type: 'text' }
  | { type: 'thinking'; text: string; signature: string; shown: boolean }
  | { type: 'redacted'; data: string }
  | { type: 'tool'; id: string; name: string; json: string; input: unknown }
  | { type: 'other' };

/** Creates the Anthropic provider; its SDK is loaded at the first call. */
export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  const name = options.name ?? 'anthropic';
  return lazyProvider(name, async () => anthropicProvider(name, options, (await import('@anthropic-ai/sdk')).default));
}

/** The provider over the loaded SDK (its client, and its error classes for a host's client too). */
function anthropicProvider(name: string, options: AnthropicProviderOptions, sdk: typeof Anthropic): Provider {
  const client =
    options.client ??
    new sdk({
      apiKey: options.apiKey,
      baseURL: options.baseURL ?? 'https://api.anthropic.com',
      maxRetries: 0,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      logLevel: 'off',
      openTelemetry: false,
    });
  const classify = (err: unknown) => fromSdkError(name, err, sdk);

  async function* run(request: ModelRequest, signal: AbortSignal, alive: () => void): AsyncGenerator<StreamPart> {
    const params = toAnthropicParams(request, options.promptCaching ?? true);
    const { betas, notesForUser } = anthropicRequestExtras(params);
    const stream = await client.messages.create(params, {
      signal,
      ...(betas.length ? { headers: { 'anthropic-beta': betas.join(',') } } : {}),
    });
    const blocks = new Map<number, Block>();
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let stopReason: string | null | undefined;
    let stopped = false;
    let saidSomething = false;
    // A note goes to the user as text, set off by a blank line from what was said before it; the thinking block
    // itself still goes back verbatim, and the text copy is dropped from it then (anthropic-messages.ts).
    const say = (text: string, note?: Extract<Block, { type: 'thinking' }>): StreamPart => {
      const lead = note && !note.shown && saidSomething ? '\n\n' : '';
      if (note) note.shown = true;
      saidSomething = true;
      return { type: 'text-delta', text: lead + text };
    };
    for await (const event of stream) {
      alive();
      switch (event.type) {
        case 'message_start':
          usage = mergeAnthropicUsage(usage, event.message.usage);
          break;
        case 'content_block_start': {
          const b = event.content_block;
          blocks.set(
            event.index,
            b.type === 'text'
              ? { type: 'text' }
              : b.type === 'thinking'
                ? { type: 'thinking', text: b.thinking ?? '', signature: b.signature ?? '', shown: false }
                : b.type === 'redacted_thinking'
                  ? { type: 'redacted', data: b.data }
                  : b.type === 'tool_use'
                    ? { type: 'tool', id: b.id, name: b.name, json: '', input: b.input }
                    : { type: 'other' },
          );
          const block = blocks.get(event.index);
          if (b.type === 'text' && b.text) yield say(b.text);
          else if (notesForUser && block?.type === 'thinking' && block.text) yield say(block.text, block);
          break;
        }
        case 'content_block_delta': {
          const block = blocks.get(event.index);
          const d = event.delta;
          if (d.type === 'text_delta') {
            if (d.text) yield say(d.text);
          } else if (d.type === 'thinking_delta' && block?.type === 'thinking') {
            block.text += d.thinking;
            if (notesForUser && d.thinking) yield say(d.thinking, block);
          } else if (d.type === 'signature_delta' && block?.type === 'thinking') block.signature += d.signature;
          else if (d.type === 'input_json_delta' && block?.type === 'tool') block.json += d.partial_json;
          break;
        }
        case 'content_block_stop': {
          const block = blocks.get(event.index);
          if (block?.type === 'thinking') {
            yield { type: 'thinking', text: block.text, ...(block.signature ? { signature: block.signature } : {}) };
          } else if (block?.type === 'redacted') {
            yield { type: 'thinking', text: block.data, redacted: true };
          } else if (block?.type === 'tool') {
            const input = block.json.trim() === '' ? (block.input ?? {}) : parseToolInput(block.json);
            yield { type: 'tool-call', id: block.id, name: block.name, input };
          }
          break;
        }
        case 'message_delta':
          stopReason = event.delta.stop_reason ?? stopReason;
          usage = mergeAnthropicUsage(usage, event.usage);
          break;
        case 'message_stop':
          stopped = true;
          break;
      }
    }
    if (signal.aborted) return;
    if (!stopped && stopReason === undefined) throw incompleteStream(name);
    yield { type: 'usage', usage, model: `${name}/${request.model}` };
    yield { type: 'finish', reason: mapAnthropicStopReason(stopReason) };
  }

  return {
    name,
    stream: (request, signal) =>
      guardStream(name, signal, classify, (requestSignal, alive) => run(request, requestSignal, alive), {
        idleTimeoutMs: options.idleTimeoutMs,
      }),
  };
}
