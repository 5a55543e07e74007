// `provider/model` strings → a ready Provider (retries included), from presets, config and secrets.
// Also answers "which providers can run?" for `boxbot doctor` and the "no key configured" hint.

import type { Secrets } from '../../config/env.ts';
import type { Config } from '../../config/schema.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import type { Provider } from '../types.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { ModelConfigError } from './errors.ts';
import { withFallback } from './fallback.ts';
import { createOpenAIProvider } from './openai.ts';
import { baseURLEnvOf, PROVIDER_PRESETS, type ProviderType } from './presets.ts';
import { type RetryOptions, withRetry } from './retry.ts';

/** What resolving a model needs: the parsed config and the secrets; `fetch` and `retry` for tests. */
export interface ResolveContext {
  config: Config;
  secrets: Secrets;
  fetch?: typeof fetch;
  retry?: RetryOptions;
  logger?: Logger;
}

/** A model ready to call: `provider.stream({ model, ... }, signal)`; `id` is the `provider/model` string. */
export interface ResolvedModel {
  provider: Provider;
  model: string;
  id: string;
}

/** What `boxbot doctor` shows for one provider. */
export interface ProviderStatus {
  name: string;
  type: ProviderType;
  baseURL: string | undefined;
  keyEnv: string | undefined;
  keyRequired: boolean;
  hasKey: boolean;
  /** True when a call could be made (key present if needed, base URL known). Says nothing about reachability. */
  ready: boolean;
  /** Where the entry comes from. */
  origin: 'preset' | 'config' | 'preset+config';
  /** Why it is not ready, naming the variable or config field to set. */
  problem?: string;
}

/** How long a model stream may send nothing before it counts as stalled, unless the config says otherwise. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** The stream idle timeout of provider `name`: its own, else the config's default, else 60 s (0: off). */
export function idleTimeoutOf(name: string, config: Config): number {
  return config.providers?.[name]?.idleTimeoutMs ?? config.modelIdleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
}

/** The model used when neither the caller nor the config names one. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = Object.freeze({
  anthropic: 'anthropic/claude-sonnet-5-5',
  openai: 'openai/gpt-5.4',
});

function statusOf(name: string, ctx: Pick<ResolveContext, 'config' | 'secrets'>): ProviderStatus | undefined {
  const preset = PROVIDER_PRESETS[name];
  const cfg = ctx.config.providers?.[name];
  if (!preset && !cfg) return undefined;
  const type = cfg?.type ?? preset!.type;
  const baseURL =
    cfg?.baseURL ?? ctx.secrets[baseURLEnvOf(name)] ?? (preset && preset.type === type ? preset.baseURL : undefined);
  const nativeKey = type === 'anthropic' ? 'ANTHROPIC_API_KEY' : type === 'openai' ? 'OPENAI_API_KEY' : undefined;
  const keyEnv = cfg?.apiKeyEnv ?? preset?.keyEnv ?? nativeKey;
  const keyRequired = cfg?.apiKeyEnv !== undefined || type !== 'openai-compatible' || (preset?.keyRequired ?? false);
  const hasKey = keyEnv !== undefined && ctx.secrets[keyEnv] !== undefined;
  let problem: string | undefined;
  if (!baseURL)
    problem = `providers.${name}.baseURL is not set in the config (or ${baseURLEnvOf(name)} in the environment)`;
  else if (keyRequired && !hasKey) {
    problem = keyEnv ? `set ${keyEnv}` : `set providers.${name}.apiKeyEnv in the config`;
  }
  return {
    name,
    type,
    baseURL,
    keyEnv,
    keyRequired,
    hasKey,
    ready: problem === undefined,
    origin: preset && cfg ? 'preset+config' : preset ? 'preset' : 'config',
    ...(problem ? { problem } : {}),
  };
}

/** Every known provider (presets, then config-only ones) with whether it can be called. */
export function listProviders(ctx: Pick<ResolveContext, 'config' | 'secrets'>): ProviderStatus[] {
  const names = [
    ...Object.keys(PROVIDER_PRESETS),
    ...Object.keys(ctx.config.providers ?? {}).filter((n) => !PROVIDER_PRESETS[n]),
  ];
  return names.map((n) => statusOf(n, ctx)!);
}

/** Splits `provider/model` (the model part may itself contain slashes, as on OpenRouter). */
export function parseModelSpec(spec: string): { providerName: string; model: string } {
  const slash = spec.indexOf('/');
  if (slash <= 0 || slash === spec.length - 1) {
    throw new ModelConfigError(
      `model "${spec}" must be written provider/model, e.g. anthropic/claude-sonnet-5-5, openai/gpt-5.4 or ` +
        `ollama/llama3.1`,
    );
  }
  return { providerName: spec.slice(0, slash), model: spec.slice(slash + 1) };
}

/**
 * Resolves a `provider/model` string to a provider with retries, throwing a ModelConfigError that names
 * what is missing. Example: `resolveModel('openai/gpt-5.4', { config, secrets }).provider.stream(...)`.
 */
