// Cohere Chat v2 wire format (`POST /v2/chat`): SSE events message-start, content-start/-delta/-end,
// tool-plan-delta, tool-call-start/-delta/-end and message-end (finish reason and usage), and error bodies.

import { controlFrames, type Frame, sseFrame } from './frames.ts';
import { DEFAULT_USAGE, type LlmFinish, type LlmReply } from './script.ts';

const FINISH: Record<LlmFinish, string> = { stop: 'COMPLETE', 'tool-calls': 'TOOL_CALL', 'max-tokens': 'MAX_TOKENS' };

type Answer = Extract<LlmReply, { kind: 'answer' }>;

const sse = (type: string, body: Record<string, unknown>): Frame => sseFrame({ type, ...body }, type);

function usageOf(reply: Answer) {
  const u = reply.usage ?? DEFAULT_USAGE;
  const input = u.input + (u.cacheRead ?? 0);
  return {
    billed_units: { input_tokens: input, output_tokens: u.output },
    tokens: { input_tokens: input, output_tokens: u.output },
    cached_tokens: u.cacheRead ?? 0,
  };
}

/** The SSE frames of a streamed answer. */
export function cohereStream(reply: Answer, id: string): Frame[] {
  const frames: Frame[] = [sse('message-start', { id, delta: { message: { role: 'assistant' } } })];
  let content = 0;
  let tool = 0;
  for (const e of reply.events) {
    switch (e.type) {
      case 'text':
      case 'thinking': {
        const kind = e.type === 'text' ? 'text' : 'thinking';
        frames.push(sse('content-start', { index: content, delta: { message: { content: { type: kind } } } }));
        for (const d of e.deltas) {
          frames.push(sse('content-delta', { index: content, delta: { message: { content: { [kind]: d } } } }));
        }
        frames.push(sse('content-end', { index: content++ }));
        break;
      }
      case 'redacted-thinking':
        break;
      case 'tool-calls':
        for (const c of e.calls) {
          const [first = '', ...rest] = c.args;
          frames.push(
            sse('tool-call-start', {
              index: tool,
              delta: {
                message: { tool_calls: { id: c.id, type: 'function', function: { name: c.name, arguments: first } } },
              },
            }),
          );
          for (const args of rest) {
            frames.push(
              sse('tool-call-delta', {
                index: tool,
                delta: { message: { tool_calls: { function: { arguments: args } } } },
              }),
            );
          }
          frames.push(sse('tool-call-end', { index: tool++ }));
        }
        break;
      default: {
        const step = controlFrames(e, (err) =>
          sse('message-end', { id, delta: { finish_reason: 'ERROR', error: err.message } }),
        );
        frames.push(...step.frames);
        if (step.ends) return frames;
      }
    }
  }
  const hasTools = reply.events.some((e) => e.type === 'tool-calls');
  frames.push(
    sse('message-end', {
      id,
      delta: { finish_reason: FINISH[reply.finish ?? (hasTools ? 'tool-calls' : 'stop')], usage: usageOf(reply) },
    }),
  );
  return frames;
}

/** The JSON error body Cohere sends with an HTTP error status. */
export function cohereError(status: number, message?: string): unknown {
  return { id: `err-${status}`, message: message ?? `emulated ${status}` };
}
