// What the gateway's own commands reach beyond the message: the agent's conversation controls,
// the conversation's run state, the approvals desk, and a place in the conversation's queue.
// The gateway builds one per command; tests build one from fakes.
import type { CommandContext } from '../../runner/chat-command.ts';
import type { ResolvedPolicy } from '../../runner/policy.ts';
import type { AgentRunner } from '../../runner/ports.ts';
import type { ApprovalDesk } from '../approvals.ts';

/** A conversation's run state: its queue's tail, the turn running, the work queued or running. */
export interface ConversationState {
  tail: Promise<void>;
  running?: AbortController;
  queued: number;
  /** The write of its last answer's end, while under way (never rejects): its next answer goes out after it. */
  settling?: Promise<void>;
}

/** A command's context at the gateway. */
export interface GatewayCommandContext extends CommandContext {
  agent: AgentRunner;
  /** The conversation's run state (read and aborted by /stop, /new, /reset; shown by /status). */
  conversation: ConversationState;
  approvals: Pick<ApprovalDesk, 'decide' | 'waiting'>;
  /** The policy with the model chosen by /model applied. */
  chosenPolicy(): Promise<ResolvedPolicy>;
  /** The /help text: the commands the caller may run here. */
  helpText(): string;
  /** Runs `work` behind the conversation's queued turns, as a turn of its own (a failure is logged as `what`). */
  behindTurns(id: string, work: () => Promise<void>, what: string): void;
  /** Marks the message answered without a reply of its own. */
  finish(): Promise<void>;
  /** Aborted when the gateway stops. */
  stopping: AbortSignal;
  /** The days this channel's messages are kept for digests (policy `history.record`); absent: not recorded. */
  recordedDays?: number;
}
