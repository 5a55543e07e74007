// Anthropic (Messages API via @anthropic-ai/sdk) runs the provider contract against the emulator.
import { providerContract } from './contract.ts';

providerContract({
  provider: 'anthropic',
  api: 'anthropic',
  keyEnv: 'ANTHROPIC_API_KEY',
  maxTokensField: 'max_tokens',
  configure: (emu) => ({
    secrets: { ANTHROPIC_API_KEY: 'test-key-anthropic', ANTHROPIC_BASE_URL: emu.anthropicBaseURL },
  }),
});
