// Public names of the turn loop: run it, its tool set, its cost meter, its vocabulary.

export {
  type CompactionOptions,
  compact,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_TOOL_RESULT_CHAR_BUDGET,
  estimateTokens,
  needsCompaction,
  summarizeResult,
} from './compaction.ts';
export {
  type CostMeter,
  type CostOf,
  createCostMeter,
  type MeterHooks,
  type Reservation,
  totalUsd,
} from './cost-meter.ts';
export { MAX_TOKEN_RECOVERIES, nextStep, type StepFacts } from './next-step.ts';
export { carryTaint, UNRECORDED_RESULT, untrustedIn } from './provenance.ts';
export { CONTINUE_PROMPT, DEFAULT_MAX_TURNS, type LoopOptions, runLoop } from './run-loop.ts';
export { RunAbortedError } from './run-signal.ts';
export { toolEndStatus, toolStatus } from './status-line.ts';
export { SUMMARY_MARK, type Summarized, summarizeHistory, summaryCut } from './summarize.ts';
export {
  createToolSet,
  type ToolCallOutcome,
  type ToolCallRequest,
  type ToolSet,
  type ToolSetOptions,
  type WasmToolSource,
  type WorkspaceTrust,
} from './tool-set.ts';
export type {
  AgentEvent,
  AgentResult,
  CostFigures,
  EventSink,
  ExecutorStatus,
  NextStep,
  Outcome,
  ToolCallRecord,
} from './types.ts';
