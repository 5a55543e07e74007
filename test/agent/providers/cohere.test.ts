// Cohere (native Chat v2 API over fetch) runs the provider contract against the emulator's Cohere wire.
import { providerContract } from './contract.ts';

providerContract({
  provider: 'cohere',
  api: 'cohere',
  keyEnv: 'COHERE_API_KEY',
  maxTokensField: 'max_tokens',
  configure: (emu) => ({ secrets: { COHERE_API_KEY: 'test-key-cohere', COHERE_BASE_URL: emu.url } }),
});
