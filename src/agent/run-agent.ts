// The one entry the CLI (`boxbot ask`/`chat`), the chat gateway and scheduled jobs call: one
// agent run for one input, under a conversation's policy. It assembles the system prompt, the
// permitted tools (WASM, skill, sub-agents, extras) and the budget, then runs the loop.
// Example:
//   const r = await runAgent({ history, input: 'What is in notes.txt?', policy, deps, signal, onEvent });
//   if (r.outcome === 'final') reply(r.text);

import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { type CostOf, createCostMeter, type MeterHooks, totalUsd } from './loop/cost-meter.ts';
import { carryTaint, untrustedIn } from './loop/provenance.ts';
import { runLoop } from './loop/run-loop.ts';
import { createToolSet, type ToolSet, type WasmToolSource, type WorkspaceTrust } from './loop/tool-set.ts';
import type { AgentResult, EventSink } from './loop/types.ts';
import { createManagerTools, type ExecutorSpec, type ManagerSpec } from './managed/manager.ts';
import type { SkillCatalog } from './skills/load.ts';
import { createSkillRunTool } from './skills/skill-run.ts';
import { createSkillTool } from './skills/skill-tool.ts';
import {
  createAgentTools,
  DEFAULT_MAX_DEPTH,
  type ResolvedModel,
  type SubagentContext,
} from './subagents/agent-tool.ts';
import { createBackgroundJobs } from './subagents/background-jobs.ts';
import {
  BASE_PROMPT,
  buildSystemPrompt,
  EXECUTOR_PROMPT,
  MANAGER_PROMPT,
  readAgentsMd,
  SUBAGENT_PROMPT,
} from './system-prompt.ts';
import {
  type ApprovalGate,
  type AskApproval,
  createApprovalGate,
  permitsWithApproval,
  toolsNeedingApproval,
} from './tools/approvals.ts';
import type { BuiltinTool } from './tools/builtin.ts';
import type { HostToolGrant, ToolPolicy } from './tools/grants.ts';
import type { ContentPart, Message } from './types.ts';

/** A conversation's resolved policy as the agent needs it. */
export interface AgentPolicy extends ToolPolicy {
  /** `provider/model`; undefined = the configured default (resolveModel decides). */
  model?: string;
  /** Other `provider/model`s sub-agents may use (undefined: only the run's own model). */
  models?: string[];
  /** The conversation's configured prompt, appended last. */
  systemPrompt?: string;
  budgetUsd?: number;
  maxTurns?: number;
  /** Total time of the run. */
  timeoutMs?: number;
  /** Sub-agent nesting limit (default 2; 0 = no `agent` tool). */
  maxSubagentDepth?: number;
  /** Managed mode: the run only delegates, to these executors of `AgentDeps.agents`. */
  manager?: ManagerSpec;
}

/** What the agent is wired to (src/main.ts builds it once). */
export interface AgentDeps {
  /** `provider/model` (or undefined for the default) → a callable model; throws naming what is wrong. */
  resolveModel(spec: string | undefined): ResolvedModel;
  registry: WasmToolSource;
  sandbox: Sandbox;
  skills?: Pick<SkillCatalog, 'list' | 'get'>;
  costOf: CostOf;
  /** Context window in tokens of `provider/model`; default 128,000. */
  contextWindowOf?: (modelId: string) => number | undefined;
  logger?: Logger;
  /** Replaces the default base prompt. */
  basePrompt?: string;
  /** More built-in tools (e.g. the scheduler's), filtered by the policy like any other. */
  builtins?: BuiltinTool[];
  /** Cap on one tool result (default 30,000 characters). */
  maxResultChars?: number;
  /** Tool-result characters kept before compaction (default 50,000). */
  toolResultCharBudget?: number;
  /** The executors managed runs may delegate to (config `agents`). */
  agents?: Record<string, ExecutorSpec>;
  /** The host's own grants of bundled tools by name (the configured web_search service and its key). */
  hostGrants?: Readonly<Record<string, HostToolGrant>>;
}

