// @ts-check
// One HTTP request (GET, or POST with a body) through wasi:http/outgoing-handler, with the
// response body read up to a byte cap. No redirect is followed here: the caller decides, so
// every hop is a new request that the sandbox host checks against the allowed hosts and
// blocked networks again.
import { handle } from 'wasi:http/outgoing-handler@0.2.12';
import { Fields, OutgoingBody, OutgoingRequest } from 'wasi:http/types@0.2.12';
import { concat } from '../lib/bytes.js';
import { ToolError } from '../lib/cli.js';

const enc = new TextEncoder();

/** Why a request failed, by wasi:http error code. */
const REASONS = {
  'HTTP-request-denied': 'this host is not allowed in this conversation (not among the allowed hosts)',
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
function failure(url, code, method = 'GET') {
  return new ToolError(`${method} ${url} failed: ${REASONS[code] ?? code} (${code})`, { url, code });
}

/**
 * GETs `url` (a URL object) once. Returns `{ status, headers, body, truncated }`, `headers`
 * lower-cased, `body` at most `maxBytes` bytes (`truncated` when more was sent).
 * @param {URL} url @param {Record<string, string>} headers @param {number} maxBytes
 */
export function get(url, headers, maxBytes) {
  return request('GET', url, headers, undefined, maxBytes);
}

/** wasi:http's method variant by upper-case name; any other name is sent as `other`. */
const METHODS = {
  GET: 'get',
  HEAD: 'head',
  POST: 'post',
  PUT: 'put',
  DELETE: 'delete',
  CONNECT: 'connect',
  OPTIONS: 'options',
  TRACE: 'trace',
  PATCH: 'patch',
};

/**
 * Sends one request; `body` is written whole before the response is awaited. Same result as `get`.
 * @param {string} method @param {URL} url @param {Record<string, string>} headers
 * @param {Uint8Array | undefined} body @param {number} maxBytes
 */
export function request(method, url, headers, body, maxBytes) {
  const all = body ? { ...headers, 'content-length': String(body.length) } : headers;
  const req = new OutgoingRequest(fieldsOf(all, url.href, method));
  const tag = METHODS[method.toUpperCase()];
  if (tag !== 'get') req.setMethod(tag ? { tag } : { tag: 'other', val: method });
  req.setScheme(url.protocol === 'https:' ? { tag: 'HTTPS' } : { tag: 'HTTP' });
  req.setAuthority(url.host);
  req.setPathWithQuery(`${url.pathname}${url.search}`);
  // The body is written before the request is handed over: the host sends what was written by then.
  if (body) writeBody(req.body(), body, url.href, method);
  let future;
  try {
    future = handle(req, undefined);
  } catch (e) {
    throw failure(url.href, codeOf(e), method);
  }
  let res;
  for (;;) {
    res = future.get();
    if (res !== undefined) break;
    future.subscribe().block();
  }
  if (res.tag !== 'ok') throw failure(url.href, 'internal', method);
  if (res.val.tag === 'err') throw failure(url.href, codeOf(res.val.val), method);
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
  const incoming = response.consume();
  const stream = incoming.stream();
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

/** The request's headers as wasi:http fields; a header the host refuses (host, connection, a bad name) is named. */
function fieldsOf(headers, url, method) {
  const pairs = Object.entries(headers).map(([k, v]) => [k.toLowerCase(), enc.encode(v)]);
  try {
    return Fields.fromList(pairs);
  } catch (e) {
    const bad = pairs.find((p) => {
      try {
        Fields.fromList([p]);
        return false;
      } catch {
        return true;
      }
    });
    const which = bad ? `the header ${JSON.stringify(bad[0])} is` : 'the headers are';
    throw new ToolError(`${method} ${url} failed: ${which} not allowed (${codeOf(e)})`, { url, code: codeOf(e) });
  }
}

/** Writes `bytes` to an outgoing body in chunks of at most 4096 bytes (what WASI guarantees), then finishes it. */
function writeBody(outgoing, bytes, url, method) {
  const stream = outgoing.write();
  try {
    for (let at = 0; at < bytes.length; at += 4096) stream.blockingWriteAndFlush(bytes.subarray(at, at + 4096));
  } catch (e) {
    throw failure(url, `body write failed (${codeOf(e)})`, method);
  } finally {
    stream[Symbol.dispose]?.();
  }
  OutgoingBody.finish(outgoing, undefined);
}
