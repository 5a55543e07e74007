// What a server sends in a stream is checked before it is used: a server behind an
// OpenAI-compatible URL (or a proxy) may send missing, null or text token counts (a NaN or a
// string in usage would reach the cost ledger, where a NaN makes every budget check pass), and
// text, ids or names that are not strings. Found by the fuzz run over recorded streams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAnthropicProvider } from '../../../src/agent/providers/anthropic.ts';
import { ProviderError } from '../../../src/agent/providers/errors.ts';
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

const openaiChunk = (delta: object, finish: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

for (const [what, delta] of [
  ['text that is a number', { content: 5 }],
  ['text that is true', { content: true }],
  ['a tool call id that is true', { tool_calls: [{ index: 0, id: true, function: { name: 'f', arguments: '{}' } }] }],
  ['a tool name that is an object', { tool_calls: [{ index: 0, id: 'c1', function: { name: {}, arguments: '{}' } }] }],
] as const) {
  test(`openai: ${what} is malformed stream data, not a part of the wrong type`, async () => {
    const provider = createOpenAIProvider({
      apiKey: 'k',
      baseURL: 'http://model.test/v1',
      fetch: serve([openaiChunk(delta), openaiChunk({}, 'stop')]),
    });
    const out = await collect(provider.stream(request('m'), new AbortController().signal));
    assert.ok(out.error instanceof ProviderError, `got ${String(out.error)}`);
    assert.match(out.error.message, /malformed stream data/);
    for (const p of out.parts) if (p.type === 'text-delta') assert.equal(typeof p.text, 'string');
  });
}

test('anthropic: a tool_use block without an id or name is malformed stream data', async () => {
  const provider = createAnthropicProvider({
    apiKey: 'k',
    baseURL: 'http://model.test',
    fetch: serve([
      { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], usage: {} } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', input: {} } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
      { type: 'message_stop' },
    ]),
  });
  const out = await collect(provider.stream(request('m'), new AbortController().signal));
  assert.ok(out.error instanceof ProviderError, `got ${String(out.error)}`);
  assert.match(out.error.message, /malformed stream data/);
});