/** One run's input. */
export interface RunAgentOptions {
  /** Earlier messages of the conversation (not modified). */
  history?: Message[];
  input: string | ContentPart[];
  /** Remembered notes for the system prompt (a bounded digest; see agent/memory). */
  memories?: string;
  policy: AgentPolicy;
  deps: AgentDeps;
  signal?: AbortSignal;
  onEvent?: EventSink;
  /** Asks a person about a call the policy's `approvals` guard; without it such calls are refused. */
  approve?: AskApproval;
  /** The refusal's reason when `approve` is absent (e.g. "a scheduled job has nobody to ask"). */
  nobodyToAsk?: string;
  /**
   * Untrusted content the run starts with beyond what the history's own provenance says (messages
   * from other users, their notes), for `approvals.afterUntrusted`.
   */
  untrusted?: string[];
  /** Durable usage and daily budgets (the gateway's ledger). */
  meterHooks?: MeterHooks;
  /** Who put the workspace's files there, as far as taint goes (default: all of it the requester's). */
  workspace?: WorkspaceTrust;
  /**
   * The model is not called before this resolves; false ends the run before it (outcome `cancelled`, nothing
   * spent). The prompt and the tools are made meanwhile (the gateway: while the message's save is written).
   */
  ready?: Promise<boolean>;
}

const errorResult = (messages: Message[], error: string): AgentResult => ({
  text: '',
  outcome: 'error',
  toolCalls: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
  cost: { knownUsd: 0, unknownCalls: 0 },
  messages,
  turns: 0,
  error,
});

