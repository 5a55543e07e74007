// The `agent` and `agent_result` built-in tools: a sub-agent is a child loop with its own
// context. Its tools are a subset of its parent's permitted set (never more); `agent` itself is
// excluded unless asked for, and nesting is bounded. Its spending goes to the parent's meter,
// and the parent's cancellation (or timeout) reaches it through the call's signal. Its model is
// the parent's unless the policy's `models` names others: a sub-agent is no way around the
// conversation's model choice (its cost, or a local endpoint the host would call).

import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { CostMeter } from '../loop/cost-meter.ts';
import { runLoop } from '../loop/run-loop.ts';
import type { ToolSet } from '../loop/tool-set.ts';
import type { AgentResult, EventSink } from '../loop/types.ts';
import type { BuiltinResult, BuiltinTool } from '../tools/builtin.ts';
import type { Provider } from '../types.ts';
import type { BackgroundJobs } from './background-jobs.ts';

/** A model ready to call: the provider, its own model id, and `provider/model`. */
export interface ResolvedModel {
  provider: Provider;
  model: string;
  id: string;
}

/** Default turn limit of a sub-agent. */
export const SUBAGENT_DEFAULT_MAX_TURNS = 10;
/** Upper bound on a sub-agent's turns, whatever the model asks. */
export const SUBAGENT_MAX_TURNS = 50;
/** Default nesting limit (a sub-agent's sub-agent is depth 2). */
export const DEFAULT_MAX_DEPTH = 2;
/** Longest `agent_result` waits in one call. */
export const MAX_RESULT_WAIT_MS = 120_000;

/** What the agent tools of one loop need to know about it. */
export interface SubagentContext {
  /** Depth of the loop owning these tools (0 = the top-level run). */
  depth: number;
  maxDepth: number;
  /** The owning loop's tool set (read lazily: it contains these tools). */
  tools: () => ToolSet;
  /** The owning loop's built-ins other than `agent`/`agent_result` (children may get them). */
  builtins: BuiltinTool[];
  meter: CostMeter;
  /** The owning loop's model (used when the call names none). */
  model: ResolvedModel;
  /** Other `provider/model`s the policy lets sub-agents use (besides the conversation's model). */
  models?: string[];
  resolveModel(spec: string): ResolvedModel;
  /** The system prompt of a child given these tool names. */
  childSystem(toolNames: string[]): string;
  jobs: BackgroundJobs;
  contextWindowOf?: (modelId: string) => number | undefined;
  toolResultCharBudget?: number;
  onEvent?: EventSink;
  logger?: Logger;
}

const AGENT_TOOLS = new Set(['agent', 'agent_result']);
const STOPPED: Partial<Record<AgentResult['outcome'], string>> = {
  'max-turns': 'it reached its turn limit',
  'max-tokens': 'its reply was cut off by the output limit',
  'budget-exceeded': 'the session budget is spent',
  cancelled: 'it was cancelled',
  timeout: 'the run timed out',
  error: 'it failed',
};

/** What the parent reads of a child's result. */
export function reportOf(r: AgentResult): BuiltinResult {
  const why = STOPPED[r.outcome];
  if (!why) return { content: r.text || '(the sub-agent gave no answer)', isError: false };
  const detail = r.error ? `: ${r.error}` : '';
  const body = r.text ? `\n\nWhat it had so far:\n${r.text}` : '';
  return {
    content: `the sub-agent stopped early: ${why}${detail}${body}`,
    isError: r.outcome !== 'max-turns' && r.outcome !== 'max-tokens',
  };
}

/** The tools' inputs: one object each for every run (the prompt's estimate measures a schema once). */
const AGENT_SCHEMA = {
  type: 'object',
  properties: {
    description: { type: 'string', description: 'A few words on the task (shown to the user)' },
    prompt: { type: 'string', description: 'The full task for the sub-agent' },
    tools: {
      type: 'array',
      items: { type: 'string' },
      description: 'Tool names it may use (default: all of yours except agent)',
    },
    maxTurns: { type: 'integer', description: 'Model calls it may make', default: SUBAGENT_DEFAULT_MAX_TURNS },
    model: {
      type: 'string',
      description: 'provider/model to use (default: yours; others only if this conversation allows them)',
    },
    background: { type: 'boolean', description: 'Run in the background and return an id at once', default: false },
  },
  required: ['description', 'prompt'],
  additionalProperties: false,
};

const AGENT_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The id agent returned' },
    wait_ms: {
      type: 'integer',
      description: `How long to wait if it is still running (at most ${MAX_RESULT_WAIT_MS})`,
      default: 30_000,
    },
  },
  required: ['id'],
  additionalProperties: false,
};

