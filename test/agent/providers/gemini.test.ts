// Google Gemini (native API via @google/genai) runs the provider contract against the emulator's Gemini wire.
import { providerContract } from './contract.ts';

providerContract({
  provider: 'gemini',
  api: 'gemini',
  keyEnv: 'GEMINI_API_KEY',
  maxTokensField: 'maxOutputTokens',
  streamInBody: false,
  configure: (emu) => ({ secrets: { GEMINI_API_KEY: 'test-key-gemini', GEMINI_BASE_URL: emu.url } }),
});
