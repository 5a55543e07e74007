// Known providers: the native APIs (Anthropic, OpenAI, Gemini, Cohere), the cloud hosts (Azure OpenAI, Bedrock and
// Vertex for Anthropic models) and OpenAI-compatible servers, each a base URL plus the variable holding its key.
// Config entries under `providers` override these or add new ones. Base URLs and key variables were checked against
// the vendors' documentation on 2026-11-27 (docs/providers.md says which could not be confirmed).

import type { PROVIDER_TYPES } from '../../config/schema.ts';

/** Which client speaks to a provider. */
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** A provider known without configuration. */
export interface ProviderPreset {
  type: ProviderType;
  /** Empty where it depends on the user's resource (Azure) or region (Bedrock, Vertex): then the config says it. */
  baseURL: string;
  /** The environment variable holding the key. */
  keyEnv: string;
  /** Local servers run without a key; the key is sent when set. */
  keyRequired: boolean;
  /** The model `provider/` alone stands for in docs and `doctor`'s key check (the vendor's documented default). */
  defaultModel?: string;
  /** Compatible servers that take OpenAI's newer output-limit field (MiniMax deprecates `max_tokens`). */
  maxTokensParam?: 'max_completion_tokens';
}

const compatible = (
  baseURL: string,
  keyEnv: string,
  defaultModel: string,
  extra: Partial<ProviderPreset> = {},
): ProviderPreset => ({ type: 'openai-compatible', baseURL, keyEnv, keyRequired: true, defaultModel, ...extra });

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
  // Native APIs beside Anthropic's and OpenAI's.
  gemini: {
    type: 'gemini',
    baseURL: 'https://generativelanguage.googleapis.com',
    keyEnv: 'GEMINI_API_KEY',
    keyRequired: true,
    defaultModel: 'gemini-2.5-flash',
  },
  cohere: {
    type: 'cohere',
    baseURL: 'https://api.cohere.com',
    keyEnv: 'COHERE_API_KEY',
    keyRequired: true,
    defaultModel: 'command-a-03-2025',
  },
  // Cloud hosts: the model part of `azure/<name>` is the deployment name; Bedrock and Vertex take their model ids.
  azure: { type: 'azure-openai', baseURL: '', keyEnv: 'AZURE_OPENAI_API_KEY', keyRequired: true },
  bedrock: {
    type: 'bedrock',
    baseURL: '',
    keyEnv: 'AWS_ACCESS_KEY_ID',
    keyRequired: true,
    defaultModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  },
  vertex: {
    type: 'vertex-anthropic',
    baseURL: '',
    keyEnv: 'VERTEX_ACCESS_TOKEN',
    keyRequired: true,
    defaultModel: 'claude-sonnet-4-5@20250929',
  },
  // OpenAI-compatible services (international endpoints where a vendor has a China one too).
  qwen: compatible('https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'DASHSCOPE_API_KEY', 'qwen-plus'),
  zhipu: compatible('https://open.bigmodel.cn/api/paas/v4', 'ZHIPUAI_API_KEY', 'glm-4.6'),
  moonshot: compatible('https://api.moonshot.ai/v1', 'MOONSHOT_API_KEY', 'kimi-k2.6'),
  minimax: compatible('https://api.minimax.io/v1', 'MINIMAX_API_KEY', 'MiniMax-M3', {
    maxTokensParam: 'max_completion_tokens',
  }),
  siliconflow: compatible('https://api.siliconflow.com/v1', 'SILICONFLOW_API_KEY', 'deepseek-ai/DeepSeek-V3'),
  perplexity: compatible('https://api.perplexity.ai', 'PERPLEXITY_API_KEY', 'sonar-pro'),
  nebius: compatible('https://api.tokenfactory.nebius.com/v1', 'NEBIUS_API_KEY', 'Qwen/Qwen3-235B-A22B-Instruct-2507'),
  novita: compatible('https://api.novita.ai/openai', 'NOVITA_API_KEY', 'moonshotai/kimi-k2.5'),
});

/** The variable that overrides a provider's base URL: `OPENAI_BASE_URL`, `OLLAMA_BASE_URL`, ... */
export function baseURLEnvOf(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`;
}
