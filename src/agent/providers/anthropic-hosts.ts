// Anthropic models on the cloud hosts teams are often required to use: Amazon Bedrock (SigV4-signed
// InvokeModelWithResponseStream, or a Bedrock API key) and Google Vertex AI (`:streamRawPredict` with an OAuth
// token), each through Anthropic's own SDK for that host, imported on first use. The stream is the Messages API's.
// Those SDKs are optional peer dependencies (optional-sdk.ts): a production install has them only when the user adds
// them, and a missing one is named with the command that adds it.
import type { Provider } from '../types.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { serviceAccountTokens } from './google-adc.ts';
import { lazyProvider } from './lazy.ts';
import { importOptionalSdk, OPTIONAL_SDKS, optionalSdkProblem } from './optional-sdk.ts';

/** The SDK package each cloud host needs and the versions boxbot is built against (package.json's peerDependencies). */
export const HOST_SDKS = {
  bedrock: OPTIONAL_SDKS.bedrock,
  'vertex-anthropic': OPTIONAL_SDKS['vertex-anthropic'],
} as const;

/** What is wrong when `sdk` cannot be loaded from here (not installed), else undefined. */
export const hostSdkProblem = optionalSdkProblem;

/** Bedrock credentials: static IAM keys (signed with SigV4), or a Bedrock API key sent as a bearer token. */
export type BedrockCredentials =
  | { accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { bearerToken: string };

/** What a Bedrock provider needs; nothing is read from the environment by the SDK (every option is passed). */
export interface BedrockProviderOptions {
  name?: string;
  region: string;
  credentials: BedrockCredentials;
  /** Default `https://bedrock-runtime.<region>.amazonaws.com`. */
  baseURL?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Creates a provider for Anthropic models on Amazon Bedrock (model ids such as `us.anthropic.claude-…-v1:0`). */
export function createBedrockProvider(options: BedrockProviderOptions): Provider {
  const name = options.name ?? 'bedrock';
  return lazyProvider(name, async () => {
    const { AnthropicBedrock } = await importOptionalSdk<typeof import('@anthropic-ai/bedrock-sdk')>(HOST_SDKS.bedrock);
    const c = options.credentials;
    const common = {
      awsRegion: options.region,
      baseURL: options.baseURL ?? `https://bedrock-runtime.${options.region}.amazonaws.com`,
      maxRetries: 0,
      logLevel: 'off' as const,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    };
    // `apiKey: null`, not undefined: the SDK would otherwise read AWS_BEARER_TOKEN_BEDROCK from the environment.
    const client =
      'accessKeyId' in c
        ? new AnthropicBedrock({
            ...common,
            apiKey: null,
            awsAccessKey: c.accessKeyId,
            awsSecretKey: c.secretAccessKey,
            awsSessionToken: c.sessionToken ?? null,
          })
        : new AnthropicBedrock({ ...common, apiKey: c.bearerToken });
    // Bedrock takes cache points on blocks, not the Messages API's top-level automatic cache marker.
    return createAnthropicProvider({
      name,
      apiKey: '',
      client,
      promptCaching: false,
      idleTimeoutMs: options.idleTimeoutMs,
    });
  });
}

/** What a Vertex provider needs: the project, the region and an access token (or Application Default Credentials). */
export interface VertexProviderOptions {
  name?: string;
  projectId: string;
  /** `us-east5`, `europe-west1`, `global`, ... */
  region: string;
  /**
   * An OAuth access token (`gcloud auth print-access-token`). resolve.ts passes this or `credentialsFile`; with
   * neither the SDK would look for Application Default Credentials itself.
   */
  accessToken?: string;
  /** A service-account key file (GOOGLE_APPLICATION_CREDENTIALS): tokens are exchanged at its `token_uri`. */
  credentialsFile?: string;
  /** Default: the SDK's endpoint for the region. */
  baseURL?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Vertex AI's endpoint for `region` (the global endpoint has no region prefix). */
export function vertexBaseURL(region: string): string {
  return region === 'global'
    ? 'https://aiplatform.googleapis.com/v1'
    : `https://${region}-aiplatform.googleapis.com/v1`;
}

/** The slice of google-auth-library's AuthClient the Vertex SDK calls: a bearer header per request. */
function tokenAuthClient(authorization: () => Promise<string>, projectId: string) {
  return {
    projectId,
    getRequestHeaders: async () => new Headers({ authorization: await authorization() }),
  };
}

/** The Vertex SDK's auth client for `options`: the fixed token, else tokens from the key file; none without either. */
function vertexAuthClient(options: VertexProviderOptions, name: string) {
  if (options.accessToken) {
    const header = `Bearer ${options.accessToken}`;
    return tokenAuthClient(async () => header, options.projectId);
  }
  if (options.credentialsFile) {
    const tokens = serviceAccountTokens({
      file: options.credentialsFile,
      provider: name,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    return tokenAuthClient(() => tokens.authorization(), options.projectId);
  }
  return undefined;
}

/** Creates a provider for Anthropic models on Google Vertex AI (model ids such as `claude-sonnet-4-5@20250929`). */
export function createVertexProvider(options: VertexProviderOptions): Provider {
  const name = options.name ?? 'vertex';
  return lazyProvider(name, async () => {
    const { AnthropicVertex } = await importOptionalSdk<typeof import('@anthropic-ai/vertex-sdk')>(
      HOST_SDKS['vertex-anthropic'],
    );
    const auth = vertexAuthClient(options, name);
    const client = new AnthropicVertex({
      projectId: options.projectId,
      region: options.region,
      // Passed always: the SDK would otherwise read ANTHROPIC_VERTEX_BASE_URL from the environment.
      baseURL: options.baseURL ?? vertexBaseURL(options.region),
      ...(auth ? { authClient: auth as never } : {}),
      maxRetries: 0,
      logLevel: 'off',
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    });
    return createAnthropicProvider({
      name,
      apiKey: '',
      client,
      promptCaching: false,
      idleTimeoutMs: options.idleTimeoutMs,
    });
  });
}
