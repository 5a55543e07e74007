// The message model every layer shares: a conversation's history as the store keeps it, the
// agent loop reads it and providers translate it. Token counts travel with it for usage records.

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

/** Token counts of one model call. `inputTokens` excludes cache reads and writes (total input = all three). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * How a failed run's answer starts (the runner writes it, then the provider and what failed): a
 * channel that draws model errors apart (the web chat's error bubble) knows them by it.
 */
export const RUN_ERROR_PREFIX = 'Sorry, I could not answer: ';
