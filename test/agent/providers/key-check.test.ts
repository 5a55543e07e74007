// `boxbot doctor`'s key check for every provider type against the emulator: the cheapest authenticated call of each
// API, a refused key named by its variable, and Bedrock and Vertex checked with a one-token message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkProviderKey, listProviders, type ResolveContext } from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { type LlmEmulator, llm, startLlmEmulator } from '../../emulators/llm/index.ts';

let emu: LlmEmulator;
before(async () => {
  emu = await startLlmEmulator();
  emu.acceptKeys(['good-key']);
});
after(() => emu.close());

function ctxFor(name: string, key: string, config: Record<string, unknown> = {}): ResolveContext {
  const env: Record<string, Record<string, string>> = {
    openai: { OPENAI_API_KEY: key, OPENAI_BASE_URL: emu.openaiBaseURL },
    anthropic: { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: emu.anthropicBaseURL },
    gemini: { GEMINI_API_KEY: key, GEMINI_BASE_URL: emu.url },
    cohere: { COHERE_API_KEY: key, COHERE_BASE_URL: emu.url },
    azure: { AZURE_OPENAI_API_KEY: key, AZURE_BASE_URL: emu.url },
    moonshot: { MOONSHOT_API_KEY: key, MOONSHOT_BASE_URL: emu.openaiBaseURL },
  };
  return { config: configSchema.parse(config), secrets: env[name]! };
}

const statusOf = (name: string, ctx: ResolveContext) => listProviders(ctx).find((p) => p.name === name)!;

describe('key checks', () => {
  for (const name of ['openai', 'anthropic', 'gemini', 'cohere', 'azure', 'moonshot']) {
    it(`${name}: an accepted key is ok, a refused one names its variable`, async () => {
      const good = ctxFor(name, 'good-key');
      const from = emu.requests.length;
      assert.deepEqual(await checkProviderKey(statusOf(name, good), good), { ok: true, detail: 'reachable (200)' });
      assert.equal(emu.requests[from]!.api, 'key-check', 'the probe is an authenticated list or key check');
      const bad = ctxFor(name, 'bad-key');
      const r = await checkProviderKey(statusOf(name, bad), bad);
      assert.equal(r.ok, false);
      assert.match(r.detail, new RegExp(`^the key was refused \\(401\\): check ${statusOf(name, bad).keyEnv}$`));
      assert.doesNotMatch(r.detail, /bad-key/, 'the key itself is never printed');
    });
  }

  it('bedrock: a one-token signed request; a 403 names both AWS variables', async (t) => {
    // An emulator of its own: a failure here cannot leave scripted replies for the next test.
    const emu = await startLlmEmulator();
    t.after(() => emu.close());
    const config = configSchema.parse({
      providers: { bedrock: { type: 'bedrock', region: 'us-east-1', baseURL: emu.url } },
    });
    // The timeout only turns a hang into a failure: loading the SDK on a busy machine takes seconds.
    const ctx = { config, secrets: { AWS_ACCESS_KEY_ID: 'AKIDX', AWS_SECRET_ACCESS_KEY: 's' }, timeoutMs: 120_000 };
    emu.script([llm.say('.'), llm.fail(403, { message: 'The security token included in the request is invalid' })]);
    const from = emu.requests.length;
    const ok = await checkProviderKey(statusOf('bedrock', ctx), ctx);
    assert.equal(ok.ok, true, ok.detail);
    assert.equal(emu.requests[from]!.body.max_tokens, 1, 'one output token at most');
    const refused = await checkProviderKey(statusOf('bedrock', ctx), ctx);
    assert.deepEqual(refused, {
      ok: false,
      detail:
        'the key was refused (403): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)',
    });
    emu.assertDone();
  });

  it('vertex: the configured model is used; a 404 for the model still says the key works', async (t) => {
    const emu = await startLlmEmulator();
    t.after(() => emu.close());
    const config = configSchema.parse({
      providers: {
        vertex: { type: 'vertex-anthropic', region: 'us-east5', projectId: 'p1', baseURL: `${emu.url}/v1` },
      },
    });
    const ctx = {
      config,
      secrets: { VERTEX_ACCESS_TOKEN: 'tok' },
      model: 'claude-haiku-4-5@20251001',
      timeoutMs: 120_000,
    };
    emu.script([llm.fail(404, { message: 'Publisher model not found' })]);
    const r = await checkProviderKey(statusOf('vertex', ctx), ctx);
    assert.equal(r.ok, true, r.detail);
    assert.match(r.detail, /^the key was accepted, but claude-haiku-4-5@20251001 was refused \(404\)/);
    assert.equal(emu.requests.at(-1)!.model, 'claude-haiku-4-5@20251001');
    emu.assertDone();
  });

  it('an endpoint nobody listens on is unreachable, not a refused key', async () => {
    const ctx: ResolveContext = {
      config: configSchema.parse({}),
      secrets: { GEMINI_API_KEY: 'k', GEMINI_BASE_URL: 'http://127.0.0.1:9' },
    };
    const r = await checkProviderKey(statusOf('gemini', ctx), ctx);
    assert.equal(r.ok, false);
    assert.match(r.detail, /^unreachable at http:\/\/127\.0\.0\.1:9 \(/);
  });
});
