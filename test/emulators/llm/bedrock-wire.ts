// Amazon Bedrock's InvokeModelWithResponseStream wire format for Anthropic models: each Anthropic stream event
// is a base64 `bytes` payload inside an AWS event-stream `chunk` message (binary framing with CRCs); stream
// failures are `exception` messages; HTTP errors carry `x-amzn-ErrorType`. Also checks SigV4 Authorization headers.

import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Frame } from './frames.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

const str = (value: string) => ({ type: 'string' as const, value });

/** One event-stream `chunk` message carrying `json` (an Anthropic stream event) base64-encoded. */
export function bedrockChunk(json: string): Uint8Array {
  const payload = JSON.stringify({ bytes: Buffer.from(json, 'utf8').toString('base64') });
  return codec.encode({
    headers: {
      ':event-type': str('chunk'),
      ':content-type': str('application/json'),
      ':message-type': str('event'),
    },
    body: fromUtf8(payload),
  });
}

/** One event-stream `exception` message, as Bedrock ends a stream that failed (e.g. `throttlingException`). */
export function bedrockException(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': str(type),
      ':content-type': str('application/json'),
      ':message-type': str('exception'),
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** Anthropic stream error types as the Bedrock exceptions that stand for them. */
const EXCEPTION: Record<string, string> = {
  overloaded_error: 'serviceUnavailableException',
  rate_limit_error: 'throttlingException',
  api_error: 'internalServerException',
};

/** Anthropic SSE frames (from anthropic-wire.ts) re-framed as Bedrock's binary event stream. */
export function bedrockFrames(sseFrames: Frame[]): Frame[] {
  return sseFrames.map((f) => {
    if (!('data' in f) || typeof f.data !== 'string') return f;
    const json = /^data: (.*)$/m.exec(f.data)?.[1] ?? '{}';
    const event = JSON.parse(json) as { type?: string; error?: { type?: string; message?: string } };
    if (event.type === 'error') {
      return {
        data: bedrockException(
          EXCEPTION[event.error?.type ?? ''] ?? 'internalServerException',
          event.error?.message ?? '',
        ),
      };
    }
    return { data: bedrockChunk(json) };
  });
}

/** Bedrock's error type (the `x-amzn-ErrorType` header) for an HTTP status. */
export function bedrockErrorType(status: number): string {
  const types: Record<number, string> = {
    400: 'ValidationException',
    401: 'UnrecognizedClientException',
    403: 'AccessDeniedException',
    404: 'ResourceNotFoundException',
    408: 'ModelTimeoutException',
    429: 'ThrottlingException',
    503: 'ServiceUnavailableException',
  };
  return types[status] ?? 'InternalServerException';
}

/**
 * What is wrong with a request's SigV4 Authorization header, or undefined when it is well-formed:
 * `AWS4-HMAC-SHA256 Credential=<key>/<yyyymmdd>/<region>/bedrock/aws4_request, SignedHeaders=..., Signature=<64 hex>`,
 * with the date matching `x-amz-date` and host among the signed headers.
 */
export function sigV4Problem(headers: Record<string, string | string[] | undefined>): string | undefined {
  const auth = String(headers.authorization ?? '');
  const m = new RegExp(
    '^AWS4-HMAC-SHA256 Credential=([A-Z0-9]+)/(\\d{8})/([a-z0-9-]+)/bedrock/aws4_request, ' +
      'SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$',
  ).exec(auth);
  if (!m) return `Authorization is not a SigV4 header: "${auth.slice(0, 60)}"`;
  const date = String(headers['x-amz-date'] ?? '');
  if (!date.startsWith(m[2]!)) return `x-amz-date "${date}" does not match the credential date ${m[2]}`;
  const signed = m[4]!.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return `SignedHeaders lacks host or x-amz-date`;
  return undefined;
}

/** What the emulator needs to check a signature: the request as received. */
export interface SignedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Why `req`'s SigV4 signature is not the one `secretAccessKey` makes for it, or undefined when it is: the request
 * is signed again here (same signed headers, same date, same body) and the two Authorization headers compared.
 */
export async function sigV4Mismatch(req: SignedRequest, secretAccessKey: string): Promise<string | undefined> {
  const problem = sigV4Problem(req.headers);
  if (problem) return problem;
  const auth = String(req.headers.authorization);
  const [, accessKeyId, , region] = /Credential=([^/]+)\/(\d{8})\/([^/]+)\//.exec(auth)!;
  const signedNames = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(';');
  const headers: Record<string, string> = {};
  for (const name of signedNames) headers[name] = String(req.headers[name] ?? '');
  const query: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(req.query)) (query[k] ??= []).push(v);
  const amzDate = String(req.headers['x-amz-date']);
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const token = req.headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service: 'bedrock',
    region: region!,
    credentials: { accessKeyId: accessKeyId!, secretAccessKey, ...(token ? { sessionToken: String(token) } : {}) },
    sha256: Sha256,
  });
  const request = new HttpRequest({
    method: req.method,
    protocol: 'http:',
    path: req.path,
    query,
    headers,
    body: req.body,
  });
  const expected = (await signer.sign(request, { signingDate })).headers.authorization;
  return expected === auth
    ? undefined
    : 'the SigV4 signature does not match the request (wrong secret or altered request)';
}
