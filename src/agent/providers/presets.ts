// Known providers: the two native APIs and OpenAI-compatible servers, each a base URL plus the
// variable holding its key. Config entries under `providers` override these or add new ones.

/** Which client speaks to a provider. */
export type ProviderType = 'anthropic' | 'openai' | 'openai-compatible';

/** A provider known without configuration. */
export interface ProviderPreset {
  type: ProviderType;
  baseURL: string;
  /** The environment variable holding the key. */
  keyEnv: string;
  /** Local servers run without a key; the key is sent when set. */
  keyRequired: boolean;
}

/** Every built-in provider, by the name used in `provider/model` strings. */
export const PROVIDER_PRESETS: Readonly<Record<string, ProviderPreset>> = Object.freeze({
  anthropic: {
    type: 'anthropic',
    baseURL: 'https://api.anthropic.com',
    keyEnv: 'ANTHROPIC_API_KEY',
    keyRequired: true,
  },
  openai: { type: 'openai', baseURL: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY', keyRequired: true },
  deepseek: {
    type: 'openai-compatible',
    baseURL: 'https://api.deepseek.com/v1',
    keyEnv: 'DEEPSEEK_API_KEY',
    keyRequired: true,
  },
  groq: {
    type: 'openai-compatible',
    baseURL: 'https://api.groq.com/openai/v1',
    keyEnv: 'GROQ_API_KEY',
    keyRequired: true,
  },
  mistral: {
    type: 'openai-compatible',
    baseURL: 'https://api.mistral.ai/v1',
    keyEnv: 'MISTRAL_API_KEY',
    keyRequired: true,
  },
  openrouter: {
    type: 'openai-compatible',
    baseURL: 'https://openrouter.ai/api/v1',
    keyEnv: 'OPENROUTER_API_KEY',
    keyRequired: true,
  },
  together: {
    type: 'openai-compatible',
    baseURL: 'https://api.together.xyz/v1',
    keyEnv: 'TOGETHER_API_KEY',
    keyRequired: true,
  },
  fireworks: {
    type: 'openai-compatible',
    baseURL: 'https://api.fireworks.ai/inference/v1',
    keyEnv: 'FIREWORKS_API_KEY',
    keyRequired: true,
  },
  xai: { type: 'openai-compatible', baseURL: 'https://api.x.ai/v1', keyEnv: 'XAI_API_KEY', keyRequired: true },
  ollama: {
    type: 'openai-compatible',
    baseURL: 'http://127.0.0.1:11434/v1',
    keyEnv: 'OLLAMA_API_KEY',
    keyRequired: false,
  },
  lmstudio: {
    type: 'openai-compatible',
    baseURL: 'http://127.0.0.1:1234/v1',
    keyEnv: 'LMSTUDIO_API_KEY',
    keyRequired: false,
  },
  vllm: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:8000/v1', keyEnv: 'VLLM_API_KEY', keyRequired: false },
});

/** The variable that overrides a provider's base URL: `OPENAI_BASE_URL`, `OLLAMA_BASE_URL`, ... */
export function baseURLEnvOf(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`;
}
