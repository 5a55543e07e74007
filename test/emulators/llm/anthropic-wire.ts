// Anthropic Messages wire format: SSE events (message_start, content_block_*, message_delta,
// message_stop, ping, error) and the non-streaming JSON body and error bodies, as api.anthropic.com sends them.

import { controlFrames, type Frame, sseFrame } from './frames.ts';
import { DEFAULT_USAGE, type LlmFinish, type LlmReply } from './script.ts';

const STOP: Record<LlmFinish, string> = { stop: 'end_turn', 'tool-calls': 'tool_use', 'max-tokens': 'max_tokens' };

const ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

type Answer = Extract<LlmReply, { kind: 'answer' }>;

const sse = (event: string, data: unknown): Frame => sseFrame(data, event);

function finishOf(reply: Answer): string {
  const hasTools = reply.events.some((e) => e.type === 'tool-calls');
  return STOP[reply.finish ?? (hasTools ? 'tool-calls' : 'stop')];
}

function usageOf(reply: Answer) {
  const u = reply.usage ?? DEFAULT_USAGE;
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    output_tokens: u.output,
  };
}

/** The SSE frames of a streamed answer; with `showThinking` false, thinking blocks carry only their signature. */
export function anthropicStream(reply: Answer, model: string, id: string, showThinking = true): Frame[] {
  const frames: Frame[] = [];
  const usage = usageOf(reply);
  frames.push(
    sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  );
  frames.push(sse('ping', { type: 'ping' }));
  let index = 0;
  for (const e of reply.events) {
    switch (e.type) {
      case 'text':
        frames.push(
          sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
        );
        for (const text of e.deltas)
          frames.push(
            sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
          );
        frames.push(sse('content_block_stop', { type: 'content_block_stop', index: index++ }));
        break;
      case 'thinking':
        frames.push(
          sse('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          }),
        );
        for (const thinking of showThinking ? e.deltas : []) {
          frames.push(
            sse('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'thinking_delta', thinking },
            }),
          );
        }
        frames.push(
          sse('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'signature_delta', signature: e.signature },
          }),
        );
        frames.push(sse('content_block_stop', { type: 'content_block_stop', index: index++ }));
        break;
      case 'redacted-thinking':
        frames.push(
          sse('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'redacted_thinking', data: e.data },
          }),
        );
        frames.push(sse('content_block_stop', { type: 'content_block_stop', index: index++ }));
        break;
      case 'tool-calls':
        for (const call of e.calls) {
          frames.push(
            sse('content_block_start', {
              type: 'content_block_start',
              index,
              content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
            }),
          );
          for (const partial_json of call.args) {
            frames.push(
              sse('content_block_delta', {
                type: 'content_block_delta',
                index,
                delta: { type: 'input_json_delta', partial_json },
              }),
            );
          }
          frames.push(sse('content_block_stop', { type: 'content_block_stop', index: index++ }));
        }
        break;
      default: {
        const step = controlFrames(e, (err) =>
          sse('error', { type: 'error', error: { type: err.errorType, message: err.message } }),
        );
        frames.push(...step.frames);
        if (step.ends) return frames;
      }
    }
  }
  frames.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: finishOf(reply), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  frames.push(sse('message_stop', { type: 'message_stop' }));
  return frames;
}

/** The non-streaming JSON body of an answer; with `showThinking` false, thinking blocks carry only their signature. */
export function anthropicMessage(reply: Answer, model: string, id: string, showThinking = true): unknown {
  const content: unknown[] = [];
  for (const e of reply.events) {
    if (e.type === 'text') content.push({ type: 'text', text: e.deltas.join(''), citations: null });
    else if (e.type === 'thinking')
      content.push({ type: 'thinking', thinking: showThinking ? e.deltas.join('') : '', signature: e.signature });
    else if (e.type === 'redacted-thinking') content.push({ type: 'redacted_thinking', data: e.data });
    else if (e.type === 'tool-calls') {
      for (const c of e.calls)
        content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args.join('')) as unknown });
    }
  }
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: finishOf(reply),
    stop_sequence: null,
    usage: usageOf(reply),
  };
}

/** The JSON error body for an HTTP error status. */
export function anthropicError(
  status: number,
  errorType: string | undefined,
  message: string | undefined,
  requestId: string,
): unknown {
  const type = errorType ?? ERROR_TYPE[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: message ?? `emulated ${status}` }, request_id: requestId };
}
