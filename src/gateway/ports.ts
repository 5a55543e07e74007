// What the gateway needs from the rest of boxbot, as small interfaces: the agent (one run per
// message), and durable state (journal, outbox, dedupe). main.ts plugs the real ones in;
// tests plug in fakes.
import type { InboundMessage, OutboundTarget } from '../adapters/index.ts';
import type { Outcome } from '../agent/index.ts';
import type { ResolvedPolicy } from './policy.ts';

/** The abort reason when the gateway shuts down: the run is interrupted, not answered; it runs again at the next start. */
export class GatewayStoppingError extends Error {
  constructor() {
    super('the gateway is stopping');
    this.name = 'GatewayStoppingError';
  }
}

/** What the agent reports while it works (for streaming and status lines). */
export type GatewayAgentEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'status'; text: string }
  | { type: 'status-clear' };

/** One agent run for one message. */
export interface AgentRunRequest {
  message: InboundMessage;
  policy: ResolvedPolicy;
  signal: AbortSignal;
  onEvent: (e: GatewayAgentEvent) => void;
}

/**
 * How a run ended: the agent loop's outcome, or one the runner decides before or after the loop
 * (`unavailable`: no model provider; `replayed`: the answer was already in the history;
 * `interrupted`: the gateway is stopping).
 */
export type RunOutcome = Outcome | 'unavailable' | 'replayed' | 'interrupted';

/** The outcome of a run; `text` is what the user reads (an error is a short message). */
export interface AgentRunReply {
  text: string;
  outcome: RunOutcome;
}

/** The agent as the gateway sees it. History lives behind it. */
export interface AgentRunner {
  run(req: AgentRunRequest): Promise<AgentRunReply>;
  /** Forgets the conversation's history (`/reset`). */
  reset(conversationKey: string): Promise<void>;
  /** The tools `message`'s sender may use under `policy`, by name (for `/whoami`). */
  toolsFor(policy: ResolvedPolicy, message: InboundMessage): string[];
}

/** A reply being delivered: chunks with receipts, so a restart resumes without resending. */
export interface OutboxEntry {
  id: string;
  conversationKey: string;
  target: OutboundTarget;
  chunks: string[];
  /** Platform message id per delivered chunk (null = not yet). */
  receipts: (string | null)[];
  /** The streamed message the first chunk replaces, if any. */
  streamMessageId?: string;
  /** What that message shows now (not persisted: after a restart the edit is simply made). */
  previewShown?: string;
  createdAt: string;
}

/** An accepted message not yet answered, and the preview its interrupted answer left (if any). */
export interface PendingMessage {
  message: InboundMessage;
  previewMessageId?: string;
}

/** Durable gateway state. */
export interface GatewayStore {
  /** Records an accepted message; false when this platform event id was seen before. */
  accept(message: InboundMessage): Promise<boolean>;
  /** Marks an accepted message answered. */
  finish(messageId: string): Promise<void>;
  /** Accepted messages not yet answered (resumed at start). */
  pending(): Promise<PendingMessage[]>;
  /** Journals the preview message of a pending message's answer (so a run again edits it). */
  notePreview(messageId: string, previewMessageId: string): Promise<void>;
  putOutbox(entry: OutboxEntry): Promise<void>;
  receipt(entryId: string, index: number, platformMessageId: string): Promise<void>;
  /** The reply was delivered; with `answeredMessageId`, that message is answered too (one write). */
  finishOutbox(entryId: string, answeredMessageId?: string): Promise<void>;
  /**
   * The platform refused the reply for good: it is kept for inspection but never resumed, and
   * `answeredMessageId` (if given) is answered, so neither is tried again at the next start.
   */
  failOutbox(entryId: string, error: string, answeredMessageId?: string): Promise<void>;
  pendingOutbox(): Promise<OutboxEntry[]>;
  /** Whether the bot has answered in this conversation before (thread follow-ups). */
  answered(conversationKey: string): Promise<boolean>;
}
