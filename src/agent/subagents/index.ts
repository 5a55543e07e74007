// Public names of sub-agents: the agent/agent_result tools and the background job table.
export {
  createAgentTools,
  reportOf,
  DEFAULT_MAX_DEPTH,
  MAX_RESULT_WAIT_MS,
  SUBAGENT_DEFAULT_MAX_TURNS,
  SUBAGENT_MAX_TURNS,
  type ResolvedModel,
  type SubagentContext,
} from './agent-tool.ts';
export { createBackgroundJobs, type BackgroundJob, type BackgroundJobs } from './background-jobs.ts';
