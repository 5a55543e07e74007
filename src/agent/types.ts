// The agent's message model and the narrow provider interface every LLM backend implements.
// Providers translate to and from these shapes; the loop never sees an SDK type.

export type { ContentPart, Message, ResultSource, Usage } from '../core/message.ts';

import type { Message, Usage } from '../core/message.ts';

/** What the model may call: a name, a description and a JSON Schema for the input. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One model call. `model` is the provider's own model id (without the `provider/` prefix). */
export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolDefinition[];
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * Asks Anthropic models to think: a budget of this many tokens on models that take one, adaptive thinking
   * (with this much room added to the output limit) on Claude 4.6 and later. Ignored by providers without thinking.
   */
  thinkingBudgetTokens?: number;
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'tool-calls' | 'max-tokens' | 'content-filter' | 'other';

/**
 * The stream a provider yields for one call. `tool-call` parts carry complete, parsed input (the raw
 * string if the model sent invalid JSON); `thinking` parts are complete blocks (text + signature), in order.
 */
export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'thinking'; text: string; signature?: string; redacted?: boolean }
  | { type: 'tool-call'; id: string; name: string; input: unknown }
  /**
   * Sent once, after the content. `model` is the `provider/model` that produced it (differs from the request after a
   * fallback).
   */
  | { type: 'usage'; usage: Usage; model?: string }
  | { type: 'finish'; reason: FinishReason }
  | { type: 'error'; error: Error };

/** An LLM backend. `stream` yields parts until `finish` (or throws a ProviderError). */
export interface Provider {
  /** The provider's name as used in `provider/model` strings (e.g. `anthropic`, `groq`). */
  readonly name: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart>;
}
