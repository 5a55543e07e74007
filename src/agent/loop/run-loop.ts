// The turn loop: model call → next step → tools or continuation → ... until a final answer, a
// limit (turns, budget, output tokens), cancellation, the total timeout or an error. Each step
// lives in its own file; this one only sequences them.
// Example:
//   const r = await runLoop({ provider, model: 'gpt-5.4', system, messages, tools, meter });
//   r.outcome === 'final' && console.log(r.text);

import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import type { Message, Provider } from '../types.ts';
import { compact, DEFAULT_CONTEXT_WINDOW, estimateTokens, needsCompaction } from './compaction.ts';
import { type CostMeter, totalUsd } from './cost-meter.ts';
import { type ModelTurn, modelStep } from './model-step.ts';
import { nextStep } from './next-step.ts';
import { createRunSignal } from './run-signal.ts';
import { summarizeHistory } from './summarize.ts';
import type { ToolSet } from './tool-set.ts';
import { skippedResults, toolStep } from './tool-step.ts';
import type { AgentEvent, AgentResult, EventSink, Outcome, ToolCallRecord } from './types.ts';

/** Fraction of the context window above which the older turns are summarised (after tool-result compaction). */
const SUMMARY_THRESHOLD = 0.8;

/** Default limit on model calls per run. */
export const DEFAULT_MAX_TURNS = 50;

/**
 * Output tokens a call's reservation counts when the request sets no limit: Anthropic's default
 * maximum (most answers are far shorter, so the estimate errs on the side of the budget).
 */
export const RESERVED_OUTPUT_TOKENS = 8192;

/** The user turn that asks a cut-off reply to go on. */
export const CONTINUE_PROMPT =
  'Your previous reply was cut off by the output token limit. Continue exactly where it stopped, without repeating ' +
  'anything.';

/** Everything one run of the loop needs; no SDK or chat-platform types. */
export interface LoopOptions {
  provider: Provider;
  /** The provider's own model id (no `provider/` prefix). */
  model: string;
  /** `provider/model`, passed to `costOf`; default `${provider.name}/${model}`. */
  modelId?: string;
  system: string;
  /** History plus the new input. */
  messages: Message[];
  tools: ToolSet;
  meter: CostMeter;
  maxTurns?: number;
  maxOutputTokens?: number;
  /** Tokens; default 128,000. */
  contextWindow?: number;
  toolResultCharBudget?: number;
  signal?: AbortSignal;
  /** Total time for the run, model and tools included. */
  timeoutMs?: number;
  onEvent?: EventSink;
  logger?: Logger;
}

