// Speech to text through the OpenAI-compatible `POST <baseURL>/audio/transcriptions` (OpenAI's
// whisper-1 and gpt-4o(-mini)-transcribe, Groq, a local Whisper server behind any provider's
// baseURL). The provider's base URL and key are resolved like a chat model's, from
// `media.transcription.model` (`provider/model`).
// Example: const t = createTranscriber('openai/gpt-4o-mini-transcribe', { config, secrets }); await t(file, signal);
import type { Secrets } from '../../config/env.ts';
import type { Config } from '../../config/schema.ts';
import { errorMessage, fetchFailureCode } from '../../core/errors.ts';
import { ModelConfigError, ProviderError } from './errors.ts';
import { listProviders, parseModelSpec } from './resolve.ts';

/** One audio file to transcribe. */
export interface AudioFile {
  bytes: Uint8Array;
  name: string;
  mimeType: string;
}

/** Turns speech into text; throws ProviderError (or ModelConfigError) naming what failed. */
export type Transcriber = (file: AudioFile, signal?: AbortSignal) => Promise<string>;

/** What building a transcriber needs. */
export interface TranscriberContext {
  config: Config;
  secrets: Secrets;
  fetch?: typeof fetch;
  /** Whole request (default 120 s). */
  timeoutMs?: number;
}

/** Why `spec` cannot transcribe (for `boxbot doctor`), or undefined when it can be called. */
export function checkTranscriptionModel(
  spec: string,
  ctx: Pick<TranscriberContext, 'config' | 'secrets'>,
): string | undefined {
  try {
    targetOf(spec, ctx);
    return undefined;
  } catch (e) {
    if (e instanceof ModelConfigError) return e.message;
    throw e;
  }
}

function targetOf(spec: string, ctx: Pick<TranscriberContext, 'config' | 'secrets'>) {
  const { providerName, model } = parseModelSpec(spec);
  const status = listProviders(ctx).find((p) => p.name === providerName);
  if (!status) throw new ModelConfigError(`${spec}: unknown provider "${providerName}" (add it under "providers")`);
  if (status.type === 'anthropic')
    throw new ModelConfigError(`${spec}: Anthropic has no transcription API; use an OpenAI-compatible provider`);
  if (!status.ready) throw new ModelConfigError(`${spec} needs ${status.problem!.replace(/^set /, '')}`);
  const apiKey = status.keyEnv ? ctx.secrets[status.keyEnv] : undefined;
  return { provider: providerName, model, baseURL: status.baseURL!.replace(/\/+$/, ''), apiKey };
}

/**
 * A transcriber for `spec`; throws ModelConfigError at once when the provider cannot be called
 * (unknown, no key, no base URL), so the problem shows at start, not at the first voice note.
 */
export function createTranscriber(spec: string, ctx: TranscriberContext, language?: string): Transcriber {
  const target = targetOf(spec, ctx);
  const doFetch = ctx.fetch ?? fetch;
  return async (file, signal) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.name);
    form.append('model', target.model);
    form.append('response_format', 'json');
    if (language) form.append('language', language);
    const timeout = AbortSignal.timeout(ctx.timeoutMs ?? 120_000);
    let res: Response;
    try {
      res = await doFetch(`${target.baseURL}/audio/transcriptions`, {
        method: 'POST',
        headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
        body: form,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      const aborted = signal?.aborted ?? false;
      throw new ProviderError(target.provider, aborted ? 'aborted' : 'network', `transcription: ${causeOf(e)}`);
    }
    const body = await res.text().catch(() => '');
    if (!res.ok) {
      throw new ProviderError(target.provider, 'api', `transcription failed (${res.status}): ${apiMessage(body)}`, {
        status: res.status,
      });
    }
    try {
      const parsed = JSON.parse(body) as { text?: unknown };
      if (typeof parsed.text === 'string') return parsed.text.trim();
    } catch {
      // a server that ignored response_format=json answers with the text itself
      return body.trim();
    }
    throw new ProviderError(target.provider, 'api', 'transcription answered without a text', { status: res.status });
  };
}

function apiMessage(body: string): string {
  try {
    const e = (JSON.parse(body) as { error?: { message?: unknown } }).error;
    if (typeof e?.message === 'string') return e.message.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.slice(0, 200) || 'no details';
}

function causeOf(e: unknown): string {
  return fetchFailureCode(e) ?? errorMessage(e);
}
