// Managed agents: a manager whose only tools are delegation (`delegate`, `apply_patch`,
// `reject_patch`: no file, shell or network tool of its own) hands parts of a task to executors
// named in config `agents`. Each executor has its own model, turn limit, tools (never more than
// the conversation's policy permits), budget and folder (shared, a copy, or a checkout of git
// HEAD), and runs in its own sandbox instances; at most `maxConcurrent` run at once. One
// executor's failure, timeout or limit never stops the others or the manager: it is reported as
// such. A private folder's changes come back as a patch the manager applies (once) or rejects.
// Every change of an executor's state is an `executors` event: the chat's live checklist.
import { dirname, resolve } from 'node:path';
import { executorModelProblem } from '../../config/schema.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { CostMeter } from '../loop/cost-meter.ts';
import { runLoop } from '../loop/run-loop.ts';
import type { ToolSet } from '../loop/tool-set.ts';
import type { AgentResult, EventSink, ExecutorStatus } from '../loop/types.ts';
import type { ResolvedModel } from '../subagents/agent-tool.ts';
import type { BuiltinResult, BuiltinTool } from '../tools/builtin.ts';
import { type Isolation, prepareFolder } from './isolation.ts';
import { applyPatch, describePatch, diffFolder, type Patch } from './patch.ts';
import { recoverPatchJournals } from './patch-journal.ts';

/** One executor as config `agents.<name>` describes it. */
export interface ExecutorSpec {
  description?: string;
  /** `provider/model` (default: the conversation's model). */
  model?: string;
  /** Tool names it may use, within the conversation's policy (default: all the policy permits). */
  tools?: string[];
  maxTurns?: number;
  budgetUsd?: number;
  timeoutMs?: number;
  isolation: Isolation;
  systemPrompt?: string;
}

/** Policy `manager`: which executors this conversation's manager may use, and how many at once. */
export interface ManagerSpec {
  executors: string[];
  maxConcurrent: number;
}

/** What the manager's tools are bound to for one run. */
export interface ManagerContext {
  spec: ManagerSpec;
  agents: Record<string, ExecutorSpec>;
  /** The conversation's workspace (shared executors work in it; patches apply to it). */
  workspace: string;
  /** Whether the conversation's policy lets the run write to its workspace (applying a patch does). */
  mayWrite: boolean;
  meter: CostMeter;
  /** The run's own model (an executor without `model` uses it). */
  model: ResolvedModel;
  /** The policy's `models`: the other models executors may use (undefined: only the run's own). */
  models?: readonly string[];
  resolveModel(spec: string): ResolvedModel;
  /** An executor's tools in `dir`, limited to `names` when given (always within the policy). */
  toolsFor(dir: string, names: string[] | undefined): ToolSet;
  /** The system prompt of an executor given its tool names. */
  systemFor(spec: ExecutorSpec, toolNames: string[]): string;
  contextWindowOf?: (modelId: string) => number | undefined;
  onEvent?: EventSink;
  logger?: Logger;
  /** Told of each delegation under way, so the run can wait for its executors to stop when it ends. */
  track?: (work: Promise<unknown>) => void;
}

/** Default longest run of one executor. */
export const EXECUTOR_DEFAULT_TIMEOUT_MS = 600_000;
/** Default turn limit of an executor. */
export const EXECUTOR_DEFAULT_MAX_TURNS = 20;
/** Most tasks one `delegate` call takes. */
export const MAX_TASKS = 12;

const STOPPED_BECAUSE: Partial<Record<AgentResult['outcome'], string>> = {
  'max-turns': 'reached its turn limit',
  'max-tokens': 'its answer was cut off by the output limit',
  'budget-exceeded': 'its budget is spent',
  cancelled: 'stopped',
  timeout: 'timed out',
  error: 'failed',
};

interface Task {
  executor: string;
  task: string;
  description: string;
}

