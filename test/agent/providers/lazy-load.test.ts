// The SDKs of Gemini, Bedrock and Vertex are loaded on a provider's first call, never by resolving models:
// a gateway on OpenAI or Anthropic keeps google-auth-library and the AWS SDK out of its process. Checked in a
// fresh child process (the compiled sources, as `boxbot start` runs them), by the CommonJS modules it loaded.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compiledSrc } from '../../compiled-src.ts';

/** Runs `steps` in a fresh process: after each, which of the heavy dependency trees are loaded. */
function loadedAfter(steps: string[]): Record<string, string[]> {
  const providers = pathToFileURL(join(compiledSrc(), 'agent', 'providers', 'index.js')).href;
  const schema = pathToFileURL(join(compiledSrc(), 'config', 'schema.js')).href;
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const heavy = ['google-auth-library', '@aws-sdk', '@smithy/signature-v4', 'gaxios'];
    const inCache = (h) => Object.keys(require.cache).some((p) => p.includes('/node_modules/' + h + '/'));
    const loaded = () => heavy.filter(inCache);
    const p = await import(${JSON.stringify(providers)});
    const { configSchema } = await import(${JSON.stringify(schema)});
    const ctx = {
      config: configSchema.parse({ providers: {
        bedrock: { type: 'bedrock', region: 'us-east-1', baseURL: 'http://127.0.0.1:9' },
        vertex: { type: 'vertex-anthropic', region: 'us-east5', projectId: 'p', baseURL: 'http://127.0.0.1:9/v1' },
      } }),
      secrets: { OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'k', GEMINI_BASE_URL: 'http://127.0.0.1:9',
        AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 's', VERTEX_ACCESS_TOKEN: 't' },
      retry: { maxRetries: 0 },
    };
    const call = async (spec) => {
      const m = p.resolveModel(spec, ctx);
      const messages = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
      const req = { model: m.model, system: '', messages, tools: [] };
      try { for await (const _ of m.provider.stream(req, new AbortController().signal)); } catch {}
    };
    const out = {};
    for (const step of ${JSON.stringify(steps)}) {
      const all = ['openai/gpt-5.4', 'gemini/g', 'bedrock/b', 'vertex/v'];
      if (step === 'resolve all') for (const s of all) p.resolveModel(s, ctx);
      else await call(step);
      out[step] = loaded();
    }
    console.log(JSON.stringify(out));
  `;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, string[]>;
}

describe('provider SDKs load lazily', () => {
  it('resolving every provider loads none of the heavy SDKs; the first call of each loads its own', () => {
    const loaded = loadedAfter(['resolve all', 'openai/gpt-5.4', 'gemini/g', 'bedrock/b', 'vertex/v']);
    assert.deepEqual(loaded['resolve all'], [], 'resolving models builds no SDK client');
    assert.deepEqual(loaded['openai/gpt-5.4'], [], 'an OpenAI call loads no Google or AWS code');
    assert.ok(loaded['gemini/g']!.includes('google-auth-library'), 'the Gemini call loads @google/genai');
    assert.ok(!loaded['gemini/g']!.includes('@aws-sdk'), 'and nothing of AWS');
    assert.ok(loaded['bedrock/b']!.includes('@aws-sdk'), 'the Bedrock call loads the AWS SDK');
  });
});
