// @ts-check
// One HTTP GET through wasi:http/outgoing-handler, with the body read up to a byte cap. No
// redirect is followed here: the caller decides, so every hop is a new request that the
// sandbox host checks against the allowed hosts and blocked networks again.
import { handle } from 'wasi:http/outgoing-handler@0.2.12';
import { Fields, OutgoingRequest } from 'wasi:http/types@0.2.12';
import { concat } from '../lib/bytes.js';
import { ToolError } from '../lib/cli.js';

const enc = new TextEncoder();

/** Why a request failed, by wasi:http error code. */
const REASONS = {
  'HTTP-request-denied': 'this host is not allowed for web_fetch in this conversation (not among the allowed hosts)',
  'destination-IP-prohibited': 'the host resolves to a blocked network (e.g. a private or local address)',
  'DNS-error': 'the host name could not be resolved',
  'destination-not-found': 'the host was not found',
  'destination-unavailable': 'the host is unavailable',
  'connection-refused': 'the connection was refused',
  'connection-timeout': 'the connection timed out',
  'connection-terminated': 'the connection was closed early',
  'HTTP-response-timeout': 'the server did not answer in time',
  'TLS-certificate-error': 'the TLS certificate was not accepted',
  'HTTP-protocol-error': 'the server broke the HTTP protocol',
  'HTTP-response-body-size': 'the response body was larger than the sandbox allows',
};

/** The error-code tag of a thrown wasi:http error. */
function codeOf(e) {
  const p = e && typeof e === 'object' && 'payload' in e ? /** @type {any} */ (e).payload : e;
  if (p && typeof p === 'object' && 'tag' in p) return String(p.tag);
  return String(p);
}

/** A ToolError for a failed request. */
function failure(url, code) {
  return new ToolError(`GET ${url} failed: ${REASONS[code] ?? code} (${code})`, { url, code });
}

/**
 * GETs `url` (a URL object) once. Returns `{ status, headers, body, truncated }`, `headers`
 * lower-cased, `body` at most `maxBytes` bytes (`truncated` when more was sent).
 * @param {URL} url @param {Record<string, string>} headers @param {number} maxBytes
 */
export function get(url, headers, maxBytes) {
  const fields = Fields.fromList(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), enc.encode(v)]));
  const req = new OutgoingRequest(fields);
  req.setScheme(url.protocol === 'https:' ? { tag: 'HTTPS' } : { tag: 'HTTP' });
  req.setAuthority(url.host);
  req.setPathWithQuery(`${url.pathname}${url.search}`);
  let future;
  try {
    future = handle(req, undefined);
  } catch (e) {
    throw failure(url.href, codeOf(e));
  }
  let res;
  for (;;) {
    res = future.get();
    if (res !== undefined) break;
    future.subscribe().block();
  }
  if (res.tag !== 'ok') throw failure(url.href, 'internal');
  if (res.val.tag === 'err') throw failure(url.href, codeOf(res.val.val));
  const response = res.val.val;
  /** @type {Record<string, string>} */
  const out = {};
  const dec = new TextDecoder();
  for (const [name, value] of response.headers().entries()) {
    const k = name.toLowerCase();
    out[k] = out[k] === undefined ? dec.decode(value) : `${out[k]}, ${dec.decode(value)}`;
  }
  const status = response.status();
  const parts = [];
  let total = 0;
  let truncated = false;
  const body = response.consume();
  const stream = body.stream();
  try {
    for (;;) {
      let chunk;
      try {
        chunk = stream.blockingRead(65536n);
      } catch (e) {
        const tag = codeOf(e);
        if (tag === 'closed') break;
        throw failure(url.href, `body read failed (${tag})`);
      }
      if (total + chunk.length > maxBytes) {
        parts.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      parts.push(chunk);
      total += chunk.length;
    }
  } finally {
    stream[Symbol.dispose]?.();
  }
  return { status, headers: out, body: concat(parts, total), truncated };
}
