// The SDKs of Anthropic, Gemini, Bedrock and Vertex are loaded on a provider's first call, never by resolving
// models: a gateway on OpenAI keeps the Anthropic SDK, google-auth-library and the AWS SDK out of its process.
// Checked in a fresh child process (the compiled sources, as `boxbot start` runs them), by the CommonJS modules it
// loaded and the ES modules it resolved (a loader hook reports each one).
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
    const heavy = ['google-auth-library', '@aws-sdk', '@smithy/signature-v4', 'gaxios', '@anthropic-ai/sdk'];
    // ES modules leave no trace in require.cache: a resolve hook (on the loader's thread) reports each URL.
    const { register } = await import('node:module');
    const { MessageChannel } = await import('node:worker_threads');
    const { port1, port2 } = new MessageChannel();
    const resolved = new Set();
    let synced = () => {};
    port1.on('message', (m) => (m === 'pong' ? synced() : resolved.add(m)));
    const hook =
      'let port; export function initialize(d) { port = d.port; port.on("message", () => port.postMessage("pong")); }' +
      ' export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }';
    register('data:text/javascript,' + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
    // Messages on a port arrive in order: once the hook answers a ping, every URL it reported before is here.
    const sync = () => new Promise((r) => { synced = r; port1.postMessage('ping'); });
    const paths = () => [...Object.keys(require.cache), ...resolved];
    const loaded = async () => {
      await sync();
      const all = paths();
      return heavy.filter((h) => all.some((p) => p.includes('/node_modules/' + h + '/')));
    };
    const p = await import(${JSON.stringify(providers)});
    const { configSchema } = await import(${JSON.stringify(schema)});
    const ctx = {
      config: configSchema.parse({ providers: {
        anthropic: { type: 'anthropic', baseURL: 'http://127.0.0.1:9' },
        bedrock: { type: 'bedrock', region: 'us-east-1', baseURL: 'http://127.0.0.1:9' },
        vertex: { type: 'vertex-anthropic', region: 'us-east5', projectId: 'p', baseURL: 'http://127.0.0.1:9/v1' },
      } }),
      secrets: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k',
        GEMINI_API_KEY: 'k', GEMINI_BASE_URL: 'http://127.0.0.1:9',
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
    out.start = await loaded();
    for (const step of ${JSON.stringify(steps)}) {
      const all = ['openai/gpt-5.4', 'anthropic/a', 'gemini/g', 'bedrock/b', 'vertex/v'];
      if (step === 'resolve all') for (const s of all) p.resolveModel(s, ctx);
      else await call(step);
      out[step] = await loaded();
    }
    console.log(JSON.stringify(out));
    port1.close();
  `;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, string[]>;
}

describe('provider SDKs load lazily', () => {
  it('resolving every provider loads none of the heavy SDKs; the first call of each loads its own', () => {
    const loaded = loadedAfter(['resolve all', 'openai/gpt-5.4', 'anthropic/a', 'gemini/g', 'bedrock/b', 'vertex/v']);
    assert.deepEqual(loaded.start, [], 'loading the providers loads none of them');
    assert.deepEqual(loaded['resolve all'], [], 'resolving models builds no SDK client');
    assert.deepEqual(loaded['openai/gpt-5.4'], [], 'an OpenAI call loads no Anthropic, Google or AWS code');
    assert.deepEqual(loaded['anthropic/a'], ['@anthropic-ai/sdk'], 'the Anthropic call loads its SDK and no other');
    assert.ok(loaded['gemini/g']!.includes('google-auth-library'), 'the Gemini call loads @google/genai');
    assert.ok(!loaded['gemini/g']!.includes('@aws-sdk'), 'and nothing of AWS');
    assert.ok(loaded['bedrock/b']!.includes('@aws-sdk'), 'the Bedrock call loads the AWS SDK');
  });
});
