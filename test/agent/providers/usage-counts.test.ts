// Token counts a server sends in a stream are checked before they count: a server behind an
// OpenAI-compatible URL (or a proxy) may send missing, null or text counts, and a NaN or a
// string in usage would reach the cost ledger, where a NaN makes every budget check pass.
// Found by the fuzz run over recorded streams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAnthropicProvider } from '../../../src/agent/providers/anthropic.ts';
import { createOpenAIProvider } from '../../../src/agent/providers/openai.ts';
import type { StreamPart, Usage } from '../../../src/agent/types.ts';
import { collect, request } from './contract.ts';

/** A fetch that answers every request with `events` as a 200 event stream. */
const serve =
  (events: object[]): typeof fetch =>
  async () =>
    new Response(
      events.map((e) => `event: ${(e as { type?: string }).type ?? 'x'}\ndata: ${JSON.stringify(e)}\n\n`).join(''),
      {
        headers: { 'content-type': 'text/event-stream' },
      },
    );

function usageOf(parts: StreamPart[]): Usage {
  const u = parts.find((p) => p.type === 'usage');
  assert.ok(u && u.type === 'usage', 'a usage part');
  return u.usage;
}

test('openai: missing, null or text counts in usage are read as 0, never NaN or a string', async () => {
  const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const provider = createOpenAIProvider({
    apiKey: 'k',
    baseURL: 'http://model.test/v1',
    fetch: serve([
      { ...chunk, choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] },
      { ...chunk, choices: [], usage: { prompt_tokens: '12', completion_tokens: null, prompt_tokens_details: {} } },
    ]),
  });
  const out = await collect(provider.stream(request('m'), new AbortController().signal));
  assert.equal(out.error, undefined);
  assert.deepEqual(usageOf(out.parts), { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
});

test('anthropic: a text or negative count keeps the last good one', async () => {
  const provider = createAnthropicProvider({
    apiKey: 'k',
    baseURL: 'http://model.test',
    fetch: serve([
      {
        type: 'message_start',
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          content: [],
          usage: { input_tokens: 7, output_tokens: 1 },
        },
      },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: '5', output_tokens: -3 } },
      { type: 'message_stop' },
    ]),
  });
  const out = await collect(provider.stream(request('m'), new AbortController().signal));
  assert.equal(out.error, undefined);
  assert.deepEqual(usageOf(out.parts), { inputTokens: 7, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 });
});
