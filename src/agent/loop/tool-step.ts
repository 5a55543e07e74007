// Runs the tool calls of one turn: calls that only read (None/ReadOnly) run concurrently, a
// call that writes or executes runs alone in its place, so order-dependent effects keep their
// order. A failure is an error result; when the run is aborted, unfinished calls are reported
// as cancelled so the history stays well-formed.

import { errorMessage } from '../../core/errors.ts';
import type { ContentPart, Message, ResultSource } from '../types.ts';
import { raceAbort } from './run-signal.ts';
import { toolEndStatus, toolStatus } from './status-line.ts';
import type { ToolCallOutcome, ToolSet } from './tool-set.ts';
import { type EventSink, TOOL_OUTPUT_PREVIEW, type ToolCallRecord } from './types.ts';

type Call = Extract<ContentPart, { type: 'tool-call' }>;

/** Splits calls into batches that may run at the same time. */
export function batches(calls: Call[], tools: Pick<ToolSet, 'levelOf'>): Call[][] {
  const out: Call[][] = [];
  let readers: Call[] = [];
  for (const c of calls) {
    const level = tools.levelOf(c.name);
    if (level === 'Write' || level === 'Execute') {
      if (readers.length) out.push(readers);
      readers = [];
      out.push([c]);
    } else readers.push(c);
  }
  if (readers.length) out.push(readers);
  return out;
}

/** Runs the calls; returns the user message of results and the records, in call order. */
export async function toolStep(
  calls: Call[],
  tools: ToolSet,
  signal: AbortSignal,
  emit: EventSink,
): Promise<{ message: Message; records: ToolCallRecord[] }> {
  const outcomes = new Map<Call, ToolCallOutcome>();
  const runOne = async (c: Call): Promise<void> => {
    const started = performance.now();
    emit({ type: 'tool-start', id: c.id, name: c.name, status: toolStatus(c.name, c.input), input: c.input });
    let r: ToolCallOutcome;
    try {
      r = await raceAbort(tools.call({ id: c.id, name: c.name, input: c.input }, signal), signal);
    } catch (e) {
      r = signal.aborted
        ? { content: 'cancelled before it finished', isError: true }
        : { content: `${c.name} failed: ${errorMessage(e)}`, isError: true };
    }
    outcomes.set(c, r);
    const ms = performance.now() - started;
    emit({
      type: 'tool-end',
      id: c.id,
      name: c.name,
      isError: r.isError,
      durationMs: ms,
      status: toolEndStatus(c.name, r.isError, ms),
      output: r.content.slice(0, TOOL_OUTPUT_PREVIEW),
      outputChars: r.content.length,
    });
  };
  for (const batch of batches(calls, tools)) {
    if (signal.aborted) break;
    await Promise.all(batch.map(runOne));
  }
  const content: ContentPart[] = [];
  const records: ToolCallRecord[] = [];
  for (const c of calls) {
    const r = outcomes.get(c) ?? { content: 'not run: the run was stopped first', isError: true };
    content.push({
      type: 'tool-result',
      id: c.id,
      name: c.name,
      content: r.content,
      isError: r.isError,
      ...sourced(c.name, r.source, tools),
    });
    records.push({ name: c.name, input: c.input, isError: r.isError });
  }
  return { message: { role: 'user', content }, records };
}

/** Results for calls that will not run (budget or turn limit reached), keeping the history valid. */
export function skippedResults(calls: Call[], why: string, tools?: Pick<ToolSet, 'mayBringOutside'>): Message {
  return {
    role: 'user',
    content: calls.map((c) => ({
      type: 'tool-result' as const,
      id: c.id,
      name: c.name,
      content: `not run: ${why}`,
      isError: true,
      ...(tools ? sourced(c.name, undefined, tools) : {}),
    })),
  };
}

/**
 * The `from` a result is stored with: its source, if the call said where it came from, and at
 * least the tool's name for every result of a tool that may bring outside content (a result of
 * such a tool stored without one is from an older boxbot, and counts as untrusted).
 */
function sourced(
  tool: string,
  source: ToolCallOutcome['source'],
  tools: Pick<ToolSet, 'mayBringOutside'>,
): { from?: ResultSource } {
  return source || tools.mayBringOutside(tool) ? { from: { tool, ...source } } : {};
}
