// The configured fallback model takes over when the primary is overloaded (529, or 429/5xx/network failures
// or stalled streams that outlived the retries) before it delivered anything. A half-delivered answer is never
// replayed.
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import type { Provider, StreamPart } from '../types.ts';
import { ProviderError } from './errors.ts';

/** A provider together with the model id it should be asked for. */
export interface ModelTarget {
  provider: Provider;
  model: string;
  /** `provider/model`, for logs. */
  id: string;
}

/** A provider that asks `primary` first and, on overload, `fallback` with the fallback's model id. */
export function withFallback(primary: Provider, fallback: ModelTarget, options: { logger?: Logger } = {}): Provider {
  const log = options.logger ?? silentLogger;
  return {
    name: primary.name,
    async *stream(request, signal): AsyncGenerator<StreamPart> {
      let yielded = false;
      try {
        for await (const part of primary.stream(request, signal)) {
          yielded = true;
          yield part;
        }
        return;
      } catch (err) {
        if (yielded || signal.aborted || !(err instanceof ProviderError) || !err.isOverload) throw err;
        log.warn(
          { provider: primary.name, model: request.model, status: err.status, kind: err.kind, fallback: fallback.id },
          err.kind === 'stalled'
            ? 'model stream stalled; using the fallback model'
            : 'model overloaded; using the fallback model',
        );
      }
      yield* fallback.provider.stream({ ...request, model: fallback.model }, signal);
    },
  };
}
