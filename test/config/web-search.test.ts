// The `webSearch` config key: each provider's shape, and errors that name the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configuredKeyNames } from '../../src/config/env.ts';
import { configSchema } from '../../src/config/schema.ts';

test('webSearch: searxng needs baseUrl, keys are read from the named variable, unknown fields refused', () => {
  const ok = configSchema.parse({ webSearch: { provider: 'brave', apiKeyEnv: 'MY_BRAVE_KEY' } });
  assert.deepEqual(ok.webSearch, { provider: 'brave', apiKeyEnv: 'MY_BRAVE_KEY' });
  assert.deepEqual(configuredKeyNames(ok), ['MY_BRAVE_KEY']);
  const issue = (v: unknown) => {
    const r = configSchema.safeParse({ webSearch: v });
    assert.equal(r.success, false);
    return `${r.error!.issues[0]!.path.join('.')}: ${r.error!.issues[0]!.message}`;
  };
  assert.equal(
    issue({ provider: 'searxng' }),
    'webSearch.baseUrl: searxng needs baseUrl (the address of your SearXNG instance)',
  );
  assert.match(issue({ provider: 'bing' }), /^webSearch\.provider: /);
  assert.match(issue({ provider: 'tavily', baseUrl: 'ftp://x' }), /^webSearch\.baseUrl: expected an http/);
  assert.match(issue({ provider: 'tavily', apiKey: 'sk-inline' }), /^webSearch: Unrecognized key/);
});
