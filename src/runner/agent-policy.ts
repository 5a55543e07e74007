// The one translation of a conversation's policy into what an agent run carries (tools, grants,
// approval rules, model, limits), for a chat turn and a scheduled job's run alike: a job and a
// chat turn under the same resolved policy get the same agent policy, and only what is theirs
// (the job's prompt, timeout and budget; nobody to ask for an approval) differs.
import type { AgentPolicy } from '../agent/run-agent.ts';
import type { SandboxLimits } from '../sandbox/index.ts';
import type { PolicyLimits, ResolvedPolicy } from './policy.ts';

/** The policy fields a run carries: a conversation's resolved policy, or a job's narrowed limits. */
export type RunPolicy = PolicyLimits & Pick<ResolvedPolicy, 'systemPrompt' | 'manager'>;

/** What belongs to the run rather than to the policy. */
export interface RunSettings {
  /** The conversation's workspace (the tools' `/`). */
  workspace: string;
  /** The sandbox's blocked networks and per-call limits (the config's, for every run). */
  sandbox: { block: string[]; limits: SandboxLimits };
  /** The run's prompt addition in place of the policy's (a job's: nobody is there to answer). */
  systemPrompt?: string;
  timeoutMs?: number;
  maxTurns?: number;
  /** The run's own cap in USD (a job's, within the daily budgets left). */
  budgetUsd?: number;
  /** Nobody can answer an approval question (a scheduled job): the rules stay, escalation is off. */
  unattended?: boolean;
}

/**
 * The agent policy of one run under `policy`.
 * Example: `runAgent({ policy: toAgentPolicy(resolved, { workspace, sandbox }), ... })`
 */
export function toAgentPolicy(policy: RunPolicy, run: RunSettings): AgentPolicy {
  const systemPrompt = run.systemPrompt ?? policy.systemPrompt;
  const approvals = policy.approvals && run.unattended ? { ...policy.approvals, allowEscalation: false } : undefined;
  return {
    access: policy.access,
    tools: policy.tools,
    workspace: run.workspace,
    network: { allow: policy.network.allow, block: run.sandbox.block },
    limits: run.sandbox.limits,
    ...(policy.model ? { model: policy.model } : {}),
    ...(policy.models ? { models: policy.models } : {}),
    ...(systemPrompt ? { systemPrompt } : {}),
    ...(approvals ? { approvals } : policy.approvals ? { approvals: policy.approvals } : {}),
    ...(run.timeoutMs ? { timeoutMs: run.timeoutMs } : {}),
    ...(run.maxTurns ? { maxTurns: run.maxTurns } : {}),
    ...(run.budgetUsd !== undefined ? { budgetUsd: run.budgetUsd } : {}),
    ...(policy.manager ? { manager: policy.manager } : {}),
  };
}
