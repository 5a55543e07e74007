// The runner layer: turns one conversation's turn (a chat message or a job's run) into an agent
// run, with its policy, memory, budget, approvals and media. The gateway and the scheduler drive
// it; it knows the agent core, the store and the adapters' message shape, and nothing above.

export { type RunPolicy, type RunSettings, toAgentPolicy } from './agent-policy.ts';
export { type AgentRunnerOptions, createAgentRunner, type ToolContext, workspaceOf } from './agent-runner.ts';
export {
  type BudgetHooks,
  type BudgetRule,
  budgetHooks,
  chargedSubjects,
  createBudgetRule,
  dailyLimits,
  type Payer,
} from './budget-rule.ts';
export type { ChatCommand, CommandArgument, CommandContext } from './chat-command.ts';
export { memoryCommands } from './memory-commands.ts';
