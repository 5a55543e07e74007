// Application Default Credentials from a service-account key file (GOOGLE_APPLICATION_CREDENTIALS), the way Google's
// libraries do it: a JWT signed with the account's private key is exchanged at the file's `token_uri` for an access
// token, which is cached until shortly before it expires. Written on node:crypto because google-auth-library (only a
// dependency of the Vertex SDK, not ours) always posts to Google's token URL and so ignores the file's `token_uri`.
import { createSign } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { errorMessage, fetchFailureCode } from '../../core/errors.ts';
import { ProviderError } from './errors.ts';

/** The OAuth scope Vertex AI needs. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** A key file is a few KiB; anything larger is not one. */
const MAX_KEY_FILE_BYTES = 64 * 1024;
/** Tokens are renewed this long before they expire (google-auth-library's eager refresh threshold). */
const REFRESH_MARGIN_MS = 5 * 60_000;
const ASSERTION_LIFETIME_S = 3600;

/** The fields of a service-account key file that the token exchange uses. */
export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

/** Where a token comes from: the bearer header for each request, renewed as needed. */
export interface GoogleTokenSource {
  /** `Bearer <token>`, exchanged on first use and again when the cached one is about to expire. */
  authorization(): Promise<string>;
}

/** Options of a token source: the key file, and (tests) the fetch and clock to use. */
export interface TokenSourceOptions {
  /** The path GOOGLE_APPLICATION_CREDENTIALS names. */
  file: string;
  /** Names the provider in errors. */
  provider: string;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
}

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127\./.test(host);

/** Parses a key file's text, naming the file and the field that is wrong. */
export function parseServiceAccountKey(text: string, file: string): ServiceAccountKey {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS) is not JSON`);
  }
  if (json === null || typeof json !== 'object')
    throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS) is not a key`);
  if (json.type !== 'service_account') {
    throw new Error(
      `${file} (GOOGLE_APPLICATION_CREDENTIALS) has type ${JSON.stringify(json.type ?? null)}: ` +
        'only "service_account" key files are supported (or set VERTEX_ACCESS_TOKEN)',
    );
  }
  for (const field of ['client_email', 'private_key'] as const) {
    if (typeof json[field] !== 'string' || json[field] === '') {
      throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS) has no ${field}`);
    }
  }
  const tokenUri = typeof json.token_uri === 'string' && json.token_uri ? json.token_uri : GOOGLE_TOKEN_URI;
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS): token_uri is not a URL`);
  }
  // The signed assertion must not travel in clear text except to this machine.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS): token_uri must be https (or http on loopback)`);
  }
  return {
    clientEmail: json.client_email as string,
    privateKey: json.private_key as string,
    privateKeyId: typeof json.private_key_id === 'string' ? json.private_key_id : undefined,
    tokenUri,
  };
}

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** The RS256-signed JWT bearer assertion for `key` at `nowMs` (RFC 7523). */
export function signAssertion(key: ServiceAccountKey, nowMs: number, scope = CLOUD_PLATFORM_SCOPE): string {
  const iat = Math.floor(nowMs / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) };
  const claims = { iss: key.clientEmail, scope, aud: key.tokenUri, iat, exp: iat + ASSERTION_LIFETIME_S };
  const unsigned = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key.privateKey);
  return `${unsigned}.${b64url(signature)}`;
}

async function readKeyFile(file: string, provider: string): Promise<ServiceAccountKey> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS) is not a file`);
    if (info.size > MAX_KEY_FILE_BYTES) throw new Error(`${file} (GOOGLE_APPLICATION_CREDENTIALS) is over 64 KiB`);
    return parseServiceAccountKey(await readFile(file, 'utf8'), file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message = code ? `${file} (GOOGLE_APPLICATION_CREDENTIALS) cannot be read (${code})` : errorMessage(err);
    // Status 401: a credentials problem, reported like a refused key and never retried.
    throw new ProviderError(provider, 'api', message, { status: 401 });
  }
}

/** Sends `assertion` to the token endpoint; the answer's access token and its lifetime. */
async function exchange(
  key: ServiceAccountKey,
  assertion: string,
  options: TokenSourceOptions,
): Promise<{ token: string; expiresInS: number }> {
  const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(key.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (err) {
    const why = fetchFailureCode(err) ?? errorMessage(err);
    throw new ProviderError(options.provider, 'network', `token endpoint ${key.tokenUri} unreachable (${why})`);
  }
  const text = (await res.text()).slice(0, 4000);
  let json: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    json = JSON.parse(text);
  } catch {
    // Reported below by what is missing.
  }
  if (!res.ok || typeof json.access_token !== 'string' || json.access_token === '') {
    const reason = [json.error, json.error_description].filter((x) => typeof x === 'string').join(': ');
    // A refused assertion (400 invalid_grant, 401) is a credentials problem; 5xx and 429 are worth another try.
    const status = res.ok ? 502 : res.status === 400 ? 401 : res.status;
    throw new ProviderError(
      options.provider,
      'api',
      `token endpoint ${key.tokenUri} answered ${res.status}${reason ? ` (${reason.slice(0, 200)})` : ''} for ` +
        `${key.clientEmail}: check GOOGLE_APPLICATION_CREDENTIALS`,
      { status },
    );
  }
  const expiresInS = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3600;
  return { token: json.access_token, expiresInS };
}

/**
 * A token source over a service-account key file: one exchange at a time, the token reused until
 * REFRESH_MARGIN_MS before its expiry.
 * Example: `await serviceAccountTokens({ file, provider: 'vertex' }).authorization()`.
 */
export function serviceAccountTokens(options: TokenSourceOptions): GoogleTokenSource {
  const now = options.now ?? Date.now;
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const renew = async (): Promise<string> => {
    // Read at each renewal: a rotated key file is picked up without a restart.
    const key = await readKeyFile(options.file, options.provider);
    const started = now();
    const { token, expiresInS } = await exchange(key, signAssertion(key, started), options);
    cached = { token, refreshAt: started + Math.max(0, expiresInS * 1000 - REFRESH_MARGIN_MS) };
    return token;
  };
  return {
    async authorization() {
      if (cached && now() < cached.refreshAt) return `Bearer ${cached.token}`;
      pending ??= renew().finally(() => {
        pending = undefined;
      });
      return `Bearer ${await pending}`;
    },
  };
}
