// A scripted model for loop tests: each call yields the next scripted step's parts. The test
// fails if steps are left unused when it ends, or if the loop calls the model more often than
// scripted. Requests are kept so tests can check what the model was shown.
import type { TestContext } from 'node:test';
import type { FinishReason, ModelRequest, Provider, StreamPart, Usage } from '../../../src/agent/types.ts';

/** One call's parts, or a function producing them (to hang, observe the signal, ...). */
export type ScriptStep = StreamPart[] | ((req: ModelRequest, signal: AbortSignal) => AsyncIterable<StreamPart>);

/** The provider plus what it saw. */
export interface ScriptedModel extends Provider {
  requests: ModelRequest[];
  /** Steps not yet used. */
  remaining(): number;
}

/** A scripted provider bound to `t`: unused steps or extra calls fail the test. */
export function scriptedModel(t: TestContext, steps: ScriptStep[], name = 'scripted'): ScriptedModel {
  const queue = [...steps];
  const requests: ModelRequest[] = [];
  let overCalls = 0;
  t.after(() => {
    if (overCalls)
      throw new Error(`the model was called ${overCalls} time(s) more than the ${steps.length} scripted step(s)`);
    if (queue.length) throw new Error(`${queue.length} scripted model step(s) left unused (of ${steps.length})`);
  });
  return {
    name,
    requests,
    remaining: () => queue.length,
    stream(req, signal) {
      requests.push(structuredClone(req));
      const step = queue.shift();
      if (!step) {
        overCalls++;
        throw new Error(`scripted model: call ${requests.length} was not scripted`);
      }
      if (typeof step === 'function') return step(req, signal);
      return (async function* () {
        for (const p of step) yield p;
      })();
    },
  };
}

const USAGE: Usage = { inputTokens: 100, outputTokens: 20 };

/** A final text answer. */
export const reply = (text: string, usage: Usage = USAGE): StreamPart[] => [
  { type: 'text-delta', text },
  { type: 'usage', usage },
  { type: 'finish', reason: 'stop' },
];

/** A turn calling tools (each `[name, input]`), ids `call-1`... unless given as a third item. */
export const callTools = (calls: [string, unknown, string?][], text = '', usage: Usage = USAGE): StreamPart[] => [
  ...(text ? [{ type: 'text-delta' as const, text }] : []),
  ...calls.map(([name, input, id], i) => ({ type: 'tool-call' as const, id: id ?? `call-${i + 1}`, name, input })),
  { type: 'usage', usage },
  { type: 'finish', reason: 'tool-calls' as FinishReason },
];

/** A reply cut off by the output limit. */
export const cutOff = (text: string, usage: Usage = USAGE): StreamPart[] => [
  { type: 'text-delta', text },
  { type: 'usage', usage },
  { type: 'finish', reason: 'max-tokens' },
];

/** A stream that sends `text`, then waits until aborted; `seen.signal` is the signal it was given. */
export function hangAfter(text: string, seen: { signal?: AbortSignal } = {}): ScriptStep {
  return (_req, signal) => {
    seen.signal = signal;
    return (async function* () {
      yield { type: 'text-delta' as const, text };
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      throw signal.reason as Error;
    })();
  };
}
