// The provider contract every provider runs (Hono's shared-suite style): the real SDK against the LLM
// emulator over HTTP+SSE, through resolveModel, so presets, retries and fallback are exercised as users get them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ProviderError,
  type ResolveContext,
  resolveModel,
  resolveModelWithFallback,
} from '../../../src/agent/providers/index.ts';
import type { Message, ModelRequest, StreamPart } from '../../../src/agent/types.ts';
import type { Secrets } from '../../../src/config/env.ts';
import { type Config, configSchema } from '../../../src/config/schema.ts';
import {
  type LlmEmulator,
  type LlmEmulatorOptions,
  llm,
  type RecordedRequest,
  startLlmEmulator,
} from '../../emulators/llm/index.ts';
import { WIRE, type WireApi } from './wire-shapes.ts';

/** One provider under contract. */
export interface ProviderTarget {
  /** The provider name in `provider/model` strings. */
  provider: string;
  /** The wire API it speaks (Bedrock and Vertex: `anthropic`; Azure: `openai`). */
  api: WireApi;
  /** Config entries (raw JSON, before defaults) and secrets that point the provider at the emulator. */
  configure(emu: LlmEmulator): { config?: Record<string, unknown>; secrets: Record<string, string> };
  /** The key variable; absent for local servers that need none. */
  keyEnv?: string;
  /** Output-limit field the provider sends (Gemini's is `generationConfig.maxOutputTokens`). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens' | 'maxOutputTokens';
  /** False where the host takes no top-level cache marker (Bedrock, Vertex). Default true for `anthropic`. */
  promptCaching?: boolean;
  /** False where the stream is chosen by the path, not a `stream` field (Gemini, Bedrock). */
  streamInBody?: boolean;
  /** Checks the request's credentials; default: the key header carries `test-key-<provider>`. */
  assertAuth?(request: RecordedRequest): void;
  /** Body fields the host adds (e.g. Bedrock's `anthropic_version`). */
  bodyExtras?: Record<string, unknown>;
  /** How the emulator checks this provider's requests (Bedrock: the SigV4 secret). */
  emulator?: LlmEmulatorOptions;
  /** The refusal without credentials, when it names more than one variable. */
  missingKeyMessage?: string;
}

/** The key a request carries, whatever header its API uses. */
const keyHeader = (r: RecordedRequest) =>
  r.headers.authorization ?? r.headers['x-api-key'] ?? r.headers['api-key'] ?? r.headers['x-goog-api-key'];

/** What a stream produced: its parts, the joined text, and the error it ended with (if any). */
export interface Collected {
  parts: StreamPart[];
  text: string;
  error?: unknown;
}

/** Drains a stream; `onPart` may abort it. */
export async function collect(stream: AsyncIterable<StreamPart>, onPart?: (p: StreamPart) => void): Promise<Collected> {
  const parts: StreamPart[] = [];
  try {
    for await (const p of stream) {
      parts.push(p);
      onPart?.(p);
    }
  } catch (error) {
    return { parts, text: textOf(parts), error };
  }
  return { parts, text: textOf(parts) };
}

const textOf = (parts: StreamPart[]) => parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');

/** A user message with plain text. */
export const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

/** A minimal request to `model`. */
export function request(model: string, over: Partial<ModelRequest> = {}): ModelRequest {
  return { model, system: 'You are terse.', messages: [user('Hello?')], tools: [], ...over };
}

interface Harness {
  emu: LlmEmulator;
  ctx: ResolveContext;
  /** Delays the retry layer was asked to wait, in order (the waits themselves are skipped). */
  sleeps: number[];
  spec: (model?: string) => string;
}

