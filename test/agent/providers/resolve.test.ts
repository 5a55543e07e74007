// Resolving `provider/model` strings: clear errors naming what is missing, base URL precedence, custom
// providers, the doctor's list and the "no key configured" hint.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkModel,
  defaultModelSpec,
  idleTimeoutOf,
  listProviders,
  ModelConfigError,
  missingProviderHint,
  PROVIDER_PRESETS,
  parseModelSpec,
  resolveModel,
  resolveModelWithFallback,
} from '../../../src/agent/providers/index.ts';
import { configuredKeyNames, readSecrets } from '../../../src/config/env.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { llm, startLlmEmulator } from '../../emulators/llm/index.ts';
import { collect, request } from './contract.ts';

const none = configSchema.parse({});

describe('resolveModel', () => {
  it('splits provider/model at the first slash only', () => {
    assert.deepEqual(parseModelSpec('openrouter/anthropic/claude-sonnet-4.5'), {
      providerName: 'openrouter',
      model: 'anthropic/claude-sonnet-4.5',
    });
    for (const bad of ['gpt-4o', '/gpt-4o', 'openai/']) {
      assert.throws(
        () => parseModelSpec(bad),
        (e: unknown) => e instanceof ModelConfigError && /must be written provider\/model/.test(e.message),
      );
    }
  });

  it('names the missing key variable', () => {
    assert.throws(() => resolveModel('anthropic/claude-sonnet-5-5', { config: none, secrets: {} }), {
      name: 'ModelConfigError',
      message: 'anthropic/claude-sonnet-5-5 needs ANTHROPIC_API_KEY',
    });
    assert.throws(() => resolveModel('deepseek/deepseek-chat', { config: none, secrets: {} }), {
      message: 'deepseek/deepseek-chat needs DEEPSEEK_API_KEY',
    });
  });

  it('names unknown providers and lists the known ones', () => {
    assert.throws(
      () => resolveModel('acme/model-1', { config: none, secrets: {} }),
      new RegExp(
        'acme\\/model-1: unknown provider "acme" \\(known: anthropic, openai, deepseek,.*vllm, gemini,.*novita; ' +
          'add others under "providers"',
      ),
    );
  });

  it('asks for a base URL for a custom provider without one, and for its key variable', () => {
    const config = configSchema.parse({
      providers: { corp: { type: 'openai-compatible', apiKeyEnv: 'CORP_API_KEY' } },
    });
    assert.throws(
      () => resolveModel('corp/m', { config, secrets: { CORP_API_KEY: 'x' } }),
      /corp\/m cannot be used: providers\.corp\.baseURL is not set in the config \(or CORP_BASE_URL/,
    );
    const withUrl = configSchema.parse({
      providers: { corp: { type: 'openai-compatible', baseURL: 'http://10.0.0.5/v1', apiKeyEnv: 'CORP_KEY' } },
    });
    assert.equal(checkModel('corp/m', { config: withUrl, secrets: {} }), 'corp/m needs CORP_KEY');
    // The config's own key variable is read even though its name is not a standard one.
    const secrets = readSecrets({ CORP_KEY: 'k-123', HOME: '/root' }, configuredKeyNames(withUrl));
    assert.equal(checkModel('corp/m', { config: withUrl, secrets }), undefined);
    assert.equal(secrets.HOME, undefined);
  });

  it('takes the base URL from the config first, then <NAME>_BASE_URL, then the preset', async () => {
    const fromConfig = await startLlmEmulator();
    const fromEnv = await startLlmEmulator();
    try {
      fromConfig.script([llm.say('config wins')]);
      fromEnv.script([llm.say('env next')]);
      const secrets = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: fromEnv.openaiBaseURL };
      const both = configSchema.parse({ providers: { openai: { type: 'openai', baseURL: fromConfig.openaiBaseURL } } });
      const a = resolveModel('openai/gpt-4o', { config: both, secrets });
      assert.equal(
        (await collect(a.provider.stream(request(a.model), new AbortController().signal))).text,
        'config wins',
      );
      const b = resolveModel('openai/gpt-4o', { config: none, secrets });
      assert.equal((await collect(b.provider.stream(request(b.model), new AbortController().signal))).text, 'env next');
      assert.equal(
        listProviders({ config: none, secrets: { OPENAI_API_KEY: 'k' } }).find((p) => p.name === 'openai')?.baseURL,
        'https://api.openai.com/v1',
      );
      fromConfig.assertDone();
      fromEnv.assertDone();
    } finally {
      await fromConfig.close();
      await fromEnv.close();
    }
  });

  it("a provider's own idleTimeoutMs wins over modelIdleTimeoutMs, which wins over 60 s", async () => {
    assert.equal(idleTimeoutOf('openai', none), 60_000);
    const config = configSchema.parse({
      modelIdleTimeoutMs: 120_000,
      providers: { ollama: { type: 'openai-compatible', idleTimeoutMs: 0 } },
    });
    assert.equal(idleTimeoutOf('openai', config), 120_000);
    assert.equal(idleTimeoutOf('ollama', config), 0, '0 turns the watchdog off');
    assert.throws(() => configSchema.parse({ providers: { x: { type: 'openai', idleTimeoutMs: -1 } } }));
    // The provider's key is the one its streams obey: a long default does not keep a stalled stream waiting.
    const emu = await startLlmEmulator();
    try {
      emu.script([llm.stall(), llm.stall()]);
      // Long enough for each request to reach the emulator (same process) on a loaded machine:
      // at 250 ms the retry was cut before it did, at load 30.
      const m = resolveModel('corp/m', {
        config: configSchema.parse({
          modelIdleTimeoutMs: 600_000,
          providers: { corp: { type: 'openai-compatible', baseURL: emu.openaiBaseURL, idleTimeoutMs: 1_500 } },
        }),
        secrets: {},
        retry: { sleep: async () => {} },
      });
      const out = await collect(m.provider.stream(request(m.model), new AbortController().signal));
      assert.match(String(out.error), /corp: the model stream stalled \(no data for 1500 ms\)/);
      emu.assertDone();
    } finally {
      await emu.close();
    }
  });

  it('the fallback is skipped (not fatal) when its key is missing', () => {
    const config = configSchema.parse({ fallbackModel: 'openai/gpt-4o-mini' });
    const m = resolveModelWithFallback('anthropic/claude-haiku-4-5', { config, secrets: { ANTHROPIC_API_KEY: 'k' } });
    assert.equal(m.id, 'anthropic/claude-haiku-4-5');
    assert.equal(m.fallbackId, undefined);
  });
});

