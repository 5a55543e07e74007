// Public names of the agent core: one run (`runAgent`), the loop beneath it, skills, sub-agents,
// the system prompt, and the message model; the runtime that wires providers, tools and the
// sandbox for a run; and the tool and provider names the CLI
// and scheduler use. Other folders import the agent through this file.

export {
  type AgentEvent,
  type AgentResult,
  CONTINUE_PROMPT,
  type CostFigures,
  type CostMeter,
  type CostOf,
  createCostMeter,
  createToolSet,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_TURNS,
  DEFAULT_TOOL_RESULT_CHAR_BUDGET,
  type EventSink,
  type ExecutorStatus,
  type LoopOptions,
  type MeterHooks,
  type NextStep,
  type Outcome,
  type Reservation,
  runLoop,
  type ToolCallRecord,
  type ToolSet,
  toolStatus,
  totalUsd,
  type WasmToolSource,
  type WorkspaceTrust,
} from './loop/index.ts';
export { createManagerTools, type ExecutorSpec, type ManagerSpec } from './managed/manager.ts';
export {
  checkProviderKey,
  checkTranscriptionModel,
  DEFAULT_MODELS,
  defaultModelSpec,
  listProviders,
  ModelConfigError,
  PROVIDER_PRESETS,
  parseModelSpec,
  type RunSlot,
  resolveModel,
  unpricedModels,
} from './providers/index.ts';
export {
  type AgentDeps,
  type AgentPolicy,
  approvalToolNames,
  offeredToolNames,
  type RunAgentOptions,
  runAgent,
} from './run-agent.ts';
export { type AgentRuntime, type AgentRuntimeOptions, createAgentRuntime } from './runtime.ts';
export {
  BUNDLED_SKILLS_DIR,
  createSkillCatalog,
  createSkillTool,
  expandSkill,
  listSkills,
  loadSkills,
  parseSkill,
  type Skill,
  type SkillArg,
  type SkillCatalog,
  SkillError,
  type SkillList,
  type SkillProblem,
  skillDirs,
  staticSkillCatalog,
} from './skills/index.ts';
export { createAgentTools, DEFAULT_MAX_DEPTH, type ResolvedModel } from './subagents/index.ts';
export { BASE_PROMPT, buildSystemPrompt, readAgentsMd, SUBAGENT_PROMPT } from './system-prompt.ts';
export {
  type AccessMode,
  type ApprovalAnswer,
  type ApprovalQuestion,
  type ApprovalReason,
  type ApprovalRules,
  type AskApproval,
  type BuiltinResult,
  type BuiltinTool,
  createToolRegistry,
  intersectHosts,
  type RegisteredTool,
  registerFile,
  ToolRefusedError,
  type ToolSpec,
  toolCacheDir,
  toolDirs,
  unlinkedBundledToolsHint,
} from './tools/index.ts';
export type {
  ContentPart,
  FinishReason,
  Message,
  ModelRequest,
  Provider,
  ResultSource,
  StreamPart,
  ToolDefinition,
  Usage,
} from './types.ts';
export {
  createWorkspaceRecords,
  holdsOtherThan,
  type WorkspaceRecord,
  type WorkspaceRecords,
  workspaceTaint,
} from './workspace-record.ts';
