// Google Gemini API wire format (generativelanguage.googleapis.com, v1beta): `:streamGenerateContent?alt=sse`
// chunks of GenerateContentResponse, whole function calls, thought parts with signatures, usageMetadata on the
// last chunk, and google.rpc error bodies (with RetryInfo when the script says how long to wait).

import { controlFrames, type Frame, sseFrame } from './frames.ts';
import { DEFAULT_USAGE, type LlmFinish, type LlmReply } from './script.ts';

const FINISH: Record<LlmFinish, string> = { stop: 'STOP', 'tool-calls': 'STOP', 'max-tokens': 'MAX_TOKENS' };

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

type Answer = Extract<LlmReply, { kind: 'answer' }>;

const data = (obj: unknown): Frame => sseFrame(obj, undefined, '\r\n');

function usageOf(reply: Answer) {
  const u = reply.usage ?? DEFAULT_USAGE;
  const prompt = u.input + (u.cacheRead ?? 0); // promptTokenCount includes the cached part
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: u.output,
    totalTokenCount: prompt + u.output,
    ...(u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}),
  };
}

/** The SSE frames of a streamed answer. */
export function geminiStream(reply: Answer, model: string, id: string): Frame[] {
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
    data({
      candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }],
      modelVersion: model,
      responseId: id,
    });
  const frames: Frame[] = [];
  for (const e of reply.events) {
    switch (e.type) {
      case 'text':
        for (const text of e.deltas) frames.push(chunk([{ text }]));
        break;
      case 'thinking':
        e.deltas.forEach((text, i) => {
          const last = i === e.deltas.length - 1;
          frames.push(chunk([{ text, thought: true, ...(last ? { thoughtSignature: e.signature } : {}) }]));
        });
        break;
      case 'redacted-thinking':
        break;
      case 'tool-calls':
        // Gemini sends each call whole; parallel calls arrive together in one chunk.
        frames.push(
          chunk(
            e.calls.map((c) => ({
              functionCall: { id: c.id, name: c.name, args: JSON.parse(c.args.join('')) as unknown },
            })),
          ),
        );
        break;
      default: {
        const step = controlFrames(e, (err) => data(geminiError(500, err.message)));
        frames.push(...step.frames);
        if (step.ends) return frames;
      }
    }
  }
  const hasTools = reply.events.some((e) => e.type === 'tool-calls');
  frames.push(
    data({
      candidates: [
        {
          content: { parts: [{ text: '' }], role: 'model' },
          finishReason: FINISH[reply.finish ?? (hasTools ? 'tool-calls' : 'stop')],
          index: 0,
        },
      ],
      usageMetadata: usageOf(reply),
      modelVersion: model,
      responseId: id,
    }),
  );
  return frames;
}

/** A google.rpc error body; `retryAfterMs` adds the RetryInfo detail Gemini sends with 429s. */
export function geminiError(status: number, message?: string, retryAfterMs?: number): unknown {
  const details =
    retryAfterMs === undefined
      ? []
      : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterMs / 1000}s` }];
  return {
    error: {
      code: status,
      message: message ?? `emulated ${status}`,
      status: STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
      ...(details.length ? { details } : {}),
    },
  };
}