describe('which providers are configured', () => {
  it('lists presets and config-only providers with what each needs', () => {
    const config = configSchema.parse({
      providers: { corp: { type: 'openai-compatible', baseURL: 'http://10.0.0.5/v1' } },
    });
    const list = listProviders({ config, secrets: { GROQ_API_KEY: 'g' } });
    const byName = Object.fromEntries(list.map((p) => [p.name, p]));
    assert.equal(byName.groq?.ready, true);
    assert.equal(byName.anthropic?.ready, false);
    assert.equal(byName.anthropic?.problem, 'set ANTHROPIC_API_KEY');
    assert.equal(byName.ollama?.ready, true, 'local servers need no key');
    assert.equal(byName.ollama?.keyRequired, false);
    assert.deepEqual(
      { ready: byName.corp?.ready, origin: byName.corp?.origin, keyRequired: byName.corp?.keyRequired },
      { ready: true, origin: 'config', keyRequired: false },
    );
    assert.equal(list.length, Object.keys(PROVIDER_PRESETS).length + 1, 'every preset, then the config-only one');
    // Hosts name what they lack besides a key: Azure its endpoint, Bedrock its region, Vertex its region.
    assert.match(byName.azure?.problem ?? '', /^providers\.azure\.baseURL is not set .*https:\/\/<resource>/);
    assert.equal(byName.bedrock?.problem, 'providers.bedrock.region is not set in the config (or AWS_REGION)');
    assert.equal(byName.vertex?.problem, 'providers.vertex.region is not set in the config');
    assert.equal(byName.gemini?.problem, 'set GEMINI_API_KEY');
  });

  it('picks a default model from the keys present, and hints when there is none', () => {
    assert.equal(defaultModelSpec({ config: none, secrets: { OPENAI_API_KEY: 'k' } }), 'openai/gpt-5.4');
    assert.equal(
      defaultModelSpec({ config: none, secrets: { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' } }),
      'anthropic/claude-sonnet-5-5',
    );
    assert.equal(missingProviderHint({ config: none, secrets: { OPENAI_API_KEY: 'k' } }), undefined);
    assert.equal(defaultModelSpec({ config: none, secrets: { GEMINI_API_KEY: 'k' } }), 'gemini/gemini-2.5-flash');
    assert.equal(defaultModelSpec({ config: none, secrets: { COHERE_API_KEY: 'k' } }), 'cohere/command-a-03-2025');
    assert.equal(
      defaultModelSpec({ config: none, secrets: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' } }),
      undefined,
      'Bedrock needs a region and a model first',
    );
    assert.match(
      missingProviderHint({ config: none, secrets: {} })!,
      /^no model provider is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY/,
    );
    // Vertex's key file (ADC) is named beside its token, so a user with only a key file finds it.
    assert.match(
      missingProviderHint({ config: none, secrets: {} })!,
      /VERTEX_ACCESS_TOKEN or GOOGLE_APPLICATION_CREDENTIALS/,
    );
    const local = configSchema.parse({ model: 'ollama/llama3.1' });
    assert.equal(missingProviderHint({ config: local, secrets: {} }), undefined);
    const groq = configSchema.parse({ model: 'groq/llama-3.3-70b-versatile' });
    assert.equal(missingProviderHint({ config: groq, secrets: {} }), 'groq/llama-3.3-70b-versatile needs GROQ_API_KEY');
    assert.throws(
      () => resolveModelWithFallback(undefined, { config: none, secrets: {} }),
      /no model provider is configured/,
    );
  });
});
