// OpenAI Chat Completions wire format: `data:` chunks ending in `[DONE]`, parallel tool calls
// interleaved by index, the include_usage chunk, and the non-streaming JSON and error bodies.

import { controlFrames, type Frame, sseFrame } from './frames.ts';
import { DEFAULT_USAGE, type LlmFinish, type LlmReply } from './script.ts';

const FINISH: Record<LlmFinish, string> = { stop: 'stop', 'tool-calls': 'tool_calls', 'max-tokens': 'length' };

const ERROR: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

type Answer = Extract<LlmReply, { kind: 'answer' }>;

const data = (obj: unknown): Frame => sseFrame(obj);

function finishOf(reply: Answer): string {
  const hasTools = reply.events.some((e) => e.type === 'tool-calls');
  return FINISH[reply.finish ?? (hasTools ? 'tool-calls' : 'stop')];
}

function usageOf(reply: Answer) {
  const u = reply.usage ?? DEFAULT_USAGE;
  const prompt = u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0); // OpenAI's prompt_tokens include cached ones
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** The SSE frames of a streamed answer; the usage chunk only when the request asked for it. */
export function openaiStream(reply: Answer, model: string, id: string, includeUsage: boolean): Frame[] {
  const created = 1_760_000_000;
  const chunk = (delta: unknown, finish: string | null = null) =>
    data({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: 'fp_emulator',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const frames: Frame[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  let toolIndex = 0;
  for (const e of reply.events) {
    switch (e.type) {
      case 'text':
        for (const content of e.deltas) frames.push(chunk({ content }));
        break;
      case 'thinking': // as DeepSeek and other compatible servers stream reasoning
        for (const reasoning_content of e.deltas) frames.push(chunk({ reasoning_content }));
        break;
      case 'redacted-thinking':
        break;
      case 'tool-calls': {
        const first = toolIndex;
        e.calls.forEach((call, i) => {
          frames.push(
            chunk({
              tool_calls: [
                { index: first + i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
              ],
            }),
          );
        });
        // Fragments of parallel calls interleave: call 0 part 1, call 1 part 1, call 0 part 2, ...
        const longest = Math.max(...e.calls.map((c) => c.args.length));
        for (let part = 0; part < longest; part++) {
          e.calls.forEach((call, i) => {
            const args = call.args[part];
            if (args !== undefined)
              frames.push(chunk({ tool_calls: [{ index: first + i, function: { arguments: args } }] }));
          });
        }
        toolIndex += e.calls.length;
        break;
      }
      default: {
        const step = controlFrames(e, (err) =>
          data({ error: { message: err.message, type: err.errorType, param: null, code: null } }),
        );
        frames.push(...step.frames);
        if (step.ends) return frames;
      }
    }
  }
  frames.push(chunk({}, finishOf(reply)));
  if (includeUsage) {
    frames.push(
      data({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        system_fingerprint: 'fp_emulator',
        choices: [],
        usage: usageOf(reply),
      }),
    );
  }
  frames.push({ data: 'data: [DONE]\n\n' });
  return frames;
}

/** The non-streaming JSON body of an answer. */
export function openaiCompletion(reply: Answer, model: string, id: string): unknown {
  const text = reply.events.flatMap((e) => (e.type === 'text' ? e.deltas : [])).join('');
  const calls = reply.events.flatMap((e) =>
    e.type === 'tool-calls'
      ? e.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args.join('') } }))
      : [],
  );
  return {
    id,
    object: 'chat.completion',
    created: 1_760_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || null,
          refusal: null,
          annotations: [],
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: finishOf(reply),
      },
    ],
    usage: usageOf(reply),
    system_fingerprint: 'fp_emulator',
  };
}

/** The JSON error body for an HTTP error status. */
export function openaiError(status: number, errorType: string | undefined, message: string | undefined): unknown {
  const known = ERROR[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return {
    error: { message: message ?? `emulated ${status}`, type: errorType ?? known.type, param: null, code: known.code },
  };
}
