// Public names of the agent core: one run (`runAgent`), the loop beneath it, skills, sub-agents,
// the system prompt, and the message model; the runtime that wires providers, tools and the
// sandbox for a run; the runner the gateway drives; and the tool and provider names the CLI
// and scheduler use. Other folders import the agent through this file.
export { runAgent, type AgentDeps, type AgentPolicy, type RunAgentOptions } from './run-agent.ts';
export { createAgentRuntime, type AgentRuntime, type AgentRuntimeOptions } from './runtime.ts';
export { createAgentRunner, workspaceOf, type AgentRunnerOptions, type ToolContext } from './gateway-runner.ts';
export {
  createToolRegistry,
  registerFile,
  toolCacheDir,
  toolDirs,
  intersectHosts,
  ToolRefusedError,
  type AccessMode,
  type BuiltinResult,
  type BuiltinTool,
  type RegisteredTool,
  type ToolSpec,
} from './tools/index.ts';
export { defaultModelSpec, listProviders, parseModelSpec } from './providers/index.ts';
export {
  runLoop,
  createToolSet,
  createCostMeter,
  totalUsd,
  toolStatus,
  CONTINUE_PROMPT,
  DEFAULT_MAX_TURNS,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_TOOL_RESULT_CHAR_BUDGET,
  type AgentEvent,
  type AgentResult,
  type CostFigures,
  type CostMeter,
  type CostOf,
  type EventSink,
  type LoopOptions,
  type NextStep,
  type Outcome,
  type ToolCallRecord,
  type ToolSet,
  type WasmToolSource,
} from './loop/index.ts';
export {
  createSkillCatalog,
  createSkillTool,
  expandSkill,
  listSkills,
  loadSkills,
  parseSkill,
  skillDirs,
  staticSkillCatalog,
  BUNDLED_SKILLS_DIR,
  SkillError,
  type Skill,
  type SkillArg,
  type SkillCatalog,
  type SkillList,
  type SkillProblem,
} from './skills/index.ts';
export { createAgentTools, DEFAULT_MAX_DEPTH, type ResolvedModel } from './subagents/index.ts';
export { BASE_PROMPT, SUBAGENT_PROMPT, buildSystemPrompt, readAgentsMd } from './system-prompt.ts';
export type { ContentPart, FinishReason, Message, ModelRequest, Provider, StreamPart, ToolDefinition, Usage } from './types.ts';
