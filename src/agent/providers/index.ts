// Public names of the provider layer: resolving `provider/model` strings, the Anthropic and OpenAI(-compatible)
// providers, retries and fallback, errors, and usage cost.
export {
  resolveModel,
  resolveModelWithFallback,
  listProviders,
  checkModel,
  defaultModelSpec,
  missingProviderHint,
  parseModelSpec,
  DEFAULT_MODELS,
  type ResolveContext,
  type ResolvedModel,
  type ProviderStatus,
} from './resolve.ts';
export { PROVIDER_PRESETS, baseURLEnvOf, type ProviderPreset, type ProviderType } from './presets.ts';
export { createAnthropicProvider, mapAnthropicStopReason, type AnthropicProviderOptions } from './anthropic.ts';
export { createOpenAIProvider, mapOpenAIFinishReason, type OpenAIProviderOptions } from './openai.ts';
export { toAnthropicParams } from './anthropic-messages.ts';
export { toOpenAIParams } from './openai-messages.ts';
export { withRetry, retryDelayMs, shouldRetry, DEFAULT_RETRY, type RetryOptions } from './retry.ts';
export { withFallback, type ModelTarget } from './fallback.ts';
export { ProviderError, ModelConfigError, isRetryableStatus, retryAfterMsOf, type ProviderErrorKind } from './errors.ts';
export { costOf, priceOf, contextWindowOf, type ModelPrice } from './pricing.ts';
