// One run of a job, as its worker thread does it: its own agent runtime (providers, sandbox,
// tools, skills) from the config, a fresh session with the job's prompt, under the job's
// access, model, timeout and budget (as the scheduler capped it by the daily budgets left), in the target
// conversation's workspace. What a run may do
// is the narrowest of the job's own settings, the policy of the conversation that created it
// (kept with the job) and the target conversation's policy as the config says now.
import { mkdir } from 'node:fs/promises';
import { type AgentPolicy, createAgentRuntime, type Reservation, runAgent } from '../agent/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { type RunSettings, toAgentPolicy } from '../runner/agent-policy.ts';
import { conversationPolicy, narrowPolicy, type PolicyLimits } from '../runner/policy.ts';
import { addUsage, digestHistory, type Summarise, tokenBudgetOf } from './digest-map.ts';
import { jobInput } from './job-prompt.ts';
import { type DigestReport, oneLine, type RunCharge, type WorkerRunResult } from './run-text.ts';
import { eventSource, withEvent, withoutEvent } from './webhook-event.ts';
import type { RunRequest } from './worker-protocol.ts';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

/** The system prompt addition of a job: nobody is there to answer questions. */
function jobPrompt(req: Pick<RunRequest, 'job'>): string {
  return [
    `You are running the scheduled job "${req.job.name}".`,
    `Your final answer is posted as is to the conversation ${req.job.target}.`,
    'Nobody can answer questions during this run: do not ask any; do the task and answer.',
  ].join(' ');
}

/**
 * The limits of one run: the job's access (and model), narrowed by its creator's policy when it
 * came from a conversation, then by the target's current policy (a channel tightened after the
 * job was made binds its jobs too). A model an admin set on a CLI/API job is kept as chosen.
 */
export function runLimits(req: Pick<RunRequest, 'job' | 'loaded'>): PolicyLimits {
  const { job, loaded } = req;
  const target = conversationPolicy(loaded.config, job.target);
  // The job's own fields limit access and pick a model; hosts come from the policies.
  const own: PolicyLimits = {
    access: job.access,
    tools: {},
    network: target.network,
    ...(job.model ? { model: job.model } : {}),
  };
  const created = job.policy ? narrowPolicy(own, creatorLimits(job.policy)) : own;
  const limits = withoutRedundantModels(narrowPolicy(created, target));
  if (!job.policy && job.model) return { ...limits, model: job.model };
  return limits;
}

/**
 * The creator's policy as a limit: a creator with a `model` and no `models` list could use that
 * model only, so the job may not take the target channel's other models for itself or its sub-agents.
 */
function creatorLimits(creator: PolicyLimits): PolicyLimits {
  return creator.model && !creator.models ? { ...creator, models: [creator.model] } : creator;
}

/** A `models` list naming only the `model` permits what the `model` alone does: left out. */
function withoutRedundantModels(limits: PolicyLimits): PolicyLimits {
  if (limits.models?.length !== 1 || limits.models[0] !== limits.model) return limits;
  const { models: _, ...rest } = limits;
  return rest;
}

/**
 * The agent policy of one run: the run's limits as a chat turn's policy becomes one (the same
 * function), with the job's prompt, timeout and budget, and nobody to approve an escalation.
 */
export function jobAgentPolicy(
  req: Pick<RunRequest, 'job' | 'loaded' | 'workspace' | 'budgetUsd'>,
  sandbox: RunSettings['sandbox'],
): AgentPolicy {
  // A target whose policy has a manager runs its jobs managed too: the job's budget caps the executors' spending.
  const { manager } = conversationPolicy(req.loaded.config, req.job.target);
  return toAgentPolicy(
    { ...runLimits(req), ...(manager ? { manager } : {}) },
    {
      workspace: req.workspace,
      sandbox,
      systemPrompt: jobPrompt(req),
      timeoutMs: req.job.timeoutMs,
      // The scheduler's cap: the job's own budget within what the daily budgets have left.
      ...(req.budgetUsd !== undefined ? { budgetUsd: req.budgetUsd } : {}),
      unattended: true,
    },
  );
}

