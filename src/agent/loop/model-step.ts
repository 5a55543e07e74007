// One model call: streams the provider's parts into an assistant message (text merged, thinking
// kept verbatim, tool calls in order), forwards text deltas as events, and stops waiting the
// moment the run's signal fires even if the provider ignores it.
import type { ContentPart, FinishReason, Message, ModelRequest, Provider, StreamPart, Usage } from '../types.ts';
import { raceAbort } from './run-signal.ts';
import type { EventSink } from './types.ts';

/** What one model call produced. */
export interface ModelTurn {
  message: Message;
  text: string;
  toolCalls: Extract<ContentPart, { type: 'tool-call' }>[];
  finish: FinishReason;
  usage: Usage | undefined;
  /** The model that actually answered, when the provider names it (a fallback may have taken over). */
  usageModel?: string;
}

/** Merges a call's usage parts field by field (providers report once, or cumulatively). */
function mergeUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const out: Usage = {
    inputTokens: Math.max(a.inputTokens, b.inputTokens),
    outputTokens: Math.max(a.outputTokens, b.outputTokens),
  };
  const cr = Math.max(a.cacheReadTokens ?? -1, b.cacheReadTokens ?? -1);
  const cw = Math.max(a.cacheWriteTokens ?? -1, b.cacheWriteTokens ?? -1);
  if (cr >= 0) out.cacheReadTokens = cr;
  if (cw >= 0) out.cacheWriteTokens = cw;
  return out;
}

/**
 * Calls the model once. Throws the provider's error, or the signal's reason when aborted; `partial` then holds what
 * arrived.
 */
export async function modelStep(
  provider: Provider,
  request: ModelRequest,
  signal: AbortSignal,
  emit: EventSink,
  partial: { turn?: ModelTurn } = {},
): Promise<ModelTurn> {
  const content: ContentPart[] = [];
  const turn: ModelTurn = {
    message: { role: 'assistant', content },
    text: '',
    toolCalls: [],
    finish: 'other',
    usage: undefined,
  };
  partial.turn = turn;
  let finished = false;
  const it = provider.stream(request, signal)[Symbol.asyncIterator]();
  // One abort listener for the whole stream, not one per part (a long answer has hundreds):
  // `wake` rejects the wait for the part in hand as soon as the signal fires.
  let wake: ((e: unknown) => void) | undefined;
  const onAbort = () => wake?.(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = it.next();
      const r = signal.aborted
        ? await raceAbort(next, signal)
        : await new Promise<IteratorResult<StreamPart>>((resolve, reject) => {
            wake = reject;
            next.then(resolve, reject);
          });
      wake = undefined;
      if (r.done) break;
      const part = r.value;
      switch (part.type) {
        case 'text-delta': {
          if (!part.text) break;
          const last = content[content.length - 1];
          if (last?.type === 'text') last.text += part.text;
          else content.push({ type: 'text', text: part.text });
          turn.text += part.text;
          emit({ type: 'text-delta', text: part.text });
          break;
        }
        case 'thinking': {
          // Deltas without a signature join the open block; a signature closes it.
          const last = content[content.length - 1];
          if (last?.type === 'thinking' && last.signature === undefined && !last.redacted && !part.redacted) {
            last.text += part.text;
            if (part.signature !== undefined) last.signature = part.signature;
          } else {
            content.push({
              type: 'thinking',
              text: part.text,
              ...(part.signature !== undefined ? { signature: part.signature } : {}),
              ...(part.redacted ? { redacted: true } : {}),
            });
            emit({ type: 'thinking' });
          }
          break;
        }
        case 'tool-call': {
          const call = { type: 'tool-call' as const, id: part.id, name: part.name, input: part.input };
          content.push(call);
          turn.toolCalls.push(call);
          break;
        }
        case 'usage':
          turn.usage = mergeUsage(turn.usage, part.usage);
          if (part.model) turn.usageModel = part.model;
          break;
        case 'finish':
          turn.finish = part.reason;
          finished = true;
          break;
        case 'error':
          throw part.error;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished || signal.aborted) void Promise.resolve(it.return?.()).catch(() => {});
  }
  if (!finished && turn.toolCalls.length) turn.finish = 'tool-calls';
  else if (!finished) turn.finish = 'stop';
  return turn;
}
