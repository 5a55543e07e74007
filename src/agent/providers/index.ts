// Public names of the provider layer: resolving `provider/model` strings, the Anthropic, OpenAI(-compatible), Azure,
// Gemini, Cohere, Bedrock and Vertex providers, retries and fallback, errors, key checks and usage cost.

export { type AnthropicProviderOptions, createAnthropicProvider, mapAnthropicStopReason } from './anthropic.ts';
export {
  type BedrockCredentials,
  type BedrockProviderOptions,
  createBedrockProvider,
  createVertexProvider,
  type VertexProviderOptions,
} from './anthropic-hosts.ts';
export { toAnthropicParams } from './anthropic-messages.ts';
export { type CohereProviderOptions, createCohereProvider, mapCohereFinishReason } from './cohere.ts';
export {
  isRetryableStatus,
  ModelConfigError,
  ProviderError,
  type ProviderErrorKind,
  retryAfterMsOf,
  stalledError,
} from './errors.ts';
export { type ModelTarget, withFallback } from './fallback.ts';
export { createGeminiProvider, type GeminiProviderOptions, mapGeminiFinishReason } from './gemini.ts';
export { checkProviderKey, type KeyCheck } from './key-check.ts';
export { createOpenAIProvider, mapOpenAIFinishReason, type OpenAIProviderOptions } from './openai.ts';
export { toOpenAIParams } from './openai-messages.ts';
export { baseURLEnvOf, PROVIDER_PRESETS, type ProviderPreset, type ProviderType } from './presets.ts';
export { contextWindowOf, costOf, type ModelPrice, priceOf, type UnpricedModel, unpricedModels } from './pricing.ts';
export {
  checkModel,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MODELS,
  defaultModelSpec,
  idleTimeoutOf,
  listProviders,
  missingProviderHint,
  type ProviderStatus,
  parseModelSpec,
  type ResolveContext,
  type ResolvedModel,
  resolveModel,
  resolveModelWithFallback,
} from './resolve.ts';
export { DEFAULT_RETRY, type RetryOptions, retryDelayMs, shouldRetry, withRetry } from './retry.ts';
export { type RunSlot, withSlotReleased } from './slot-release.ts';
export {
  type AudioFile,
  checkTranscriptionModel,
  createTranscriber,
  type Transcriber,
  type TranscriberContext,
} from './transcribe.ts';
export { supportsVision } from './vision.ts';