/** Runs the agent once; never throws (failures are outcome `error` with a one-line reason). */
export async function runAgent(o: RunAgentOptions): Promise<AgentResult> {
  const { policy, deps } = o;
  const log = deps.logger ?? silentLogger;
  const input: Message = {
    role: 'user',
    content: typeof o.input === 'string' ? [{ type: 'text', text: o.input }] : o.input,
  };
  const messages = [...(o.history ?? []), input];
  let model: ResolvedModel;
  try {
    model = deps.resolveModel(policy.model);
  } catch (e) {
    return errorResult(messages, errorMessage(e));
  }
  const meter = createCostMeter(deps.costOf, policy.budgetUsd, o.meterHooks);
  const gate = createApprovalGate(policy.approvals, o.approve, o.nobodyToAsk);
  const skills = deps.skills?.list() ?? [];
  const agentsMd = await readAgentsMd(policy.workspace, log);
  // A manager is told about delegation only: skills and the workspace's instructions are for executors.
  const managed = !!policy.manager;
  const system = buildSystemPrompt({
    base: managed ? MANAGER_PROMPT : (deps.basePrompt ?? BASE_PROMPT),
    ...(agentsMd && !managed ? { agentsMd } : {}),
    skills: managed ? [] : skills,
    ...(o.memories ? { memories: o.memories } : {}),
    ...(policy.systemPrompt ? { configured: policy.systemPrompt } : {}),
  });

  const jobs = createBackgroundJobs();
  const pending: Promise<unknown>[] = [];
  const tools = runTools(policy, deps, {
    model,
    meter,
    jobs,
    pending,
    childSystem: (names) =>
      buildSystemPrompt({
        base: SUBAGENT_PROMPT,
        ...(agentsMd ? { agentsMd } : {}),
        skills: names.includes('skill') ? skills : [],
      }),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    logger: log,
    gate,
    ...(o.workspace ? { workspace: o.workspace } : {}),
  });
  // The workspace's AGENTS.md joins the prompt: it is as untrusted as the folder it is in.
  if (agentsMd && o.workspace?.untrusted) gate.tookIn(o.workspace.untrusted);
  // The run starts tainted while its context holds untrusted content, whichever run took it in.
  for (const u of [...(o.untrusted ?? []), ...untrustedIn(o.history ?? [], tools.mayBringOutside)]) gate.tookIn(u);
  if (o.ready && !(await o.ready)) return { ...errorResult(messages, 'not started'), outcome: 'cancelled' };
  const contextWindow = deps.contextWindowOf?.(model.id);
  const result = await runLoop({
    provider: model.provider,
    model: model.model,
    modelId: model.id,
    system,
    messages,
    tools,
    meter,
    ...(policy.maxTurns !== undefined ? { maxTurns: policy.maxTurns } : {}),
    ...(contextWindow ? { contextWindow } : {}),
    ...(deps.toolResultCharBudget !== undefined ? { toolResultCharBudget: deps.toolResultCharBudget } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(policy.timeoutMs !== undefined ? { timeoutMs: policy.timeoutMs } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    logger: log,
  });
  // Background sub-agents nobody fetched are stopped with the run; their spending still counts.
  await jobs.abortAll();
  // A stopped run's executors stop with it (they share its signal): their ends are reported before it returns.
  await Promise.allSettled(pending);
  const cost = meter.figures();
  // The run's last message keeps what the run read: an answer written after untrusted content
  // (a sub-agent's web page included) taints the runs that later send it to the model.
  const carried = carryTaint(result.messages, gate.untrusted);
  return { ...result, messages: carried, usage: meter.usage, cost, costUsd: totalUsd(cost) };
}

/** What the sub-agent tools of a top-level run are bound to (the run's model, meter and jobs). */
type RunBinding = Pick<SubagentContext, 'model' | 'meter' | 'jobs' | 'childSystem' | 'onEvent' | 'logger'> & {
  gate?: ApprovalGate;
  workspace?: WorkspaceTrust;
  /** Work the run's tools started that the run waits for when it ends (a manager's executors). */
  pending?: Promise<unknown>[];
};

/**
 * The tool set a top-level run offers the model: the skill tool (when skills exist), the deps'
 * built-ins, the sub-agent tools (unless the policy's depth is 0, or no model binds them) and the
 * registry's WASM tools,
 * all filtered by the policy. One function, so /whoami lists exactly what a run offers.
 */
function runTools(policy: AgentPolicy, deps: AgentDeps, run: RunBinding | undefined): ToolSet {
  if (policy.manager && run) return managerToolSet(policy, policy.manager, deps, run);
  let tools: ToolSet | undefined;
  const skills = deps.skills?.list() ?? [];
  const builtins: BuiltinTool[] = [
    ...(deps.skills && skills.length ? [createSkillTool(deps.skills, () => tools?.permittedNames() ?? [])] : []),
    // Only when a skill has a script: then the model may run it, in the sandbox, under this policy.
    ...(deps.skills && skills.some((s) => s.resources?.scripts.length)
      ? [createSkillRunTool({ catalog: deps.skills, registry: deps.registry, sandbox: deps.sandbox, policy })]
      : []),
    ...(deps.builtins ?? []),
  ];
  const maxDepth = policy.maxSubagentDepth ?? DEFAULT_MAX_DEPTH;
  const { gate, workspace, pending: _pending, ...binding } = run ?? {};
  const agentTools =
    run && maxDepth > 0
      ? createAgentTools({
          ...(binding as Omit<RunBinding, 'gate' | 'workspace'>),
          depth: 0,
          maxDepth,
          tools: () => tools!,
          builtins,
          ...(policy.models ? { models: policy.models } : {}),
          resolveModel: (spec) => deps.resolveModel(spec),
          ...(deps.contextWindowOf ? { contextWindowOf: deps.contextWindowOf } : {}),
          ...(deps.toolResultCharBudget !== undefined ? { toolResultCharBudget: deps.toolResultCharBudget } : {}),
        })
      : [];
  tools = createToolSet({
    wasm: deps.registry,
    builtins: [...builtins, ...agentTools],
    policy,
    sandbox: deps.sandbox,
    ...(deps.maxResultChars !== undefined ? { maxResultChars: deps.maxResultChars } : {}),
    ...(gate ? { gate } : {}),
    ...(workspace ? { workspace } : {}),
    ...(deps.hostGrants ? { hostGrants: deps.hostGrants } : {}),
  });
  return tools;
}

const NO_WASM_TOOLS: WasmToolSource = { list: () => [], get: () => undefined };

/**
 * A managed run's tools: delegation only. Each executor's tools are the run's permitted tools (WASM
 * and the deps' built-ins, never the sub-agent tools) in the executor's own folder, narrowed to its
 * `tools`, under the same approval gate.
 */
function managerToolSet(policy: AgentPolicy, manager: ManagerSpec, deps: AgentDeps, run: RunBinding): ToolSet {
  const { gate, workspace } = run;
  const common = {
    sandbox: deps.sandbox,
    ...(deps.maxResultChars !== undefined ? { maxResultChars: deps.maxResultChars } : {}),
    ...(gate ? { gate } : {}),
    // Executors search through the configured service like a plain run (the manager's own set has no WASM tools).
    ...(deps.hostGrants ? { hostGrants: deps.hostGrants } : {}),
  };
  const managerTools = createManagerTools({
    spec: manager,
    agents: deps.agents ?? {},
    workspace: policy.workspace,
    mayWrite: policy.access === 'full',
    meter: run.meter,
    model: run.model,
    ...(policy.models ? { models: policy.models } : {}),
    resolveModel: (spec) => deps.resolveModel(spec),
    toolsFor: (dir, names) =>
      createToolSet({
        ...common,
        wasm: deps.registry,
        builtins: deps.builtins ?? [],
        policy: { ...policy, workspace: dir },
        ...(names ? { only: new Set(names) } : {}),
        ...(workspace ? { workspace } : {}),
      }),
    systemFor: (spec) =>
      buildSystemPrompt({ base: EXECUTOR_PROMPT, ...(spec.systemPrompt ? { configured: spec.systemPrompt } : {}) }),
    ...(deps.contextWindowOf ? { contextWindowOf: deps.contextWindowOf } : {}),
    ...(run.onEvent ? { onEvent: run.onEvent } : {}),
    ...(run.logger ? { logger: run.logger.child({ scope: 'manager' }) } : {}),
    ...(run.pending ? { track: (work: Promise<unknown>) => run.pending?.push(work) } : {}),
  });
  // The manager's own tools all have level None: a read-only or chat-only policy leaves them callable.
  return createToolSet({ ...common, wasm: NO_WASM_TOOLS, builtins: managerTools, policy: { ...policy, tools: {} } });
}

/**
 * The names of the tools a run under `policy` may call, sorted (what /whoami lists). Nothing runs:
 * the sub-agent tools are built only for their names and levels. Without a usable model no run
 * starts at all; the list then leaves out the sub-agent tools, which need one.
 */
export function offeredToolNames(policy: AgentPolicy, deps: AgentDeps): string[] {
  return offeredSet(policy, deps).permittedNames().sort();
}

/** Of the tools a run under `policy` may call, those whose every call waits for approval, sorted (for /whoami). */
export function approvalToolNames(policy: AgentPolicy, deps: AgentDeps): string[] {
  const set = offeredSet(policy, deps);
  return toolsNeedingApproval(
    policy.approvals,
    set.permittedNames().flatMap((name) => {
      const level = set.levelOf(name);
      if (!level) return [];
      const p = permitsWithApproval(policy, policy.approvals, name, level);
      return [{ name, level, escalation: p.ok && p.escalation }];
    }),
  ).sort();
}

/**
 * Whether a name is a tool a run under `policy` with `deps` knows (a registered WASM tool, a
 * built-in, an MCP tool, the skill or sub-agent tools), permitted or not: names a model invents are
 * not, so a count by tool name stays bounded.
 */
export function knownToolName(policy: AgentPolicy, deps: AgentDeps): (name: string) => boolean {
  const set = offeredSet(policy, deps);
  return (name) => set.levelOf(name) !== undefined;
}

/**
 * Which tools' results, stored without a source, count as untrusted under `policy` (network and
 * MCP tools, and tools no longer known): what a summary made outside a run (/compact) reads.
 */
export function outsideToolsOf(policy: AgentPolicy, deps: AgentDeps): (tool: string) => boolean {
  const set = offeredSet(policy, deps);
  return (tool) => set.mayBringOutside(tool);
}

function offeredSet(policy: AgentPolicy, deps: AgentDeps): ToolSet {
  let model: ResolvedModel;
  try {
    model = deps.resolveModel(policy.model);
  } catch {
    return runTools(policy, deps, undefined);
  }
  const binding: RunBinding = {
    model,
    meter: createCostMeter(deps.costOf, policy.budgetUsd),
    jobs: createBackgroundJobs(),
    childSystem: () => '',
  };
  return runTools(policy, deps, binding);
}
