// Public names of the turn loop: run it, its tool set, its cost meter, its vocabulary.
export { runLoop, CONTINUE_PROMPT, DEFAULT_MAX_TURNS, type LoopOptions } from './run-loop.ts';
export { nextStep, MAX_TOKEN_RECOVERIES, type StepFacts } from './next-step.ts';
export { createToolSet, type ToolCallOutcome, type ToolCallRequest, type ToolSet, type ToolSetOptions, type WasmToolSource } from './tool-set.ts';
export { createCostMeter, totalUsd, type CostMeter, type CostOf } from './cost-meter.ts';
export { compact, estimateTokens, needsCompaction, summarizeResult, DEFAULT_CONTEXT_WINDOW, DEFAULT_TOOL_RESULT_CHAR_BUDGET, type CompactionOptions } from './compaction.ts';
export { toolStatus, toolEndStatus } from './status-line.ts';
export { RunAbortedError } from './run-signal.ts';
export type { AgentEvent, AgentResult, CostFigures, EventSink, NextStep, Outcome, ToolCallRecord } from './types.ts';
