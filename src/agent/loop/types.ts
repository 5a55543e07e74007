// The loop's vocabulary: what a run ends with (outcome and result), the explicit next step after
// each model call, and the events a UI streams from. Plain data, no SDK or chat-platform types.
import type { Message, Usage } from '../types.ts';

/** How a run ended. `max-tokens`: the reply was still cut off after 3 continuations. */
export type Outcome = 'final' | 'max-turns' | 'max-tokens' | 'budget-exceeded' | 'cancelled' | 'timeout' | 'error';

/** What the loop does after a model call; decided by one pure function (next-step.ts). */
export type NextStep =
  | { type: 'final' }
  | { type: 'run-again' }
  | { type: 'recover-max-tokens'; attempt: number }
  | { type: 'max-tokens' }
  | { type: 'max-turns' }
  | { type: 'budget-exceeded' }
  | { type: 'cancelled' }
  | { type: 'timeout' };

/** One tool call the model made, as reported in the result. */
export interface ToolCallRecord {
  name: string;
  input: unknown;
  isError: boolean;
}

/** The spending figures of a run (children included). */
export interface CostFigures {
  /** Sum of the calls whose cost is known. */
  knownUsd: number;
  /** Model calls whose cost is unknown (no price for the model); they are not counted as zero. */
  unknownCalls: number;
  limitUsd?: number;
}

/** What a run returns; `boxbot ask --format json` prints it without `messages`. */
export interface AgentResult {
  /** The final answer (the text of the last model turn(s); continuations are joined). */
  text: string;
  outcome: Outcome;
  toolCalls: ToolCallRecord[];
  /** Tokens of every model call of the run, sub-agents included. */
  usage: Usage;
  /** Cost in USD, sub-agents included; null when some call's cost is unknown. */
  costUsd: number | null;
  cost: CostFigures;
  /** The whole conversation after the run (history, input, new messages), as compacted. */
  messages: Message[];
  /** Model calls made by this loop (not counting sub-agents). */
  turns: number;
  /** Set when outcome is `error`: one line naming what failed. */
  error?: string;
}

/** One executor's line in a managed run's checklist. */
export interface ExecutorStatus {
  id: string;
  executor: string;
  /** The task, in a few words. */
  task: string;
  state: 'waiting' | 'running' | 'done' | 'failed' | 'stopped';
  /** Known spending so far, in USD. */
  costUsd: number;
  /** Why it failed or stopped, or how it finished. */
  detail?: string;
}

/** How much of a tool's result a `tool-end` event carries (the web chat shows less: see its clip). */
export const TOOL_OUTPUT_PREVIEW = 16_384;

/**
 * Events for a UI. Statuses are short human lines ("reading src/main.ts…"), never raw payloads; the raw
 * input and the start of the output travel apart (`tool-start.input`, `tool-end.output`), for a UI to redact.
 */
export type AgentEvent =
  | { type: 'turn-start'; turn: number }
  | { type: 'text-delta'; text: string }
  | { type: 'thinking' }
  /** `input`: the call's input as the model gave it (shown to the user, who sees the tool's work). */
  | { type: 'tool-start'; id: string; name: string; status: string; input?: unknown; agentId?: string }
  | {
      type: 'tool-end';
      id: string;
      name: string;
      status: string;
      isError: boolean;
      durationMs: number;
      agentId?: string;
      /**
       * The start of the result's text (at most TOOL_OUTPUT_PREVIEW characters; untrusted, unredacted), for a
       * channel that lets its user expand a tool entry (the web chat, which redacts it and shows it as text).
       */
      output?: string;
      /** The whole result's length in characters (`output` is cut when it is longer). */
      outputChars?: number;
    }
  | { type: 'compacted'; removedChars: number; results: number }
  /** The model summarised the older turns (`replaced` messages) into one. */
  | { type: 'summarized'; replaced: number }
  | { type: 'recovering'; attempt: number }
  /** A managed run's executors changed state (the whole list, for a checklist edited in place). */
  | { type: 'executors'; items: ExecutorStatus[] }
  | { type: 'done'; outcome: Outcome };

/** Receives events; a throwing listener never breaks the loop. */
export type EventSink = (event: AgentEvent) => void;