/** Runs the job once; never throws (failures are outcome `error` with a one-line reason). */
export async function runJob(
  req: RunRequest,
  o: {
    signal: AbortSignal;
    log: Logger;
    onStarted?: () => void;
    /** Each model call as it is charged (the worker posts it at once, so a killed run's spending is kept). */
    onCharge?: (charge: RunCharge) => void;
    /** Holds a model call's estimated cost against the daily budgets (the worker asks the scheduler). */
    reserve?: (estimateUsd: number) => Promise<Reservation | undefined>;
    /** Before a call that may write in the workspace (the scheduler records who wrote there). */
    onWriting?: (tainted: boolean) => void;
  },
): Promise<WorkerRunResult> {
  const fail = (error: string): WorkerRunResult => ({ outcome: 'error', text: '', error, usage: NO_USAGE, costUsd: 0 });
  let runtime: Awaited<ReturnType<typeof createAgentRuntime>> | undefined;
  // Cancelled before the agent started (a stop right after the tick): skip building the runtime.
  if (o.signal.aborted) return { outcome: 'cancelled', text: '', usage: NO_USAGE, costUsd: 0 };
  try {
    runtime = await createAgentRuntime({
      loaded: req.loaded,
      secrets: req.secrets,
      log: o.log,
      watch: false,
      workers: req.sandboxWorkers,
    });
    if (runtime.unavailableHint) return fail(`no model provider is configured: ${runtime.unavailableHint}`);
    if (req.digest && 'refused' in req.digest) return fail(`this job may not read the channel: ${req.digest.refused}`);
    const prompt = req.event ? withEvent(req.job.prompt, req.event) : withoutEvent(req.job.prompt);
    await mkdir(req.workspace, { recursive: true });
    const policy = jobAgentPolicy(req, { block: runtime.block, limits: runtime.limits });
    const untrustedOf = (withHistory: boolean) => [
      ...(withHistory ? [`the recent messages of ${req.job.target}`] : []),
      ...(req.job.untrusted ? [`the job’s prompt, written after reading ${req.job.untrusted}`] : []),
      ...(req.event ? [eventSource(req.event)] : []),
    ];
    o.onStarted?.();
    // Each model call under the model that answered it: a default, a fallback or a sub-agent's
    // model is charged as what it is, not as the job's `model` field.
    const deps = runtime.deps;
    const call = (text: string, p: AgentPolicy, untrusted: string[]) =>
      runAgent({
        input: text,
        policy: p,
        deps,
        signal: o.signal,
        meterHooks: {
          onCharge: (model, usage, costUsd) =>
            o.onCharge?.({ model, usage, ...(costUsd !== undefined ? { costUsd } : {}) }),
          ...(o.reserve ? { reserve: o.reserve } : {}),
        },
        // The approval rules stay; the people to ask do not exist in a scheduled run.
        nobodyToAsk: 'it needs a person’s approval, and a scheduled job has nobody to ask',
        // The conversation's messages are other people's words, as in the conversation's own runs,
        // and a prompt written after reading untrusted content may carry it.
        ...(untrusted.length ? { untrusted } : {}),
        // Files others put in the workspace are as untrusted as in the conversation's own runs.
        workspace: {
          ...(req.workspaceUntrusted ? { untrusted: req.workspaceUntrusted } : {}),
          writing: async (tainted) => o.onWriting?.(tainted),
        },
      });
    // A digest's history, summarised in parts first when it is longer than the model reads at once.
    let spent = { usage: NO_USAGE as WorkerRunResult['usage'], costUsd: 0 };
    const digest = req.digest && !('refused' in req.digest) ? req.digest : undefined;
    let transcript = req.transcript;
    let report: DigestReport | undefined;
    if (digest) {
      const budget = tokenBudgetOf(deps.contextWindowOf?.(deps.resolveModel(policy.model).id));
      // The parts are summarised with no tools at all: reading is all they do.
      const summarise: Summarise = async (text) => {
        const r = await call(text, { ...policy, access: 'chat-only', tools: { allow: [] } }, untrustedOf(true));
        spent = { usage: addUsage(spent.usage, r.usage), costUsd: spent.costUsd + (r.costUsd ?? r.cost.knownUsd) };
        return r.outcome === 'final' ? { ok: true, text: r.text } : { ok: false, error: r.error ?? r.outcome };
      };
      const d = await digestHistory(digest, budget, summarise);
      if (!d.ok) return { ...fail(d.error), usage: spent.usage, costUsd: spent.costUsd };
      transcript = d.text;
      report = d.report;
    }
    const input = jobInput(prompt, transcript, runtime.skills, digest ? { period: digest.period } : {});
    if (!input.ok) return fail(input.error);
    const r = await call(input.input, policy, untrustedOf(input.withHistory));
    // An unknown price (a model missing from the table) counts what is known.
    return {
      outcome: r.outcome,
      text: r.text,
      ...(r.error ? { error: r.error } : {}),
      usage: addUsage(spent.usage, r.usage),
      costUsd: spent.costUsd + (r.costUsd ?? r.cost.knownUsd),
      ...(report ? { digest: report } : {}),
    };
  } catch (e) {
    return fail(oneLine(errorMessage(e) ?? String(e)));
  } finally {
    await runtime?.close().catch((e: unknown) => o.log.warn({ err: errorMessage(e) }, 'job runtime close failed'));
  }
}
