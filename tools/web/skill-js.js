// @ts-check
// `skill_js`: runs a skill's JavaScript file for `skill_run` (never offered to the model on its own:
// tool.json links no file to it). The script gets js_exec's engine plus what a skill script needs:
// file helpers over the mounts it was granted (/skill read-only, the workspace at /) and `fetch`
// over wasi:http, so every request, and every redirect hop, is checked by the sandbox host
// against the conversation's allowed hosts and blocked networks; nothing here decides that.

import { evaluate } from '../core/js-exec.js';
import { ToolError } from '../lib/cli.js';
import { decode, encode, mkdirp, normalize, readBytes, readDir, tryStat, writeBytes } from '../lib/wasi-fs.js';
import { request } from './http.js';

/** The most a script reads of one file, and of one response body. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;
const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;
const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const spec = {
  name: 'skill_js',
  version: '0.1.0',
  about: "Run a skill's JavaScript file with file helpers and fetch (what skill_run uses)",
  long: `Runs --script (a guest path, normally under /skill/scripts) as JavaScript, like js_exec,
with the script's arguments in the global \`args\` and these globals besides:
  readFile(path, encoding = 'utf8')  a file's text (encoding null: its bytes)
  writeFile(path, data)              writes text or bytes, creating parent folders
  listDir(path = '/')                [{ name, type }] of a folder
  exists(path)                       whether a path exists
  fetch(url, { method, headers, body })  an HTTP request; resolves to { status, ok, url,
                                     headers.get(name), text(), json(), bytes(), arrayBuffer() }
Paths are guest paths: the workspace is '/', the skill's folder is '/skill' (read-only). Only
hosts this conversation allows can be reached; a refused host rejects the fetch with the reason.`,
  keywords: ['skill', 'script', 'javascript'],
  permission: 'Execute',
  options: [{ long: 'script', value: 'PATH', required: true, help: 'The script file to run' }],
  args: [{ name: 'ARGS', multiple: true, help: 'Arguments for the script (the global `args`)' }],
};

/** `readFile`: a file's text, or its bytes with `encoding` null. */
function readFile(path, encoding = 'utf8') {
  const p = normalize(String(path));
  const { bytes, eof } = readBytes(p, MAX_FILE_BYTES);
  if (!eof) throw new ToolError(`read ${p}: larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`, { path: p });
  if (encoding === null) return bytes;
  if (encoding !== 'utf8' && encoding !== 'utf-8')
    throw new ToolError(`readFile: encoding ${JSON.stringify(encoding)} is not supported (utf8, or null for bytes)`);
  return decode(bytes);
}

/** `writeFile`: text or bytes, parent folders created. */
function writeFile(path, data) {
  const p = normalize(String(path));
  const bytes = typeof data === 'string' ? encode(data) : data instanceof Uint8Array ? data : undefined;
  if (!bytes) throw new ToolError(`writeFile ${p}: data must be a string or a Uint8Array`);
  mkdirp(normalize(`${p}/..`));
  writeBytes(p, bytes);
}

/** `listDir`: entries as `{ name, type }`, type being 'file', 'directory', 'symlink' or WASI's word. */
function listDir(path = '/') {
  const words = { 'regular-file': 'file', directory: 'directory', 'symbolic-link': 'symlink' };
  return readDir(normalize(String(path))).map((e) => ({ name: e.name, type: words[e.type] ?? e.type }));
}

/** Request headers as a plain lower-cased object, from an object, an array of pairs or a Headers-like value. */
function headersOf(h) {
  /** @type {Record<string, string>} */
  const out = {};
  if (!h) return out;
  const pairs = Array.isArray(h)
    ? h
    : typeof h.entries === 'function' && !(h.constructor === Object)
      ? [...h.entries()]
      : Object.entries(h);
  for (const [k, v] of pairs) out[String(k).toLowerCase()] = String(v);
  return out;
}

/** A request body as bytes. */
function bodyOf(body) {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('fetch: body must be a string, a Uint8Array or an ArrayBuffer');
}

/** The response a script sees: the Fetch API's common part. */
function responseOf(url, r) {
  return {
    status: r.status,
    ok: r.status >= 200 && r.status < 300,
    url,
    headers: { get: (name) => r.headers[String(name).toLowerCase()] ?? null, entries: () => Object.entries(r.headers) },
    text: async () => decode(r.body),
    json: async () => JSON.parse(decode(r.body)),
    bytes: async () => r.body,
    arrayBuffer: async () => r.body.slice().buffer,
  };
}

/** `fetch`: one request (redirects followed, each hop checked by the host again); rejects on a refused host. */
async function fetch(input, init = {}) {
  let url = new URL(String(input instanceof URL ? input.href : input));
  let method = String(init.method ?? 'GET').toUpperCase();
  let body = bodyOf(init.body);
  const headers = headersOf(init.headers);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`fetch ${url.href}: only http and https URLs can be fetched`);
    const r = request(method, url, headers, body, MAX_RESPONSE_BYTES);
    if (r.truncated)
      throw new ToolError(`fetch ${url.href}: the response is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB`);
    const location = r.headers.location;
    if (!REDIRECTS.has(r.status) || !location || init.redirect === 'manual') return responseOf(url.href, r);
    if (hop >= MAX_REDIRECTS) throw new ToolError(`fetch ${input}: more than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url);
    if (r.status === 303 || ((r.status === 301 || r.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
  }
}

/** @param {{ script: string, args?: string[] }} v */
export function handler(v) {
  const code = readFile(v.script);
  return evaluate(code, {
    args: Object.freeze([...(v.args ?? [])]),
    skillDir: '/skill',
    readFile,
    writeFile,
    listDir,
    exists: (path) => tryStat(normalize(String(path))) !== undefined,
    fetch,
  });
}
