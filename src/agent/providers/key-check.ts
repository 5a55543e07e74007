// `boxbot doctor`'s check of one provider's key: the cheapest authenticated call each API has (a model list, Cohere's
// key check), or for Bedrock and Vertex, which list nothing under the same credentials, a one-token message.
import { errorMessage, fetchFailureCode } from '../../core/errors.ts';
import { ProviderError } from './errors.ts';
import { PROVIDER_PRESETS } from './presets.ts';
import { DEFAULT_AZURE_API_VERSION, type ProviderStatus, type ResolveContext, resolveModel } from './resolve.ts';

/** What a key check found: usable or not, and a line saying why (never the key itself). */
export interface KeyCheck {
  ok: boolean;
  detail: string;
}

/** The request that proves the key without spending tokens, for the APIs that have one. */
function probeOf(
  status: ProviderStatus,
  key: string | undefined,
  ctx: ResolveContext,
): [string, RequestInit] | undefined {
  const base = (status.baseURL ?? '').replace(/\/+$/, '');
  const bearer: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  switch (status.type) {
    case 'anthropic':
      return [`${base}/v1/models`, { headers: { 'x-api-key': key ?? '', 'anthropic-version': '2023-06-01' } }];
    case 'gemini':
      return [`${base}/v1beta/models?pageSize=1`, { headers: { 'x-goog-api-key': key ?? '' } }];
    case 'cohere':
      return [`${base}/v1/check-api-key`, { method: 'POST', headers: bearer }];
    case 'azure-openai': {
      const version = ctx.config.providers?.[status.name]?.apiVersion ?? DEFAULT_AZURE_API_VERSION;
      return [
        `${base}/openai/models?api-version=${encodeURIComponent(version)}`,
        { headers: { 'api-key': key ?? '' } },
      ];
    }
    case 'openai':
    case 'openai-compatible':
      return [`${base}/models`, { headers: bearer }];
    default:
      return undefined;
  }
}

const refused = (status: ProviderStatus, code: number): KeyCheck => ({
  ok: false,
  detail: `the key was refused (${code}): check ${
    status.type === 'bedrock'
      ? 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)'
      : status.keyEnv
  }`,
});

/** A one-token message to `model` through the provider itself (Bedrock, Vertex): the key is good unless refused. */
async function tinyCall(
  status: ProviderStatus,
  model: string,
  ctx: ResolveContext,
  timeoutMs: number,
): Promise<KeyCheck> {
  const m = resolveModel(`${status.name}/${model}`, { ...ctx, retry: { maxRetries: 0 } });
  const request = {
    model: m.model,
    system: '',
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'ping' }] }],
    tools: [],
    maxOutputTokens: 1,
  };
  try {
    for await (const _ of m.provider.stream(request, AbortSignal.timeout(timeoutMs)));
    return { ok: true, detail: `the key works (a one-token request to ${model} answered)` };
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'api' && (err.status === 401 || err.status === 403)) {
      // A key file can fail in several ways (unreadable, refused at its token endpoint): say which.
      if (status.keyEnv === 'GOOGLE_APPLICATION_CREDENTIALS') return { ok: false, detail: err.detail };
      return refused(status, err.status);
    }
    if (err instanceof ProviderError && err.kind === 'api' && err.status !== undefined && err.status < 500) {
      return { ok: true, detail: `the key was accepted, but ${model} was refused (${err.status}): ${err.detail}` };
    }
    return { ok: false, detail: `unreachable at ${status.baseURL} (${fetchFailureCode(err) ?? errorMessage(err)})` };
  }
}

/**
 * Checks `status`'s key against its API (the status must be ready). Example:
 * `await checkProviderKey(listProviders(ctx).find((p) => p.name === 'gemini')!, ctx)`.
 */
export async function checkProviderKey(
  status: ProviderStatus,
  ctx: ResolveContext & { model?: string; timeoutMs?: number },
): Promise<KeyCheck> {
  const key = status.keyEnv ? ctx.secrets[status.keyEnv] : undefined;
  const probe = probeOf(status, key, ctx);
  // A one-token message also loads its SDK (seconds on a busy machine) and waits for the model's first token.
  const timeoutMs = ctx.timeoutMs ?? (probe ? 5000 : 30_000);
  if (!probe) {
    const model = ctx.model ?? PROVIDER_PRESETS[status.name]?.defaultModel;
    if (!model) return { ok: false, detail: `no model to check the key with: set "model" to ${status.name}/<model>` };
    return tinyCall(status, model, ctx, timeoutMs);
  }
  const [url, init] = probe;
  try {
    const res = await (ctx.fetch ?? fetch)(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = (await res.text()).slice(0, 2000);
    if (res.status === 401 || res.status === 403) return refused(status, res.status);
    // Cohere answers 200 with `valid: false` for a key it does not know.
    if (status.type === 'cohere' && /"valid"\s*:\s*false/.test(text)) return refused(status, res.status);
    return { ok: true, detail: `reachable (${res.status})` };
  } catch (err) {
    return { ok: false, detail: `unreachable at ${status.baseURL} (${fetchFailureCode(err) ?? errorMessage(err)})` };
  }
}
