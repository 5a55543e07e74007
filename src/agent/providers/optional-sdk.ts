// The SDKs boxbot loads only for the providers that need them, kept out of a production install as optional peer
// dependencies: Anthropic's for Amazon Bedrock (the AWS SDK alone is 61 MB) and Google Vertex, and Google's for
// Gemini (28 MB with google-auth-library and its polyfills). A missing one is named with the command that adds it,
// by `doctor`, by the provider status at start and by the provider's first call.
import { createRequire } from 'node:module';

/** An optional SDK and the versions boxbot is built against (package.json's peerDependencies). */
export interface OptionalSdk {
  pkg: string;
  range: string;
}

/** The optional SDK each provider type needs. */
export const OPTIONAL_SDKS = {
  bedrock: { pkg: '@anthropic-ai/bedrock-sdk', range: '^1.1.3' },
  'vertex-anthropic': { pkg: '@anthropic-ai/vertex-sdk', range: '^1.1.3' },
  gemini: { pkg: '@google/genai', range: '^2.32.0' },
} as const satisfies Record<string, OptionalSdk>;

const sdkMissingText = (sdk: OptionalSdk) =>
  `the package ${sdk.pkg} is not installed (an optional dependency): run \`npm install ${sdk.pkg}@${sdk.range}\` ` +
  "in boxbot's folder";

/** What is wrong when `sdk` cannot be loaded from here (not installed), else undefined. */
export function optionalSdkProblem(sdk: OptionalSdk): string | undefined {
  try {
    createRequire(import.meta.url).resolve(sdk.pkg);
    return undefined;
  } catch {
    return sdkMissingText(sdk);
  }
}

/** Imports an optional SDK; a missing one is an error naming the package and the command that installs it. */
export async function importOptionalSdk<T>(sdk: OptionalSdk): Promise<T> {
  try {
    return (await import(sdk.pkg)) as T;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes(`'${sdk.pkg}'`))
      throw new Error(sdkMissingText(sdk), { cause: e });
    throw e;
  }
}