/** The tasks of a `delegate` call, or why they are refused. */
function tasksOf(input: Record<string, unknown>, ctx: ManagerContext): Task[] | string {
  const raw = input.tasks;
  if (!Array.isArray(raw) || raw.length === 0) return 'tasks: give at least one {executor, task}';
  if (raw.length > MAX_TASKS) return `tasks: at most ${MAX_TASKS} in one call`;
  const tasks: Task[] = [];
  for (const [i, t] of raw.entries()) {
    const o = (t ?? {}) as Record<string, unknown>;
    const executor = typeof o.executor === 'string' ? o.executor.trim() : '';
    const task = typeof o.task === 'string' ? o.task.trim() : '';
    if (!task) return `tasks[${i}].task: the task for the executor is missing`;
    if (!ctx.spec.executors.includes(executor) || !ctx.agents[executor])
      return `tasks[${i}].executor: ${JSON.stringify(executor)} is not one of yours: ${ctx.spec.executors.join(', ')}`;
    const description = typeof o.description === 'string' && o.description.trim() ? o.description.trim() : task;
    tasks.push({ executor, task, description: description.slice(0, 80) });
  }
  return tasks;
}

/** An executor as the manager's tool description names it. */
const described = (name: string, spec: ExecutorSpec | undefined) =>
  spec?.description ? `${name} (${spec.description})` : name;

const usd = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;