export function resolveModel(spec: string, ctx: ResolveContext): ResolvedModel {
  const { providerName, model } = parseModelSpec(spec);
  const status = readyStatus(spec, providerName, ctx);
  return {
    provider: withRetry(rawProvider(status, ctx), { logger: ctx.logger, ...ctx.retry }),
    model,
    id: `${providerName}/${model}`,
  };
}

// SDK clients are reused per secrets object (one per process in production), so resolving per turn stays cheap.
const clients = new WeakMap<object, Map<string, Provider>>();

function rawProvider(status: ProviderStatus, ctx: ResolveContext): Provider {
  const apiKey = status.keyEnv ? ctx.secrets[status.keyEnv] : undefined;
  const idleTimeoutMs = idleTimeoutOf(status.name, ctx.config);
  const create = (): Provider => {
    const common = {
      name: status.name,
      baseURL: status.baseURL,
      idleTimeoutMs,
      ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
    };
    return status.type === 'anthropic'
      ? createAnthropicProvider({ ...common, apiKey: apiKey! })
      : createOpenAIProvider({
          ...common,
          ...(apiKey !== undefined ? { apiKey } : {}),
          maxTokensParam: status.type === 'openai' ? 'max_completion_tokens' : 'max_tokens',
        });
  };
  if (ctx.fetch) return create();
  let byKey = clients.get(ctx.secrets);
  if (!byKey) clients.set(ctx.secrets, (byKey = new Map()));
  const key = [status.name, status.type, status.baseURL, status.keyEnv, idleTimeoutMs].join('\0');
  let provider = byKey.get(key);
  if (!provider) byKey.set(key, (provider = create()));
  return provider;
}

function readyStatus(
  spec: string,
  providerName: string,
  ctx: Pick<ResolveContext, 'config' | 'secrets'>,
): ProviderStatus {
  const status = statusOf(providerName, ctx);
  if (!status) {
    const known = [...Object.keys(PROVIDER_PRESETS), ...Object.keys(ctx.config.providers ?? {})];
    throw new ModelConfigError(
      `${spec}: unknown provider "${providerName}" (known: ${[...new Set(known)].join(', ')}; add others under ` +
        `"providers" in the config)`,
    );
  }
  if (!status.ready) {
    const needs =
      status.baseURL && status.keyEnv
        ? `needs ${status.problem!.replace(/^set /, '')}`
        : `cannot be used: ${status.problem}`;
    throw new ModelConfigError(`${spec} ${needs}`);
  }
  return status;
}

/** Why `spec` cannot be resolved (the ModelConfigError's message), or undefined when it can. Builds no client. */
export function checkModel(spec: string, ctx: Pick<ResolveContext, 'config' | 'secrets'>): string | undefined {
  try {
    readyStatus(spec, parseModelSpec(spec).providerName, ctx);
    return undefined;
  } catch (err) {
    if (err instanceof ModelConfigError) return err.message;
    throw err;
  }
}

/** The model to use when none is named: `config.model`, else the default of the first native provider with a key. */
export function defaultModelSpec(ctx: Pick<ResolveContext, 'config' | 'secrets'>): string | undefined {
  if (ctx.config.model) return ctx.config.model;
  for (const [name, spec] of Object.entries(DEFAULT_MODELS)) {
    if (statusOf(name, ctx)?.ready) return spec;
  }
  return undefined;
}

/**
 * Resolves `spec` (default: `defaultModelSpec`) and, when `config.fallbackModel` is set and usable, wraps it so
 * the fallback takes over on overload (the primary then gives up on 529 at once instead of retrying).
 */
export function resolveModelWithFallback(
  spec: string | undefined,
  ctx: ResolveContext,
): ResolvedModel & { fallbackId?: string } {
  const primarySpec = spec ?? defaultModelSpec(ctx);
  if (!primarySpec) throw new ModelConfigError(noProviderMessage());
  const fallbackSpec = ctx.config.fallbackModel;
  if (!fallbackSpec || fallbackSpec === primarySpec) return resolveModel(primarySpec, ctx);
  let fallback: ResolvedModel;
  try {
    fallback = resolveModel(fallbackSpec, ctx);
  } catch (err) {
    (ctx.logger ?? silentLogger).warn(
      { fallback: fallbackSpec, err: errorMessage(err) },
      'fallback model unusable; running without it',
    );
    return resolveModel(primarySpec, ctx);
  }
  const primary = resolveModel(primarySpec, { ...ctx, retry: { ...ctx.retry, retryOverloaded: false } });
  return {
    ...primary,
    provider: withFallback(primary.provider, fallback, { logger: ctx.logger }),
    fallbackId: fallback.id,
  };
}

function noProviderMessage(): string {
  const keyed = Object.entries(PROVIDER_PRESETS)
    .filter(([, p]) => p.keyRequired)
    .map(([, p]) => p.keyEnv);
  return (
    `no model provider is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or one ` +
    `of ${keyed.slice(2).join(', ')} and "model" in the config), or set "model" to a local server such as ` +
    `ollama/llama3.1`
  );
}

/** The one-line hint channels answer with when no model can run; undefined when the default model is usable. */
export function missingProviderHint(ctx: Pick<ResolveContext, 'config' | 'secrets'>): string | undefined {
  const spec = defaultModelSpec(ctx);
  return spec ? checkModel(spec, ctx) : noProviderMessage();
}
