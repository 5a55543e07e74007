// A provider whose SDK is imported on its first call: Gemini's, Bedrock's and Vertex's clients pull in large
// dependency trees (google-auth-library, the AWS SDK) that a gateway using another provider should never load.
import { errorMessage } from '../../core/errors.ts';
import type { Provider } from '../types.ts';
import { ProviderError } from './errors.ts';

/**
 * A provider named `name` built by `load` on the first `stream` call (once; a failed load is retried on the next
 * call). A load that fails (the SDK missing or broken) ends the stream in a non-retryable ProviderError naming it.
 */
export function lazyProvider(name: string, load: () => Promise<Provider>): Provider {
  let loading: Promise<Provider> | undefined;
  return {
    name,
    async *stream(request, signal) {
      let provider: Provider;
      try {
        loading ??= load();
        provider = await loading;
      } catch (err) {
        loading = undefined;
        throw new ProviderError(name, 'api', `could not load the provider's SDK: ${errorMessage(err)}`, { cause: err });
      }
      yield* provider.stream(request, signal);
    },
  };
}
