// Amazon Bedrock's InvokeModelWithResponseStream wire format for Anthropic models: each Anthropic stream event
// is a base64 `bytes` payload inside an AWS event-stream `chunk` message (binary framing with CRCs); stream
// failures are `exception` messages; HTTP errors carry `x-amzn-ErrorType`. Also checks SigV4 Authorization headers.
// Written on node:crypto alone (the AWS helper packages are only the Bedrock SDK's dependencies, not ours).

import { createHash, createHmac } from 'node:crypto';
import type { Frame } from './frames.ts';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE), as the event-stream prelude and message checksums use. */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

type Header = { type: 'string'; value: string };

/**
 * One event-stream message: total length, headers length, prelude CRC, headers (name length, name, type 7 =
 * string, value length, value), payload, message CRC.
 */
function encodeMessage(message: { headers: Record<string, Header>; body: Uint8Array }): Uint8Array {
  const headers = Buffer.concat(
    Object.entries(message.headers).map(([name, h]) => {
      const n = Buffer.from(name, 'utf8');
      const v = Buffer.from(h.value, 'utf8');
      const len = Buffer.alloc(2);
      len.writeUInt16BE(v.length);
      return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([7]), len, v]);
    }),
  );
  const total = 12 + headers.length + message.body.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headers.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  headers.copy(out, 12);
  Buffer.from(message.body).copy(out, 12 + headers.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

const codec = { encode: encodeMessage };
const fromUtf8 = (s: string) => Buffer.from(s, 'utf8');

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

/** encodeURIComponent plus the characters SigV4 also escapes. */
const escapeUri = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The canonical path as AWS signers make it: segments normalised, then the (already encoded) path escaped again. */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length && path.endsWith('/') ? '/' : '';
  const normalised = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${trailing}`;
  return escapeUri(normalised).replace(/%2F/g, '/');
}

function canonicalQuery(query: string): string {
  const pairs: string[] = [];
  for (const [k, v] of new URLSearchParams(query))
    if (k.toLowerCase() !== 'x-amz-signature') pairs.push(`${escapeUri(k)}=${escapeUri(v)}`);
  return pairs.sort().join('&');
}

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();

/**
 * Why `req`'s SigV4 signature is not the one `secretAccessKey` makes for it, or undefined when it is: the request
 * is signed again here (same signed headers, same date, same body) and the two signatures compared.
 */
export async function sigV4Mismatch(req: SignedRequest, secretAccessKey: string): Promise<string | undefined> {
  const problem = sigV4Problem(req.headers);
  if (problem) return problem;
  const auth = String(req.headers.authorization);
  const [, , date, region] = /Credential=([^/]+)\/(\d{8})\/([^/]+)\//.exec(auth)!;
  const signedNames = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(';');
  const header = (name: string) =>
    String(req.headers[name] ?? '')
      .trim()
      .replace(/\s+/g, ' ');
  const payloadHash = signedNames.includes('x-amz-content-sha256')
    ? header('x-amz-content-sha256')
    : sha256Hex(req.body);
  const canonical = [
    req.method,
    canonicalPath(req.path),
    canonicalQuery(req.query),
    signedNames.map((n) => `${n}:${header(n)}\n`).join(''),
    signedNames.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/bedrock/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', header('x-amz-date'), scope, sha256Hex(canonical)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, date!);
  for (const part of [region!, 'bedrock', 'aws4_request']) key = hmac(key, part);
  const expected = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  return expected === /Signature=([0-9a-f]{64})$/.exec(auth)![1]
    ? undefined
    : 'the SigV4 signature does not match the request (wrong secret or altered request)';
}
