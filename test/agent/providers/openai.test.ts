// OpenAI (Chat Completions via the openai SDK v6) runs the provider contract against the emulator.
import { providerContract } from './contract.ts';

providerContract({
  provider: 'openai',
  api: 'openai',
  keyEnv: 'OPENAI_API_KEY',
  maxTokensField: 'max_completion_tokens',
  configure: (emu) => ({ secrets: { OPENAI_API_KEY: 'test-key-openai', OPENAI_BASE_URL: emu.openaiBaseURL } }),
});
