// `provider/model` strings → a ready Provider (retries included), from presets, config and secrets.
// Also answers "which providers can run?" for `boxbot doctor` and the "no key configured" hint.

import type { Secrets } from '../../config/env.ts';
import type { Config } from '../../config/schema.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import type { Provider } from '../types.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { createBedrockProvider, createVertexProvider, vertexBaseURL } from './anthropic-hosts.ts';
import { createCohereProvider } from './cohere.ts';
import { ModelConfigError } from './errors.ts';
import { withFallback } from './fallback.ts';
import { createGeminiProvider } from './gemini.ts';
import { createOpenAIProvider } from './openai.ts';
import { OPTIONAL_SDKS, optionalSdkProblem } from './optional-sdk.ts';
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
  // A Gemini or Cohere key alone is enough too (the cloud hosts need a region or a deployment named first).
  gemini: 'gemini/gemini-2.5-flash',
  cohere: 'cohere/command-a-03-2025',
});

/** The key variable of each type when neither the preset nor the config names one. */
const NATIVE_KEYS: Partial<Record<ProviderType, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
  cohere: 'COHERE_API_KEY',
  'azure-openai': 'AZURE_OPENAI_API_KEY',
  bedrock: 'AWS_ACCESS_KEY_ID',
  'vertex-anthropic': 'VERTEX_ACCESS_TOKEN',
};

/** Azure OpenAI's `api-version` when the config does not name one (the latest GA version of the data plane). */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

type Ctx = Pick<ResolveContext, 'config' | 'secrets'>;

/** The region of a Bedrock or Vertex provider: its config, else (Bedrock) AWS_REGION. */
function regionOf(name: string, type: ProviderType, ctx: Ctx): string | undefined {
  return ctx.config.providers?.[name]?.region ?? (type === 'bedrock' ? ctx.secrets.AWS_REGION : undefined);
}

/** The endpoint a host's region implies when neither the config nor the environment gives a base URL. */
function hostBaseURL(name: string, type: ProviderType, ctx: Ctx): string | undefined {
  const region = regionOf(name, type, ctx);
  if (!region) return undefined;
  if (type === 'bedrock') return `https://bedrock-runtime.${region}.amazonaws.com`;
  if (type === 'vertex-anthropic') return vertexBaseURL(region);
  return undefined;
}

/** Bedrock signs with IAM keys (both halves) or sends a Bedrock API key. */
function hasBedrockKey(secrets: Secrets): boolean {
  return Boolean((secrets.AWS_ACCESS_KEY_ID && secrets.AWS_SECRET_ACCESS_KEY) || secrets.AWS_BEARER_TOKEN_BEDROCK);
}

/**
 * Vertex without VERTEX_ACCESS_TOKEN (and no apiKeyEnv of its own) uses Application Default Credentials: the key file
 * GOOGLE_APPLICATION_CREDENTIALS names.
 */
function vertexAdc(type: ProviderType, apiKeyEnv: string | undefined, secrets: Secrets): boolean {
  return (
    type === 'vertex-anthropic' &&
    apiKeyEnv === undefined &&
    !secrets.VERTEX_ACCESS_TOKEN &&
    Boolean(secrets.GOOGLE_APPLICATION_CREDENTIALS)
  );
}

/** What a cloud host's provider lacks besides its key and base URL: a region, a project, its optional SDK. */
function hostProblem(name: string, type: ProviderType, ctx: Ctx): string | undefined {
  if (type !== 'bedrock' && type !== 'vertex-anthropic') return undefined;
  if (!regionOf(name, type, ctx)) {
    return `providers.${name}.region is not set in the config${type === 'bedrock' ? ' (or AWS_REGION)' : ''}`;
  }
  if (type === 'vertex-anthropic' && !ctx.config.providers?.[name]?.projectId) {
    return `providers.${name}.projectId is not set in the config (the Google Cloud project)`;
  }
  return optionalSdkProblem(OPTIONAL_SDKS[type]);
}

