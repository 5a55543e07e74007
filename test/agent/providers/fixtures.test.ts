// Recorded-shape SSE streams (test/fixtures/llm) replayed through the real SDKs: what the providers make
// of a stream exactly as the APIs send it, including the parts our own emulator renders differently.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { costOf, resolveModel } from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { collect, request } from './contract.ts';

const fixture = (name: string) => new URL(`../../fixtures/llm/${name}`, import.meta.url);

describe('recorded streams', () => {
  it('anthropic: thinking (signed + redacted), text, a fragmented tool_use, cache usage', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.replay(fixture('anthropic-thinking-tool-use.sse'))]);
      const m = resolveModel('anthropic/claude-haiku-4-5', {
        config: configSchema.parse({}),
        secrets: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: emu.anthropicBaseURL },
      });
      const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
      assert.equal(out.error, undefined);
      assert.deepEqual(out.parts, [
        {
          type: 'thinking',
          text: 'The user wants the weather in Paris. I should call get_weather with celsius.',
          signature:
            'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7UHbVMkEuTCGXGb2gsMZlpG7vSr2dx3Yt0W' +
            'y7nxsvcp0P5bjMHvOnRpcQ==',
        },
        {
          type: 'thinking',
          text: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj',
          redacted: true,
        },
        { type: 'text-delta', text: "I'll check the weather" },
        { type: 'text-delta', text: ' in Paris for you.' },
        {
          type: 'tool-call',
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'get_weather',
          input: { location: 'Paris, France', unit: 'celsius' },
        },
        {
          type: 'usage',
          usage: { inputTokens: 472, outputTokens: 89, cacheReadTokens: 1024, cacheWriteTokens: 0 },
          model: 'anthropic/claude-haiku-4-5',
        },
        { type: 'finish', reason: 'tool-calls' },
      ]);
      const usage = out.parts[5]!;
      assert.ok(usage.type === 'usage');
      // 472 × $1 + 89 × $5 + 1024 × $0.10 per 1M tokens (claude-haiku-4-5).
      assert.equal(costOf(usage.model!, usage.usage)!.toFixed(7), ((472 * 1 + 89 * 5 + 1024 * 0.1) / 1e6).toFixed(7));
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });

  it('openai: two parallel tool calls as OpenAI streams them, usage with cached tokens', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.replay(fixture('openai-parallel-tool-calls.sse'))]);
      const m = resolveModel('openai/gpt-4o', {
        config: configSchema.parse({}),
        secrets: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: emu.openaiBaseURL },
      });
      const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
      assert.equal(out.error, undefined);
      assert.deepEqual(out.parts, [
        { type: 'tool-call', id: 'call_8CNq7yhL1V5cH4Q2oF0XUbwA', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool-call', id: 'call_Zw2mX1rY9bTq3uV7kL0pDhS4', name: 'get_weather', input: { location: 'Tokyo' } },
        // prompt_tokens 82 include the 64 cached ones.
        {
          type: 'usage',
          usage: { inputTokens: 18, outputTokens: 51, cacheReadTokens: 64, cacheWriteTokens: 0 },
          model: 'openai/gpt-4o',
        },
        { type: 'finish', reason: 'tool-calls' },
      ]);
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });
});
