// Google Vertex AI (Anthropic's Vertex SDK) runs the provider contract: `:streamRawPredict` under the project and
// region, with an access token standing in for Google credentials (no network, no metadata server).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveModel } from '../../../src/agent/providers/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { providerContract } from './contract.ts';

providerContract({
  provider: 'vertex',
  api: 'anthropic',
  keyEnv: 'VERTEX_ACCESS_TOKEN',
  missingKeyMessage: 'VERTEX_ACCESS_TOKEN (or GOOGLE_APPLICATION_CREDENTIALS, the path of a service-account key file)',
  maxTokensField: 'max_tokens',
  promptCaching: false,
  // The API version the installed SDK speaks goes in the body, as the host requires; the model is in the path.
  bodyExtras: { anthropic_version: '2026-10-21', model: undefined },
  configure: (emu) => ({
    config: {
      providers: {
        vertex: { type: 'vertex-anthropic', region: 'us-east5', projectId: 'boxbot-test', baseURL: `${emu.url}/v1` },
      },
    },
    secrets: { VERTEX_ACCESS_TOKEN: 'test-key-vertex' },
  }),
  assertAuth(r) {
    assert.equal(r.headers.authorization, 'Bearer test-key-vertex');
    assert.equal(
      r.path,
      '/v1/projects/boxbot-test/locations/us-east5/publishers/anthropic/models/test-model:streamRawPredict',
    );
  },
});

describe('vertex: configuration', () => {
  it('without a project the model is refused, naming the config key', () => {
    const config = configSchema.parse({ providers: { vertex: { type: 'vertex-anthropic', region: 'us-east5' } } });
    assert.throws(() => resolveModel('vertex/x', { config, secrets: { VERTEX_ACCESS_TOKEN: 't' } }), {
      name: 'ModelConfigError',
      message:
        'vertex/x cannot be used: providers.vertex.projectId is not set in the config (the Google Cloud project)',
    });
  });
});
