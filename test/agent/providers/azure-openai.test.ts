// Azure OpenAI (the openai SDK's AzureOpenAI client) runs the provider contract: deployment paths,
// the api-version query and the api-key header, against the emulator's Chat Completions wire.
import assert from 'node:assert/strict';
import { providerContract } from './contract.ts';

providerContract({
  provider: 'azure',
  api: 'openai',
  keyEnv: 'AZURE_OPENAI_API_KEY',
  maxTokensField: 'max_completion_tokens',
  configure: (emu) => ({
    config: { providers: { azure: { type: 'azure-openai', baseURL: emu.url, apiVersion: '2025-01-01-preview' } } },
    secrets: { AZURE_OPENAI_API_KEY: 'test-key-azure' },
  }),
  assertAuth(r) {
    assert.equal(r.headers['api-key'], 'test-key-azure');
    assert.equal(r.headers.authorization, undefined, 'Azure keys go in api-key, not a bearer header');
    assert.equal(r.path, '/openai/deployments/test-model/chat/completions', 'the model is the deployment');
    assert.equal(new URLSearchParams(r.query).get('api-version'), '2025-01-01-preview');
  },
});