/** Runs the loop to its end; never throws (a failure is outcome `error`). */
export async function runLoop(o: LoopOptions): Promise<AgentResult> {
  const log = o.logger ?? silentLogger;
  const modelId = o.modelId ?? `${o.provider.name}/${o.model}`;
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
  const compaction = {
    contextWindow: o.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    ...(o.toolResultCharBudget !== undefined ? { toolResultCharBudget: o.toolResultCharBudget } : {}),
  };
  const run = createRunSignal(o.signal, o.timeoutMs);
  const emit: EventSink = (e: AgentEvent) => {
    try {
      o.onEvent?.(e);
    } catch (err) {
      log.warn({ err, event: e.type }, 'an event listener threw; the run goes on');
    }
  };
  let messages = [...o.messages];
  const records: ToolCallRecord[] = [];
  let turns = 0;
  let recoveries = 0;
  let text = '';

  const finish = (outcome: Outcome, error?: string): AgentResult => {
    run.dispose();
    const cost = o.meter.figures();
    emit({ type: 'done', outcome });
    log.info({ outcome, turns, usage: o.meter.usage, cost, model: modelId }, 'agent run ended');
    return {
      text,
      outcome,
      toolCalls: records,
      usage: o.meter.usage,
      costUsd: totalUsd(cost),
      cost,
      messages,
      turns,
      ...(error ? { error } : {}),
    };
  };

  try {
    for (;;) {
      const stopped = run.reason();
      if (stopped) return finish(stopped);
      // Also catches spending by sub-agents during the last tool step.
      if (o.meter.exceeded()) return finish('budget-exceeded');
      const tools = o.tools.definitions();
      // The prompt's estimate decides compaction and sizes the cost hold: made once per call (and
      // again only when compaction changed the messages), as it walks the history and every schema.
      let prompt = estimateTokens(o.system, messages, tools);
      if (needsCompaction(o.system, messages, tools, compaction, prompt)) {
        const c = compact(messages);
        messages = c.messages;
        if (c.results) emit({ type: 'compacted', removedChars: c.removedChars, results: c.results });
        // Still near the window with tool results shortened: the model summarises the older turns.
        prompt = estimateTokens(o.system, messages, tools);
        if (prompt > SUMMARY_THRESHOLD * compaction.contextWindow) {
          const hold = await o.meter.reserve(modelId, { inputTokens: prompt, outputTokens: RESERVED_OUTPUT_TOKENS });
          if (!hold) return finish('budget-exceeded');
          try {
            const s = await summarizeHistory(
              o.provider,
              o.model,
              messages,
              run.signal,
              undefined,
              o.tools.mayBringOutside,
            ).catch((e: unknown) => {
              if (run.reason()) throw e;
              log.warn({ err: errorMessage(e) }, 'could not summarise the history; going on without');
              return undefined;
            });
            if (s) {
              o.meter.add(s.usageModel ?? modelId, s.usage);
              messages = s.messages;
              prompt = estimateTokens(o.system, messages, tools);
              emit({ type: 'summarized', replaced: s.replaced });
            }
          } finally {
            hold.release();
          }
        }
      }
      // The call's cost is held before it is made (the prompt as estimated, the most it may answer):
      // runs in flight at once see each other's calls, not only those already charged.
      const hold = await o.meter.reserve(modelId, {
        inputTokens: prompt,
        outputTokens: o.maxOutputTokens ?? RESERVED_OUTPUT_TOKENS,
      });
      if (!hold) return finish('budget-exceeded');
      turns++;
      emit({ type: 'turn-start', turn: turns });
      const partial: { turn?: ModelTurn } = {};
      let turn: ModelTurn;
      try {
        turn = await modelStep(
          o.provider,
          {
            model: o.model,
            system: o.system,
            messages,
            tools,
            ...(o.maxOutputTokens ? { maxOutputTokens: o.maxOutputTokens } : {}),
          },
          run.signal,
          emit,
          partial,
        );
        o.meter.add(turn.usageModel ?? modelId, turn.usage);
      } catch (e) {
        const why = run.reason();
        if (!why) throw e;
        // Keep what was said before the stop; drop half-received tool calls.
        const said = partial.turn?.message.content.filter((p) => p.type === 'text') ?? [];
        if (said.length) messages.push({ role: 'assistant', content: said });
        text = recoveries > 0 ? text + (partial.turn?.text ?? '') : (partial.turn?.text ?? '');
        o.meter.add(partial.turn?.usageModel ?? modelId, partial.turn?.usage);
        return finish(why);
      } finally {
        // Recorded (or failed) by now: the charge replaces what was held.
        hold.release();
      }
      if (turn.message.content.length) messages.push(turn.message);
      text = recoveries > 0 ? text + turn.text : turn.text;
      const next = nextStep({
        aborted: run.reason(),
        finish: turn.finish,
        toolCalls: turn.toolCalls.length,
        turns,
        maxTurns,
        recoveries,
        budgetExceeded: o.meter.exceeded(),
      });
      switch (next.type) {
        case 'run-again': {
          recoveries = 0;
          const r = await toolStep(turn.toolCalls, o.tools, run.signal, emit);
          messages.push(r.message);
          records.push(...r.records);
          const why = run.reason();
          if (why) return finish(why);
          break;
        }
        case 'recover-max-tokens':
          recoveries = next.attempt;
          emit({ type: 'recovering', attempt: next.attempt });
          messages.push({ role: 'user', content: [{ type: 'text', text: CONTINUE_PROMPT }] });
          break;
        default: {
          if (turn.toolCalls.length) {
            const why =
              next.type === 'budget-exceeded'
                ? 'the session budget is spent'
                : next.type === 'max-turns'
                  ? `the run reached its limit of ${maxTurns} turns`
                  : 'the run was stopped';
            messages.push(skippedResults(turn.toolCalls, why, o.tools));
          }
          return finish(next.type);
        }
      }
    }
  } catch (e) {
    log.error({ err: e, model: modelId }, 'agent run failed');
    return finish('error', errorMessage(e) || String(e));
  }
}
