// One run of a job, as its worker thread does it: its own agent runtime (providers, sandbox,
// tools, skills) from the config, a fresh session with the job's prompt, under the job's
// access, model, timeout and budget, in the target conversation's workspace.
import { mkdir } from 'node:fs/promises';
import { runAgent, type AgentPolicy } from '../agent/index.ts';
import { createAgentRuntime } from '../agent/runtime.ts';
import type { Logger } from '../log.ts';
import { jobInput } from './job-prompt.ts';
import { oneLine, type WorkerRunResult } from './run-text.ts';
import type { RunRequest } from './worker-protocol.ts';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

/** The system prompt addition of a job: nobody is there to answer questions. */
function jobPrompt(req: RunRequest): string {
  return [
    `You are running the scheduled job "${req.job.name}".`,
    `Your final answer is posted as is to the conversation ${req.job.target}.`,
    'Nobody can answer questions during this run: do not ask any; do the task and answer.',
  ].join(' ');
}

/** Runs the job once; never throws (failures are outcome `error` with a one-line reason). */
export async function runJob(req: RunRequest, o: { signal: AbortSignal; log: Logger; onStarted?: () => void }): Promise<WorkerRunResult> {
  const fail = (error: string): WorkerRunResult => ({ outcome: 'error', text: '', error, usage: NO_USAGE, costUsd: 0 });
  let runtime: Awaited<ReturnType<typeof createAgentRuntime>> | undefined;
  // Cancelled before the agent started (a stop right after the tick): skip building the runtime.
  if (o.signal.aborted) return { outcome: 'cancelled', text: '', usage: NO_USAGE, costUsd: 0 };
  try {
    runtime = await createAgentRuntime({ loaded: req.loaded, secrets: req.secrets, log: o.log, watch: false, workers: req.sandboxWorkers });
    if (runtime.unavailableHint) return fail(`no model provider is configured: ${runtime.unavailableHint}`);
    const input = jobInput(req.job.prompt, req.transcript, runtime.skills);
    if (!input.ok) return fail(input.error);
    await mkdir(req.workspace, { recursive: true });
    const policy: AgentPolicy = {
      access: req.job.access,
      workspace: req.workspace,
      network: { allow: req.loaded.config.sandbox.network.allow, block: runtime.block },
      limits: runtime.limits,
      systemPrompt: jobPrompt(req),
      timeoutMs: req.job.timeoutMs,
      ...(req.job.model ? { model: req.job.model } : {}),
      ...(req.job.budgetUsd !== undefined ? { budgetUsd: req.job.budgetUsd } : {}),
    };
    o.onStarted?.();
    const r = await runAgent({ input: input.input, policy, deps: runtime.deps, signal: o.signal });
    // An unknown price (a model missing from the table) counts what is known.
    return { outcome: r.outcome, text: r.text, ...(r.error ? { error: r.error } : {}), usage: r.usage, costUsd: r.costUsd ?? r.cost.knownUsd };
  } catch (e) {
    return fail(oneLine((e as Error).message ?? String(e)));
  } finally {
    await runtime?.close().catch((e: unknown) => o.log.warn({ err: (e as Error).message }, 'job runtime close failed'));
  }
}
