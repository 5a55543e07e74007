// OpenAI-compatible presets and custom config providers run the provider contract through a custom base
// URL (the environment variable for Groq, the config file for Ollama and a custom entry), and every preset
// answers one request with its own key variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROVIDER_PRESETS, resolveModel } from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { collect, providerContract, request } from './contract.ts';

// The three contracts share nothing (each scenario has its own emulator), and their idle-timeout suites
// mostly wait: side by side, the file takes about one contract's time instead of three.
describe('the contract through three OpenAI-compatible routes', { concurrency: true }, () => {
  providerContract({
    provider: 'groq',
    api: 'openai',
    keyEnv: 'GROQ_API_KEY',
    maxTokensField: 'max_tokens',
    configure: (emu) => ({ secrets: { GROQ_API_KEY: 'test-key-groq', GROQ_BASE_URL: emu.openaiBaseURL } }),
  });

  providerContract({
    provider: 'ollama',
    api: 'openai',
    maxTokensField: 'max_tokens',
    configure: (emu) => ({
      config: { providers: { ollama: { type: 'openai-compatible', baseURL: emu.openaiBaseURL } } },
      secrets: {},
    }),
  });

  providerContract({
    provider: 'corp',
    api: 'openai',
    keyEnv: 'CORP_LLM_API_KEY',
    maxTokensField: 'max_tokens',
    configure: (emu) => ({
      config: {
        providers: { corp: { type: 'openai-compatible', baseURL: emu.openaiBaseURL, apiKeyEnv: 'CORP_LLM_API_KEY' } },
      },
      secrets: { CORP_LLM_API_KEY: 'test-key-corp' },
    }),
  });
});

describe('every OpenAI-compatible preset', () => {
  const compatible = Object.entries(PROVIDER_PRESETS).filter(([, p]) => p.type === 'openai-compatible');

  it('covers the presets users expect', () => {
    assert.deepEqual(compatible.map(([name]) => name).sort(), [
      'deepseek',
      'fireworks',
      'groq',
      'lmstudio',
      'minimax',
      'mistral',
      'moonshot',
      'nebius',
      'novita',
      'ollama',
      'openrouter',
      'perplexity',
      'qwen',
      'siliconflow',
      'together',
      'vllm',
      'xai',
      'zhipu',
    ]);
  });

  for (const [name, preset] of compatible) {
    const sends = preset.keyRequired ? preset.keyEnv : 'no key';
    it(`${name}: answers through <NAME>_BASE_URL, sending ${sends}`, async () => {
      const emu = await startLlmEmulator();
      try {
        emu.script([llm.say(`hi from ${name}`)]);
        const secrets: Record<string, string> = { [`${name.toUpperCase()}_BASE_URL`]: emu.openaiBaseURL };
        if (preset.keyRequired) secrets[preset.keyEnv] = `key-${name}`;
        const m = resolveModel(`${name}/vendor/some-model`, { config: configSchema.parse({}), secrets });
        assert.equal(m.model, 'vendor/some-model', 'model names may contain slashes (OpenRouter)');
        const out = await collect(
          m.provider.stream(request(m.model, { maxOutputTokens: 50 }), new AbortController().signal),
        );
        assert.equal(out.text, `hi from ${name}`);
        assert.equal(emu.requests[0]!.body.model, 'vendor/some-model');
        // MiniMax deprecates max_tokens; the others take it.
        assert.equal(emu.requests[0]!.body[preset.maxTokensParam ?? 'max_tokens'], 50);
        assert.equal(emu.requests[0]!.headers.authorization, preset.keyRequired ? `Bearer key-${name}` : undefined);
        emu.assertDone();
      } finally {
        await emu.close();
      }
    });
  }
});

describe('a custom provider of type anthropic (a proxy)', () => {
  it('speaks the Messages API at the configured base URL with the configured key', async () => {
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.say('via the proxy')]);
      const config = configSchema.parse({
        providers: { gateway: { type: 'anthropic', baseURL: emu.anthropicBaseURL, apiKeyEnv: 'GATEWAY_API_KEY' } },
      });
      const m = resolveModel('gateway/claude-haiku-4-5', { config, secrets: { GATEWAY_API_KEY: 'proxy-key' } });
      const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
      assert.equal(out.text, 'via the proxy');
      assert.equal(emu.requests[0]!.api, 'anthropic');
      assert.match(
        String(emu.requests[0]!.headers.authorization ?? emu.requests[0]!.headers['x-api-key']),
        /proxy-key/,
      );
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });
});
