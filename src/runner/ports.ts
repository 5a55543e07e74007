// What the gateway needs from the rest of boxbot, as small interfaces: the agent (one run per
// message), and durable delivery state (dedupe, journal, outbox: the store's DeliveryStore,
// re-exported below). main.ts plugs the real ones in; tests plug in fakes.
import type { InboundMessage, OutboundFile } from '../adapters/index.ts';
import type { AskApproval, Outcome, RunSlot } from '../agent/index.ts';
import { BoxbotError } from '../core/errors.ts';
import type { UsageReport } from '../store/index.ts';
import type { PreparedMedia } from './media/index.ts';
import type { Persist } from './persist.ts';
import type { Budget, ResolvedPolicy } from './policy.ts';

/**
 * The abort reason when the gateway shuts down: the run is interrupted, not answered; it runs again at the next start
 * (so it is retryable), or on the replica the conversation was handed over to (code `handed-over`).
 */
export class GatewayStoppingError extends BoxbotError<'stopping' | 'handed-over'> {
  /** `handedOver`: the conversation passed to another replica, which runs the message now. */
  constructor(readonly handedOver = false) {
    super(
      handedOver ? 'handed-over' : 'stopping',
      handedOver ? 'another replica now answers this conversation' : 'the gateway is stopping',
      true,
    );
  }
}

/** What the agent reports while it works (for streaming and status lines). */
export type GatewayAgentEvent =
  | { type: 'text-delta'; text: string }
  /** `detail`: the tool call's input as JSON; `callId`: the call's id (its end names it too). */
  | { type: 'status'; text: string; detail?: string; callId?: string }
  /** A managed run's executors, one line each (replaces the previous checklist). */
  | { type: 'checklist'; lines: string[] }
  /**
   * A tool ended; `text` says how (shown where a platform keeps a log of the work, see showActivity);
   * `output`: the start of its result, raw (untrusted, unredacted), of `outputChars` in all.
   */
  | { type: 'status-clear'; text?: string; callId?: string; output?: string; outputChars?: number };

/** One agent run for one message. */
export interface AgentRunRequest {
  message: InboundMessage;
  policy: ResolvedPolicy;
  signal: AbortSignal;
  onEvent: (e: GatewayAgentEvent) => void;
  /**
   * How the run's own store writes (its history) are made: the gateway's retry, which waits out
   * a full disk. Without it a write is tried once.
   */
  persist?: Persist;
  /** Asks a person about a tool call the policy's `approvals` guard (the gateway's buttons). */
  approve?: AskApproval;
  /** The message's files, saved in the workspace and read (the gateway's media step); absent without files. */
  media?: PreparedMedia;
  /**
   * The run slot the run holds (`gateway.concurrency`): the run gives it up while it waits on a model stream and
   * takes one again before its tools run. Absent: the run keeps whatever it holds.
   */
  slot?: RunSlot;
  /**
   * The message's save, when the run starts while it is written: true once it is durable and the
   * message new. The run reads meanwhile but calls no model and saves nothing before it resolves;
   * false (a duplicate, or not saved): it ends there, having changed nothing.
   */
  ready?: Promise<boolean>;
}

/** What `/usage` shows: spending of the conversation and of the user, today (UTC) and in total. */
export interface UsageView {
  day: string;
  conversation: UsageReport;
  user: UsageReport;
  budget?: Budget;
  /** What the conversation budget counts today, in USD: the channel's spending, all its threads' included. */
  channelUsdToday?: number;
}

/**
 * How a run ended: the agent loop's outcome, or one the runner decides before or after the loop
 * (`unavailable`: no model provider; `replayed`: the answer was already in the history;
 * `interrupted`: the gateway is stopping; `nothing-to-read`: the message's files left nothing to
 * answer, and the user was told why).
 */
export type RunOutcome = Outcome | 'unavailable' | 'replayed' | 'interrupted' | 'nothing-to-read';

/** The outcome of a run; `text` is what the user reads (an error is a short message). */
export interface AgentRunReply {
  text: string;
  outcome: RunOutcome;
  /** Files the run attached to its answer (the `send_file` tool), sent after the text in this order. */
  files?: OutboundFile[];
  /**
   * The answer is durable in the conversation's history, `text` exactly as it stands there, and no files: a run again
   * of the message (after a crash) sends this same text from the history, with no model call and no second charge.
   */
  replayable?: true;
}

/** The agent as the gateway sees it. History lives behind it. */
export interface AgentRunner {
  run(req: AgentRunRequest): Promise<AgentRunReply>;
  /** Forgets the conversation's history (`/reset`). */
  reset(conversationKey: string): Promise<void>;
  /** The tools `message`'s sender may use under `policy`, by name (for `/whoami`). */
  toolsFor(policy: ResolvedPolicy, message: InboundMessage): string[];
  // The conversation controls behind chat commands. Optional: a command whose method is missing
  // answers that it is not available here.
  /** Of `toolsFor`, those whose every call waits for approval (for `/whoami`). */
  approvalToolsFor?(policy: ResolvedPolicy, message: InboundMessage): string[];
  /**
   * Starts a fresh session (`/new`); the old history is archived, not lost. Once per `requestId`
   * (the command's message id): the command run again after a restart archives nothing more.
   */
  newSession?(conversationKey: string, requestId: string): Promise<{ archivedMessages: number }>;
  /** Has the model summarise the older turns into one (`/compact`); undefined when there is too little to. */
  compact?(req: {
    message: InboundMessage;
    policy: ResolvedPolicy;
    signal: AbortSignal;
  }): Promise<{ before: number; after: number } | undefined>;
  /** The model chosen with `/model` in this conversation, if any. */
  chosenModel?(conversationKey: string): Promise<string | undefined>;
  /** Records the model chosen with `/model` (undefined: back to the policy's). */
  chooseModel?(conversationKey: string, model: string | undefined): Promise<void>;
  /** Spending of the message's conversation and user (`/usage`). */
  usage?(message: InboundMessage, policy: ResolvedPolicy): Promise<UsageView>;
}

// Durable delivery state is the store's own interface: the store implements this port directly.
export type { DeliveryStore as GatewayStore, OutboxEntry, OutboxFile, PendingMessage } from '../store/index.ts';