/** Creates `agent` and `agent_result` for a loop at `ctx.depth`. */
export function createAgentTools(ctx: SubagentContext): BuiltinTool[] {
  const agent: BuiltinTool = {
    name: 'agent',
    description:
      'Start a sub-agent with its own context for a self-contained task (research, a search across many files, a ' +
      'review). Give it a complete prompt: it sees nothing of this conversation. Foreground (default) returns its ' +
      'final answer; background returns an id to pass to agent_result later, so you can work meanwhile.',
    inputSchema: AGENT_SCHEMA,
    permissionLevel: 'None',
    async run(input, { signal }) {
      if (!signal) return { content: 'agent: no run signal', isError: true };
      const childDepth = ctx.depth + 1;
      if (childDepth > ctx.maxDepth)
        return { content: `sub-agents may nest at most ${ctx.maxDepth} deep`, isError: true };
      const mine = ctx.tools().permittedNames();
      const requested = Array.isArray(input.tools)
        ? (input.tools as string[])
        : mine.filter((n) => !AGENT_TOOLS.has(n));
      const notMine = requested.filter((n) => !mine.includes(n));
      if (notMine.length)
        return {
          content: `the sub-agent cannot have tools you do not have: ${notMine.join(', ')}; yours: ${mine.join(', ')}`,
          isError: true,
        };
      const wantsAgent = requested.includes('agent');
      if (wantsAgent && childDepth >= ctx.maxDepth)
        return {
          content: `a sub-agent at depth ${childDepth} cannot start sub-agents (the limit is ${ctx.maxDepth})`,
          isError: true,
        };
      const names = requested.filter((n) => !AGENT_TOOLS.has(n) || wantsAgent);
      if (wantsAgent && !names.includes('agent_result')) names.push('agent_result');
      let model = ctx.model;
      if (typeof input.model === 'string' && input.model.trim() && input.model.trim() !== ctx.model.id) {
        const allowed = [ctx.model.id, ...(ctx.models ?? []).filter((m) => m !== ctx.model.id)];
        if (!ctx.models?.includes(input.model.trim())) {
          return {
            content:
              `model ${input.model.trim()} is not allowed in this conversation; sub-agents may ` +
              `use: ${allowed.join(', ')} (or leave model out to use ${ctx.model.id})`,
            isError: true,
          };
        }
        try {
          model = ctx.resolveModel(input.model.trim());
        } catch (e) {
          return { content: `model ${input.model}: ${errorMessage(e)}`, isError: true };
        }
      }
      const maxTurns = Math.min(
        SUBAGENT_MAX_TURNS,
        Math.max(1, typeof input.maxTurns === 'number' ? Math.floor(input.maxTurns) : SUBAGENT_DEFAULT_MAX_TURNS),
      );
      const meter = ctx.meter.child();
      const id = ctx.jobs.nextId();
      let childTools: ToolSet | undefined;
      const grandchildTools = wantsAgent
        ? createAgentTools({ ...ctx, depth: childDepth, tools: () => childTools!, meter, model })
        : [];
      childTools = ctx.tools().derive(names, [...ctx.builtins, ...grandchildTools]);
      const tools = childTools;
      const forward: EventSink = (e) => {
        if (e.type === 'tool-start' || e.type === 'tool-end') ctx.onEvent?.({ ...e, agentId: e.agentId ?? id });
      };
      const contextWindow = ctx.contextWindowOf?.(model.id);
      const run = (s: AbortSignal) =>
        runLoop({
          provider: model.provider,
          model: model.model,
          modelId: model.id,
          system: ctx.childSystem(tools.permittedNames()),
          messages: [{ role: 'user', content: [{ type: 'text', text: String(input.prompt) }] }],
          tools,
          meter,
          maxTurns,
          ...(contextWindow ? { contextWindow } : {}),
          ...(ctx.toolResultCharBudget !== undefined ? { toolResultCharBudget: ctx.toolResultCharBudget } : {}),
          signal: s,
          onEvent: forward,
          ...(ctx.logger ? { logger: ctx.logger.child({ subagent: id, depth: childDepth }) } : {}),
        });
      if (input.background === true) {
        ctx.jobs.start(id, String(input.description), signal, run);
        return {
          content: `started sub-agent ${id} in the background; call agent_result with id "${id}" for its answer`,
          isError: false,
        };
      }
      return reportOf(await run(signal));
    },
  };
  const agentResult: BuiltinTool = {
    name: 'agent_result',
    description: 'Fetch the answer of a background sub-agent started with agent, waiting for it up to wait_ms.',
    inputSchema: AGENT_RESULT_SCHEMA,
    permissionLevel: 'None',
    async run(input, { signal }) {
      const id = String(input.id);
      const wait = Math.min(
        MAX_RESULT_WAIT_MS,
        Math.max(0, typeof input.wait_ms === 'number' ? input.wait_ms : 30_000),
      );
      const job = await ctx.jobs.wait(id, wait, signal ?? new AbortController().signal);
      if (!job) return { content: `there is no background sub-agent ${JSON.stringify(id)}`, isError: true };
      if (job.error !== undefined) return { content: `sub-agent ${id} failed: ${job.error}`, isError: true };
      if (!job.result)
        return {
          content:
            `sub-agent ${id} (${job.description}) is still running after ${Math.round(wait / 1000)} s; call ` +
            `agent_result again later`,
          isError: false,
        };
      return reportOf(job.result);
    },
  };
  return [agent, agentResult];
}