function harnessContext(
  target: ProviderTarget,
  emu: LlmEmulator,
  sleeps: number[],
  extra: Record<string, unknown> = {},
): ResolveContext {
  const { config, secrets } = target.configure(emu);
  return {
    config: configSchema.parse({ ...config, ...extra }) as Config,
    secrets: Object.freeze({ ...secrets }) as Secrets,
    retry: {
      maxRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
  };
}

/** Registers the contract tests for `target`. */
export function providerContract(target: ProviderTarget): void {
  const spec = (model = 'test-model') => `${target.provider}/${model}`;

  function scenario(name: string, fn: (h: Harness) => Promise<void>, extraConfig?: Record<string, unknown>): void {
    // The timeout only turns a hang (e.g. a cancellation that never closes the connection) into a failure.
    it(name, { timeout: 30_000 }, async () => {
      const emu = await startLlmEmulator(target.emulator);
      const sleeps: number[] = [];
      try {
        await fn({ emu, ctx: harnessContext(target, emu, sleeps, extraConfig), sleeps, spec });
        emu.assertDone();
      } finally {
        await emu.close();
      }
    });
  }

  const signal = () => new AbortController().signal;
  const body = (emu: LlmEmulator, i = 0) => emu.requests[i]!.body;

  describe(`provider contract: ${target.provider}`, () => {
    scenario('streams text and sends the system prompt, the message and the key', async ({ emu, ctx }) => {
      emu.script([llm.say(['Hel', 'lo', ' there'])]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.equal(out.error, undefined);
      assert.equal(out.text, 'Hello there');
      assert.deepEqual(out.parts.at(-1), { type: 'finish', reason: 'stop' });
      const b = body(emu);
      assert.equal(emu.requests[0]!.model, 'test-model');
      if (target.streamInBody !== false) assert.equal(b.stream, true);
      WIRE[target.api].assertHello(b, { promptCaching: target.promptCaching ?? true });
      for (const [k, v] of Object.entries(target.bodyExtras ?? {})) assert.deepEqual(b[k], v, k);
      const auth = keyHeader(emu.requests[0]!);
      if (target.assertAuth) target.assertAuth(emu.requests[0]!);
      else if (target.keyEnv) assert.match(String(auth), new RegExp(`test-key-${target.provider}`));
      else assert.equal(auth, undefined, 'a keyless local server gets no Authorization header');
    });

    scenario('assembles a tool call from streamed argument fragments', async ({ emu, ctx }) => {
      const input = { path: 'notes/todo.md', lines: 20, tags: ['a', 'b'] };
      emu.script([
        llm.answer([llm.text('Reading.'), llm.toolCalls(llm.call('read_file', input, { id: 'call_1', fragments: 6 }))]),
      ]);
      const m = resolveModel(spec(), ctx);
      const tools = [
        {
          name: 'read_file',
          description: 'Reads a file',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ];
      const out = await collect(m.provider.stream(request(m.model, { tools }), signal()));
      assert.equal(out.error, undefined);
      assert.deepEqual(
        out.parts.filter((p) => p.type === 'tool-call'),
        [{ type: 'tool-call', id: 'call_1', name: 'read_file', input }],
      );
      assert.deepEqual(out.parts.at(-1), { type: 'finish', reason: 'tool-calls' });
      assert.deepEqual(WIRE[target.api].toolNames(body(emu)), ['read_file']);
    });

    scenario('returns parallel tool calls in order, each with its own arguments', async ({ emu, ctx }) => {
      emu.script([
        llm.answer([
          llm.toolCalls(
            llm.call('weather', { city: 'Paris' }, { id: 'call_a', fragments: 4 }),
            llm.call('weather', { city: 'Tokyo' }, { id: 'call_b', fragments: 2 }),
            llm.call('time', {}, { id: 'call_c', fragments: 1 }),
          ),
        ]),
      ]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.equal(out.error, undefined);
      assert.deepEqual(
        out.parts.filter((p) => p.type === 'tool-call'),
        [
          { type: 'tool-call', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool-call', id: 'call_b', name: 'weather', input: { city: 'Tokyo' } },
          { type: 'tool-call', id: 'call_c', name: 'time', input: {} },
        ],
      );
    });

    scenario('sends tool calls and tool results back in the wire shape the API requires', async ({ emu, ctx }) => {
      emu.script([llm.say('It is sunny.')]);
      const m = resolveModel(spec(), ctx);
      const history: Message[] = [
        user('Weather in Paris?'),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', id: 'call_9', name: 'weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool-result', id: 'call_9', name: 'weather', content: 'sunny, 21C', isError: false }],
        },
      ];
      const out = await collect(m.provider.stream(request(m.model, { messages: history }), signal()));
      assert.equal(out.text, 'It is sunny.');
      WIRE[target.api].assertToolRound(body(emu));
    });

    scenario('maps image input', async ({ emu, ctx }) => {
      emu.script([llm.say('A red dot.')]);
      const m = resolveModel(spec(), ctx);
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const msg: Message = {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: png },
        ],
      };
      await collect(m.provider.stream(request(m.model, { messages: [msg] }), signal()));
      WIRE[target.api].assertImage(body(emu), png);
    });

    scenario('reports usage (with cache tokens) and the model that produced it', async ({ emu, ctx }) => {
      emu.script([
        llm.say('ok', {
          usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: target.api === 'anthropic' ? 10 : 0 },
        }),
      ]);
      const m = resolveModel(spec('priced-model'), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      const usage = out.parts.find((p) => p.type === 'usage');
      assert.deepEqual(usage, {
        type: 'usage',
        usage: {
          inputTokens: 100,
          outputTokens: 20,
          cacheReadTokens: 30,
          cacheWriteTokens: target.api === 'anthropic' ? 10 : 0,
        },
        model: `${target.provider}/priced-model`,
      });
    });

    scenario('thinking: signed and redacted blocks come out whole and go back verbatim', async ({ emu, ctx }) => {
      if (target.api === 'anthropic') {
        emu.script([
          llm.answer([
            llm.thinking(['Let me ', 'think.'], 'sig-abc'),
            llm.redactedThinking('opaque=='),
            llm.text('Answer.'),
          ]),
          llm.say('Next.'),
        ]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(
          m.provider.stream(request(m.model, { thinkingBudgetTokens: 2048, maxOutputTokens: 1024 }), signal()),
        );
        assert.deepEqual(out.parts.slice(0, 3), [
          { type: 'thinking', text: 'Let me think.', signature: 'sig-abc' },
          { type: 'thinking', text: 'opaque==', redacted: true },
          { type: 'text-delta', text: 'Answer.' },
        ]);
        assert.deepEqual(body(emu).thinking, { type: 'enabled', budget_tokens: 2048 });
        assert.ok(body(emu).max_tokens > 2048, 'max_tokens must exceed the thinking budget');
        // The round trip: the assistant turn goes back with its thinking blocks untouched.
        const assistant: Message = {
          role: 'assistant',
          content: [
            { type: 'thinking', text: 'Let me think.', signature: 'sig-abc' },
            { type: 'thinking', text: 'opaque==', redacted: true },
            { type: 'text', text: 'Answer.' },
          ],
        };
        await collect(
          m.provider.stream(request(m.model, { messages: [user('Q'), assistant, user('More')] }), signal()),
        );
        assert.deepEqual(body(emu, 1).messages[1].content, [
          { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
          { type: 'redacted_thinking', data: 'opaque==' },
          { type: 'text', text: 'Answer.' },
        ]);
      } else if (target.api === 'gemini') {
        // Thought summaries come as thought parts; the signature must go back with the next turn.
        emu.script([
          llm.answer([llm.thinking(['Let me ', 'think.'], 'sig-abc'), llm.text('Answer.')]),
          llm.say('Next.'),
        ]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(m.provider.stream(request(m.model, { thinkingBudgetTokens: 2048 }), signal()));
        assert.deepEqual(out.parts.slice(0, 2), [
          { type: 'thinking', text: 'Let me think.', signature: 'sig-abc' },
          { type: 'text-delta', text: 'Answer.' },
        ]);
        assert.deepEqual(body(emu).generationConfig.thinkingConfig, { thinkingBudget: 2048, includeThoughts: true });
        const assistant: Message = {
          role: 'assistant',
          content: [
            { type: 'thinking', text: 'Let me think.', signature: 'sig-abc' },
            { type: 'text', text: 'Answer.' },
          ],
        };
        await collect(
          m.provider.stream(request(m.model, { messages: [user('Q'), assistant, user('More')] }), signal()),
        );
        WIRE.gemini.assertThinkingRoundTrip(body(emu, 1));
      } else {
        // Compatible servers stream reasoning beside the content; it is shown but never sent back.
        emu.script([
          llm.answer([llm.thinking(['Let me ', 'think.'], 'unused'), llm.text('Answer.')]),
          llm.say('Next.'),
        ]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.deepEqual(out.parts.slice(0, 2), [
          { type: 'thinking', text: 'Let me think.' },
          { type: 'text-delta', text: 'Answer.' },
        ]);
        const assistant: Message = {
          role: 'assistant',
          content: [
            { type: 'thinking', text: 'Let me think.' },
            { type: 'text', text: 'Answer.' },
          ],
        };
        await collect(
          m.provider.stream(request(m.model, { messages: [user('Q'), assistant, user('More')] }), signal()),
        );
        WIRE[target.api].assertThinkingRoundTrip(body(emu, 1));
      }
    });

    scenario('finishes with max-tokens when the output limit is hit, and sends the limit', async ({ emu, ctx }) => {
      emu.script([llm.say('The story goes on and', { finish: 'max-tokens' })]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model, { maxOutputTokens: 64 }), signal()));
      assert.equal(out.text, 'The story goes on and');
      assert.deepEqual(out.parts.at(-1), { type: 'finish', reason: 'max-tokens' });
      assert.equal(WIRE[target.api].maxTokens(body(emu)), 64);
      const sent = target.maxTokensField === 'maxOutputTokens' ? body(emu).generationConfig : body(emu);
      assert.equal(sent[target.maxTokensField], 64, `sent as ${target.maxTokensField}`);
    });

    scenario('429 then success: waits what retry-after-ms says, then answers', async ({ emu, ctx, sleeps }) => {
      emu.script([llm.fail(429, { retryAfterMs: 7 }), llm.say('Second time lucky.')]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.equal(out.error, undefined);
      assert.equal(out.text, 'Second time lucky.');
      assert.equal(emu.requests.length, 2);
      assert.deepEqual(sleeps, [7]);
    });

    scenario('5xx with retry-after seconds: honoured; the retry succeeds', async ({ emu, ctx, sleeps }) => {
      emu.script([llm.fail(503, { retryAfterSeconds: 2 }), llm.fail(500), llm.say('Up again.')]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.equal(out.text, 'Up again.');
      assert.equal(emu.requests.length, 3);
      assert.equal(sleeps[0], 2000);
      assert.ok(sleeps[1]! > 0, 'backoff without a header is not zero');
    });

    scenario("401: no retry, one request, the API's refusal named", async ({ emu, ctx, sleeps }) => {
      emu.script([llm.fail(401, { message: 'invalid x-api-key' })]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.ok(out.error instanceof ProviderError, String(out.error));
      assert.equal(out.error.kind, 'api');
      assert.equal(out.error.status, 401);
      assert.equal(out.error.retryable, false);
      assert.equal(out.error.provider, target.provider);
      assert.match(out.error.message, /401.*invalid x-api-key/);
      assert.equal(emu.requests.length, 1);
      assert.deepEqual(sleeps, []);
    });

    scenario('retries give up after maxRetries and surface the last error', async ({ emu, ctx }) => {
      emu.script([llm.fail(500), llm.fail(502), llm.fail(503)]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.ok(out.error instanceof ProviderError);
      assert.equal(out.error.status, 503);
      assert.equal(emu.requests.length, 3, 'first try + maxRetries (2)');
    });

    scenario(
      '529 overload: the fallback model answers at once',
      async ({ emu, ctx, sleeps }) => {
        emu.script([
          llm.fail(529, { errorType: 'overloaded_error', message: 'Overloaded' }),
          llm.say('Fallback here.'),
        ]);
        const m = resolveModelWithFallback(spec('primary-model'), ctx);
        assert.equal(m.fallbackId, spec('fallback-model'));
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.error, undefined);
        assert.equal(out.text, 'Fallback here.');
        assert.deepEqual(
          emu.requests.map((r) => r.model),
          ['primary-model', 'fallback-model'],
        );
        assert.deepEqual(sleeps, [], 'no retry of the overloaded primary when a fallback exists');
        const usage = out.parts.find((p) => p.type === 'usage');
        assert.equal(
          usage?.type === 'usage' ? usage.model : undefined,
          spec('fallback-model'),
          'the cost is billed to the model that answered',
        );
      },
      { fallbackModel: `${target.provider}/fallback-model` },
    );

    scenario(
      '429 that outlives the retries: the fallback takes over',
      async ({ emu, ctx }) => {
        emu.script([llm.fail(429), llm.fail(429), llm.fail(429), llm.say('Fallback here.')]);
        const m = resolveModelWithFallback(spec('primary-model'), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.text, 'Fallback here.');
        assert.deepEqual(
          emu.requests.map((r) => r.model),
          ['primary-model', 'primary-model', 'primary-model', 'fallback-model'],
        );
      },
      { fallbackModel: `${target.provider}/fallback-model` },
    );

    scenario(
      '401 does not fall back: a bad key is not an overload',
      async ({ emu, ctx }) => {
        emu.script([llm.fail(401)]);
        const m = resolveModelWithFallback(spec('primary-model'), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.ok(out.error instanceof ProviderError);
        assert.equal(out.error.status, 401);
        assert.equal(emu.requests.length, 1);
      },
      { fallbackModel: `${target.provider}/fallback-model` },
    );

    scenario(
      'an error event mid-stream: the partial answer is not replayed; the error says mid-stream',
      async ({ emu, ctx, sleeps }) => {
        emu.script([llm.answer([llm.text('The first half'), llm.streamError('overloaded_error', 'Overloaded')])]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.text, 'The first half');
        assert.ok(out.error instanceof ProviderError, String(out.error));
        assert.equal(out.error.midStream, true);
        assert.equal(out.error.retryable, false);
        assert.match(out.error.message, /Overloaded/);
        assert.equal(emu.requests.length, 1);
        assert.deepEqual(sleeps, []);
      },
    );

    scenario('an error event before any content is retried like a failed request', async ({ emu, ctx }) => {
      emu.script([llm.answer([llm.streamError('overloaded_error', 'Overloaded')]), llm.say('Recovered.')]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.equal(out.error, undefined);
      assert.equal(out.text, 'Recovered.');
      assert.equal(emu.requests.length, 2);
    });

    scenario(
      'a dropped connection mid-stream is a mid-stream error, not a silent short answer',
      async ({ emu, ctx }) => {
        emu.script([llm.answer([llm.text('Half an ans'), llm.disconnect()])]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.text, 'Half an ans');
        assert.ok(out.error instanceof ProviderError, String(out.error));
        assert.equal(out.error.midStream, true);
        assert.equal(out.error.kind, 'network');
        assert.ok(!out.parts.some((p) => p.type === 'finish'));
        assert.equal(emu.requests.length, 1);
      },
    );

    scenario('a stream that ends early without a finish is an error, not a short answer', async ({ emu, ctx }) => {
      emu.script([llm.answer([llm.text('Cut'), llm.truncate()])]);
      const m = resolveModel(spec(), ctx);
      const out = await collect(m.provider.stream(request(m.model), signal()));
      assert.equal(out.text, 'Cut');
      assert.ok(out.error instanceof ProviderError, String(out.error));
      assert.equal(out.error.kind, 'stream');
      assert.equal(out.error.midStream, true);
      assert.match(out.error.message, /ended before the model finished/);
    });

    scenario('cancellation mid-stream stops the iteration and closes the connection', async ({ emu, ctx }) => {
      emu.script([llm.answer([llm.text('Thinking out loud'), llm.hang()])]);
      const m = resolveModel(spec(), ctx);
      const ac = new AbortController();
      const out = await collect(m.provider.stream(request(m.model), ac.signal), (p) => {
        if (p.type === 'text-delta') ac.abort();
      });
      assert.equal(out.text, 'Thinking out loud');
      assert.ok(out.error instanceof ProviderError, String(out.error));
      assert.equal(out.error.kind, 'aborted');
      assert.equal(await emu.requests[0]!.ended, 'client-closed');
    });

    scenario('an already aborted signal sends nothing', async ({ emu, ctx }) => {
      const m = resolveModel(spec(), ctx);
      const ac = new AbortController();
      ac.abort();
      const out = await collect(m.provider.stream(request(m.model), ac.signal));
      assert.ok(out.error instanceof ProviderError);
      assert.equal(out.error.kind, 'aborted');
      assert.equal(emu.requests.length, 0);
    });

    if (target.keyEnv) {
      const keyEnv = target.keyEnv;
      scenario('without its key the model is refused, naming the variable', async ({ emu }) => {
        const { config, secrets } = target.configure(emu);
        const { [keyEnv]: _dropped, ...rest } = secrets;
        assert.throws(
          () => resolveModel(spec('some-model'), { config: configSchema.parse(config ?? {}), secrets: rest }),
          {
            name: 'ModelConfigError',
            message: `${spec('some-model')} needs ${target.missingKeyMessage ?? keyEnv}`,
          },
        );
      });
    }
  });

  // Scenarios that wait out an idle timeout: they share nothing (each has its own emulator and retry log)
  // and mostly wait, so they run together and the suite takes about its longest wait.
  describe(`provider contract: ${target.provider}, idle timeout`, { concurrency: true }, () => {
    // The idle timeout is shorter where every stream stalls for good (no timing decides the outcome, only whether
    // the watchdog exists; it still leaves the retry time to reach the emulator on a busy machine), and long enough
    // where a healthy reply must beat it on a busy machine. A blocked event loop (the unit layer imports the next test
    // file while this one runs) does not count as silence: the watchdog reads what arrived meanwhile before it
    // decides (test/agent/providers/idle-timer.test.ts).
    const quick = { modelIdleTimeoutMs: 1500 };
    const roomy = { modelIdleTimeoutMs: 2500 };

    scenario(
      'a stream that sends nothing is ended as stalled, retried once, then the error names the provider',
      async ({ emu, ctx, sleeps }) => {
        emu.script([llm.stall(), llm.answer([llm.hang()])]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.ok(out.error instanceof ProviderError, String(out.error));
        assert.equal(out.error.kind, 'stalled');
        assert.equal(out.error.midStream, false);
        assert.equal(
          out.error.message,
          `${target.provider}: the model stream stalled (no data for ${quick.modelIdleTimeoutMs} ms)`,
        );
        assert.equal(emu.requests.length, 2, 'one retry for a stall, not maxRetries (2)');
        assert.equal(sleeps.length, 1);
        assert.deepEqual(
          await Promise.all(emu.requests.map((r) => r.ended)),
          ['client-closed', 'client-closed'],
          'each stalled request is closed, not left open',
        );
      },
      quick,
    );

    scenario(
      'a stalled primary is retried, then the fallback model answers',
      async ({ emu, ctx }) => {
        emu.script([llm.stall(), llm.stall(), llm.say('Fallback here.')]);
        const m = resolveModelWithFallback(spec('primary-model'), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.error, undefined);
        assert.equal(out.text, 'Fallback here.');
        assert.deepEqual(
          emu.requests.map((r) => r.model),
          ['primary-model', 'primary-model', 'fallback-model'],
        );
      },
      { ...roomy, fallbackModel: `${target.provider}/fallback-model` },
    );

    scenario(
      'a stream that stalls after text is a mid-stream stall: not replayed, not handed to the fallback',
      async ({ emu, ctx }) => {
        emu.script([llm.answer([llm.text('Half an ans'), llm.hang()])]);
        const m = resolveModelWithFallback(spec('primary-model'), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.text, 'Half an ans');
        assert.ok(out.error instanceof ProviderError, String(out.error));
        assert.equal(out.error.kind, 'stalled');
        assert.equal(out.error.midStream, true);
        assert.equal(emu.requests.length, 1);
        assert.equal(await emu.requests[0]!.ended, 'client-closed');
      },
      { ...roomy, fallbackModel: `${target.provider}/fallback-model` },
    );

    scenario(
      'a slow but steady stream is not cut: tool-call fragments count as data though they yield no part',
      async ({ emu, ctx }) => {
        // One fragment per character, 30 ms apart: over the idle timeout in total (a slow machine only makes it
        // longer), an 80th of it between two.
        const input = { path: 'notes/a-rather-long-file-name-for-many-fragments.txt', text: 'x'.repeat(60) };
        const fragments = JSON.stringify(input).length;
        const gapMs = 30;
        assert.ok(fragments * gapMs > roomy.modelIdleTimeoutMs, 'the scripted fragments outlast the idle timeout');
        emu.script([
          llm.answer([llm.toolCalls(llm.call('write_file', input, { id: 'call_slow', fragments }))], {
            chunkDelayMs: gapMs,
          }),
        ]);
        const m = resolveModel(spec(), ctx);
        const out = await collect(m.provider.stream(request(m.model), signal()));
        assert.equal(out.error, undefined, String(out.error));
        assert.deepEqual(
          out.parts.find((p) => p.type === 'tool-call'),
          { type: 'tool-call', id: 'call_slow', name: 'write_file', input },
        );
        assert.equal(emu.requests.length, 1);
      },
      roomy,
    );
  });
}
