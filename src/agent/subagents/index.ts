// Public names of sub-agents: the agent/agent_result tools and the background job table.
export {
  createAgentTools,
  DEFAULT_MAX_DEPTH,
  MAX_RESULT_WAIT_MS,
  type ResolvedModel,
  reportOf,
  SUBAGENT_DEFAULT_MAX_TURNS,
  SUBAGENT_MAX_TURNS,
  type SubagentContext,
} from './agent-tool.ts';
export { type BackgroundJob, type BackgroundJobs, createBackgroundJobs } from './background-jobs.ts';