/** Creates the manager's tools for one run: `delegate`, `apply_patch` and `reject_patch`. */
export function createManagerTools(ctx: ManagerContext): BuiltinTool[] {
  const patches = new Map<string, Patch>();
  let patchCounter = 0;
  let statusCounter = 0;
  const board: ExecutorStatus[] = [];
  const publish = () => ctx.onEvent?.({ type: 'executors', items: board.map((s) => ({ ...s })) });

  async function runOne(task: Task, status: ExecutorStatus, signal: AbortSignal): Promise<string> {
    const spec = ctx.agents[task.executor]!;
    const head = `## ${task.executor}: ${task.description}`;
    if (signal.aborted) {
      Object.assign(status, { state: 'stopped', detail: 'stopped before it started' });
      return `${head}\nstopped before it started`;
    }
    // Config load checks each manager's place; a user's or thread's narrower policy is checked here, per run.
    const refused = executorModelProblem(
      task.executor,
      spec.model,
      { model: ctx.model.id, models: ctx.models },
      'this conversation',
    );
    if (refused) {
      Object.assign(status, { state: 'failed', detail: refused });
      publish();
      return `${head}\nrefused: ${refused}`;
    }
    status.state = 'running';
    publish();
    const meter = ctx.meter.child(spec.budgetUsd);
    let folder: Awaited<ReturnType<typeof prepareFolder>> | undefined;
    try {
      folder = await prepareFolder(ctx.workspace, spec.isolation, task.executor);
      const model = spec.model ? ctx.resolveModel(spec.model) : ctx.model;
      const tools = ctx.toolsFor(folder.dir, spec.tools);
      const contextWindow = ctx.contextWindowOf?.(model.id);
      const result = await runLoop({
        provider: model.provider,
        model: model.model,
        modelId: model.id,
        system: ctx.systemFor(spec, tools.permittedNames()),
        messages: [{ role: 'user', content: [{ type: 'text', text: task.task }] }],
        tools,
        meter,
        maxTurns: spec.maxTurns ?? EXECUTOR_DEFAULT_MAX_TURNS,
        timeoutMs: spec.timeoutMs ?? EXECUTOR_DEFAULT_TIMEOUT_MS,
        ...(contextWindow ? { contextWindow } : {}),
        signal,
        ...(ctx.logger ? { logger: ctx.logger.child({ executor: task.executor }) } : {}),
      });
      status.costUsd = meter.figures().knownUsd;
      const why = STOPPED_BECAUSE[result.outcome];
      Object.assign(
        status,
        why
          ? { state: result.outcome === 'cancelled' ? 'stopped' : 'failed', detail: why }
          : { state: 'done', detail: `${result.turns} turn(s)` },
      );
      const lines = [
        `${head}\n${why ? `${why}${result.error ? `: ${result.error}` : ''}` : 'done'} after ${result.turns} ` +
          `turn(s), ${usd(status.costUsd)}`,
        result.text.trim() ? result.text.trim() : '(no answer)',
      ];
      if (folder.base) {
        const patch = await diffFolder(folder.base, folder.dir, { id: '', executor: task.executor });
        if (patch.changes.length) {
          patch.id = `patch-${++patchCounter}`;
          patches.set(patch.id, patch);
          lines.push(
            `Its changes are patch ${patch.id}; call apply_patch with id "${patch.id}" to apply them to the ` +
              `workspace, or reject_patch.\n${await describePatch(patch, ctx.workspace)}`,
          );
        } else lines.push('It changed no file.');
      }
      return lines.join('\n');
    } catch (e) {
      status.costUsd = meter.figures().knownUsd;
      Object.assign(status, { state: signal.aborted ? 'stopped' : 'failed', detail: errorMessage(e) });
      return `${head}\nfailed: ${errorMessage(e)}`;
    } finally {
      await folder?.dispose().catch(() => {});
      publish();
    }
  }

  const delegate: BuiltinTool = {
    name: 'delegate',
    description:
      'Hand parts of the task to your executors; they run in parallel (up to your limit) and this returns ' +
      "each one's answer, cost and, for executors working in a copy, its changes as a patch to apply or reject. " +
      `Your executors: ${ctx.spec.executors.map((n) => described(n, ctx.agents[n])).join('; ')}.`,
    inputSchema: {
      type: 'object',
      properties: {
        tasks: {
          type: 'array',
          maxItems: MAX_TASKS,
          items: {
            type: 'object',
            properties: {
              executor: { type: 'string', enum: ctx.spec.executors },
              task: { type: 'string', description: 'The complete task: the executor sees nothing else' },
              description: { type: 'string', description: 'A few words shown to the user' },
            },
            required: ['executor', 'task'],
            additionalProperties: false,
          },
        },
      },
      required: ['tasks'],
      additionalProperties: false,
    },
    permissionLevel: 'None',
    async run(input, { signal }) {
      const tasks = tasksOf(input, ctx);
      if (typeof tasks === 'string') return { content: tasks, isError: true };
      const runSignal = signal ?? new AbortController().signal;
      const statuses = tasks.map(
        (t): ExecutorStatus => ({
          id: `e${++statusCounter}`,
          executor: t.executor,
          task: t.description,
          state: 'waiting',
          costUsd: 0,
        }),
      );
      board.push(...statuses);
      publish();
      const reports: string[] = new Array(tasks.length);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < tasks.length; i = next++)
          reports[i] = await runOne(tasks[i]!, statuses[i]!, runSignal);
      };
      const width = Math.max(1, Math.min(ctx.spec.maxConcurrent, tasks.length));
      const all = Promise.all(Array.from({ length: width }, worker));
      ctx.track?.(all);
      await all;
      const failed = statuses.filter((s) => s.state !== 'done').length;
      return {
        content: `${tasks.length - failed} of ${tasks.length} executor(s) done.\n\n${reports.join('\n\n')}`,
        isError: failed === tasks.length,
      };
    },
  };

  const patchInput = {
    type: 'object',
    properties: { id: { type: 'string', description: 'The patch id delegate reported' } },
    required: ['id'],
    additionalProperties: false,
  };
  const findPatch = (input: Record<string, unknown>): Patch | BuiltinResult => {
    const patch = patches.get(String(input.id));
    if (!patch) return { content: `there is no patch ${JSON.stringify(input.id)} in this run`, isError: true };
    if (patch.state !== 'pending') return { content: `${patch.id} was already ${patch.state}`, isError: true };
    return patch;
  };

  const apply: BuiltinTool = {
    name: 'apply_patch',
    description:
      "Apply an executor's patch to the conversation's workspace. Nothing is written if any file changed in the " +
      'workspace since the executor started: the conflicts are listed instead.',
    inputSchema: patchInput,
    permissionLevel: 'None',
    async run(input) {
      const found = findPatch(input);
      if (!('changes' in found)) return found;
      if (!ctx.mayWrite)
        return {
          content: 'this conversation may not write to its workspace: the patch cannot be applied',
          isError: true,
        };
      // A patch a crash interrupted here is finished first (a workspace outside the data dir is not seen at start).
      await recoverPatchJournals(dirname(resolve(ctx.workspace)));
      const r = await applyPatch(found, ctx.workspace);
      if (!r.applied)
        return {
          content: `${found.id} not applied, nothing was written; conflicts:\n${r.conflicts.join('\n')}`,
          isError: true,
        };
      found.state = 'applied';
      return { content: `${found.id} applied: ${r.files} file(s) written`, isError: false };
    },
  };
  const reject: BuiltinTool = {
    name: 'reject_patch',
    description: "Discard an executor's patch without applying it.",
    inputSchema: patchInput,
    permissionLevel: 'None',
    async run(input) {
      const found = findPatch(input);
      if (!('changes' in found)) return found;
      found.state = 'rejected';
      return { content: `${found.id} rejected`, isError: false };
    },
  };
  return [delegate, apply, reject];
}
