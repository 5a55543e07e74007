// Fuzz target: the model APIs' server-sent event streams, through the OpenAI and Anthropic
// providers (the SDKs parse the SSE; the providers map its events to stream parts). Any server
// behind an OpenAI-compatible URL can send anything: a stream yields well-formed parts and ends,
// or fails with one ProviderError, never another error.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createAnthropicProvider } from '../../../src/agent/providers/anthropic.ts';
import { ProviderError } from '../../../src/agent/providers/errors.ts';
import { createOpenAIProvider } from '../../../src/agent/providers/openai.ts';
import type { ModelRequest, Provider, StreamPart } from '../../../src/agent/types.ts';
import { root } from '../../helpers.ts';
import type { FuzzTarget } from '../harness.ts';
import { type Json, mutated } from '../inputs.ts';

/** A recorded stream's events: `[event name or '', data]`. */
function events(file: string): [string, Json][] {
  const raw = readFileSync(join(root, 'test', 'fixtures', 'llm', file), 'utf8');
  return raw
    .split(/\n\n+/)
    .filter((block) => /^data: [{[]/m.test(block) && !block.includes('[DONE]'))
    .map((block) => {
      const name = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)![1]!;
      return [name, JSON.parse(data) as Json];
    });
}

const RECORDED = {
  openai: events('openai-parallel-tool-calls.sse'),
  anthropic: events('anthropic-thinking-tool-use.sse'),
};

function serialize(list: [string, Json][]): string {
  return list.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('');
}

/** A recorded stream with some events' data mutated, some dropped or repeated, maybe cut short. */
function stream(which: 'openai' | 'anthropic'): fc.Arbitrary<string> {
  const recorded = RECORDED[which];
  return fc
    .tuple(
      fc.array(
        fc.tuple(
          fc.nat(),
          mutated(
            recorded.map(([, d]) => d),
            3,
          ),
        ),
        { maxLength: 4 },
      ),
      fc.array(fc.nat(), { maxLength: 2 }),
      fc.array(fc.nat(), { maxLength: 2 }),
      fc.option(fc.nat()),
    )
    .map(([changes, drops, repeats, cut]) => {
      const list = recorded.map(([n, d]) => [n, d] as [string, Json]);
      // A mutation replaces the data of an event of the same kind it was made from (or any event).
      for (const [at, data] of changes) list[at % list.length]![1] = data;
      for (const at of repeats) list.splice(at % list.length, 0, list[at % list.length]!);
      for (const at of drops) list.splice(at % list.length, 1);
      const body = serialize(list);
      return cut === null ? body : body.slice(0, cut % (body.length + 1));
    });
}

/** SSE-ish text: field names, colons, blank lines and JSON pieces in any order. */
const sseText = fc
  .array(
    fc.oneof(
      fc.constantFrom('data: ', 'event: ', 'id: ', 'retry: ', ': ping', '\n', '\n\n', '\r\n', 'data: [DONE]\n\n'),
      fc.constantFrom('{', '}', '"type":', '"error"', '"choices":[', ']', 'null', '{"type":"error","error":{}}'),
      fc.string({ maxLength: 10 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

const request: ModelRequest = {
  model: 'm',
  system: 'be brief',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};

let body = '';
const fetchBody: typeof fetch = async () =>
  new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
const providers: Record<'openai' | 'anthropic', Provider> = {
  openai: createOpenAIProvider({ apiKey: 'k', baseURL: 'http://model.test/v1', fetch: fetchBody }),
  anthropic: createAnthropicProvider({ apiKey: 'k', baseURL: 'http://model.test', fetch: fetchBody }),
};

const FINISH = ['stop', 'tool-calls', 'max-tokens', 'content-filter', 'other'];
const isCount = (n: unknown) => n === undefined || (typeof n === 'number' && Number.isFinite(n) && n >= 0);

/** What the agent loop relies on in each part. */
function checkPart(p: StreamPart): void {
  switch (p.type) {
    case 'text-delta':
      assert.equal(typeof p.text, 'string', 'text-delta text');
      break;
    case 'thinking':
      assert.equal(typeof p.text, 'string', 'thinking text');
      break;
    case 'tool-call':
      assert.equal(typeof p.id, 'string', 'tool-call id');
      assert.equal(typeof p.name, 'string', 'tool-call name');
      break;
    case 'usage':
      for (const n of [p.usage.inputTokens, p.usage.outputTokens, p.usage.cacheReadTokens, p.usage.cacheWriteTokens])
        assert.ok(isCount(n), `usage count ${n}`);
      break;
    case 'finish':
      assert.ok(FINISH.includes(p.reason), `finish reason ${p.reason}`);
      break;
    default:
      assert.fail(`unexpected part ${JSON.stringify(p)}`);
  }
}

/** Streams from either API: recorded ones mutated or cut, and SSE-shaped noise. */
export const sseStreams: FuzzTarget<['openai' | 'anthropic', string]> = {
  name: 'sse streams',
  input: fc.oneof(
    fc.tuple(fc.constant('openai' as const), fc.oneof({ weight: 4, arbitrary: stream('openai') }, sseText)),
    fc.tuple(fc.constant('anthropic' as const), fc.oneof({ weight: 4, arbitrary: stream('anthropic') }, sseText)),
  ),
  async check([which, text]) {
    body = text;
    try {
      for await (const part of providers[which].stream(request, new AbortController().signal)) checkPart(part);
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
    }
  },
};