function statusOf(name: string, ctx: Ctx): ProviderStatus | undefined {
  const preset = PROVIDER_PRESETS[name];
  const cfg = ctx.config.providers?.[name];
  if (!preset && !cfg) return undefined;
  const type = cfg?.type ?? preset!.type;
  const baseURL =
    cfg?.baseURL ??
    ctx.secrets[baseURLEnvOf(name)] ??
    (preset && preset.type === type && preset.baseURL ? preset.baseURL : hostBaseURL(name, type, ctx));
  const keyEnv = vertexAdc(type, cfg?.apiKeyEnv, ctx.secrets)
    ? 'GOOGLE_APPLICATION_CREDENTIALS'
    : (cfg?.apiKeyEnv ?? (preset?.type === type ? preset.keyEnv : undefined) ?? NATIVE_KEYS[type]);
  const keyRequired = cfg?.apiKeyEnv !== undefined || type !== 'openai-compatible' || (preset?.keyRequired ?? false);
  const bedrockKeys = type === 'bedrock' && cfg?.apiKeyEnv === undefined;
  const hasKey = bedrockKeys ? hasBedrockKey(ctx.secrets) : keyEnv !== undefined && ctx.secrets[keyEnv] !== undefined;
  let problem: string | undefined = hostProblem(name, type, ctx);
  if (problem) {
    // The region or project comes first: without it there is no endpoint to name.
  } else if (!baseURL) {
    const what = type === 'azure-openai' ? " (your resource's endpoint, https://<resource>.openai.azure.com)" : '';
    problem = `providers.${name}.baseURL is not set in the config${what} (or ${baseURLEnvOf(name)} in the environment)`;
  } else if (keyRequired && !hasKey) {
    problem = bedrockKeys
      ? 'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)'
      : type === 'vertex-anthropic' && cfg?.apiKeyEnv === undefined
        ? `set ${keyEnv} (or GOOGLE_APPLICATION_CREDENTIALS, the path of a service-account key file)`
        : keyEnv
          ? `set ${keyEnv}`
          : `set providers.${name}.apiKeyEnv in the config`;
  } else if (type === 'gemini') {
    // Named once the key is there: until then setting the key is the first thing to do.
    problem = optionalSdkProblem(OPTIONAL_SDKS.gemini);
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
  const create = (): Provider => createFor(status, apiKey, idleTimeoutMs, ctx);
  if (ctx.fetch) return create();
  let byKey = clients.get(ctx.secrets);
  if (!byKey) clients.set(ctx.secrets, (byKey = new Map()));
  const settings = JSON.stringify(ctx.config.providers?.[status.name] ?? {});
  const key = [status.name, status.type, status.baseURL, status.keyEnv, idleTimeoutMs, settings].join('\0');
  let provider = byKey.get(key);
  if (!provider) byKey.set(key, (provider = create()));
  return provider;
}

/** The provider client for a ready `status` (Gemini, Bedrock and Vertex load their SDKs on the first call). */
function createFor(status: ProviderStatus, apiKey: string | undefined, idleTimeoutMs: number, ctx: ResolveContext) {
  const common = {
    name: status.name,
    baseURL: status.baseURL,
    idleTimeoutMs,
    ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
  };
  const cfg = ctx.config.providers?.[status.name];
  const s = ctx.secrets;
  switch (status.type) {
    case 'anthropic':
      return createAnthropicProvider({ ...common, apiKey: apiKey! });
    case 'gemini':
      return createGeminiProvider({ ...common, apiKey: apiKey! });
    case 'cohere':
      return createCohereProvider({ ...common, apiKey: apiKey! });
    case 'azure-openai':
      return createOpenAIProvider({
        ...common,
        apiKey: apiKey!,
        azure: { apiVersion: cfg?.apiVersion ?? DEFAULT_AZURE_API_VERSION },
      });
    case 'bedrock': {
      const region = regionOf(status.name, status.type, ctx)!;
      const credentials =
        cfg?.apiKeyEnv !== undefined
          ? { bearerToken: apiKey! }
          : s.AWS_ACCESS_KEY_ID && s.AWS_SECRET_ACCESS_KEY
            ? {
                accessKeyId: s.AWS_ACCESS_KEY_ID,
                secretAccessKey: s.AWS_SECRET_ACCESS_KEY,
                ...(s.AWS_SESSION_TOKEN ? { sessionToken: s.AWS_SESSION_TOKEN } : {}),
              }
            : { bearerToken: s.AWS_BEARER_TOKEN_BEDROCK! };
      return createBedrockProvider({ ...common, region, credentials });
    }
    case 'vertex-anthropic':
      return createVertexProvider({
        ...common,
        region: regionOf(status.name, status.type, ctx)!,
        projectId: cfg!.projectId!,
        ...(status.keyEnv === 'GOOGLE_APPLICATION_CREDENTIALS'
          ? { credentialsFile: apiKey! }
          : apiKey
            ? { accessToken: apiKey }
            : {}),
      });
    default:
      return createOpenAIProvider({
        ...common,
        ...(apiKey !== undefined ? { apiKey } : {}),
        maxTokensParam:
          status.type === 'openai'
            ? 'max_completion_tokens'
            : (PROVIDER_PRESETS[status.name]?.maxTokensParam ?? 'max_tokens'),
      });
  }
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
    const needs = status.problem!.startsWith('set ')
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
    // Vertex also signs in with a service-account key file (Application Default Credentials).
    .map(([, p]) => (p.keyEnv === 'VERTEX_ACCESS_TOKEN' ? `${p.keyEnv} or GOOGLE_APPLICATION_CREDENTIALS` : p.keyEnv));
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
