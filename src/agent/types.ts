// The agent's message model and the narrow provider interface every LLM backend implements.
// Providers translate to and from these shapes; the loop never sees an SDK type.

/** A piece of a message. Thinking blocks are kept verbatim (Anthropic requires them back). */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: string; data: string /* base64 */ }
  | { type: 'tool-call'; id: string; name: string; input: unknown }
  | { type: 'tool-result'; id: string; name: string; content: string; isError: boolean; from?: ResultSource }
  | { type: 'thinking'; text: string; signature?: string; redacted?: boolean };

/**
 * Where a tool result came from, stored with it in the history: later runs whose context still
 * holds it start tainted (approvals.afterUntrusted), not only the run that read it.
 */
export interface ResultSource {
  /** The tool that produced it. */
  tool: string;
  /** The tool had network access. */
  network?: true;
  /** The MCP server that answered. */
  mcp?: string;
  /** What it holds that the run cannot trust, in words for the person approving; absent: trusted. */
  untrusted?: string;
}

/** One message of a conversation's history. Tool results travel in `user` messages. */
export interface Message {
  role: 'user' | 'assistant';
  content: ContentPart[];
  /**
   * Untrusted content this message retells or was written after reading (a summary of tainted
   * turns, the answer of a run that read a web page), stored with it for later runs' taint.
   */
  untrusted?: string[];
}

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

/** Token counts of one model call. `inputTokens` excludes cache reads and writes (total input = all three). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
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
