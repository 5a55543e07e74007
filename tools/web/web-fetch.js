// @ts-check
// `web_fetch`: GET a URL and return it as Markdown, text or raw HTML. Redirects are followed
// here, at most --max-redirects times, each hop a new request the sandbox checks again;
// bodies are capped in bytes and the converted content is paged in characters.

import { looksBinary } from '../lib/bytes.js';
import { ToolError } from '../lib/cli.js';
import { charsetOf, decodeBody, htmlToMarkdown, htmlToText, titleOf } from './convert.js';
import { get } from './http.js';

const HARD_MAX_BYTES = 20 * 1024 * 1024;
const HARD_MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const spec = {
  name: 'web_fetch',
  version: '0.1.0',
  about: 'Fetch a web page or other URL and return it as Markdown or text',
  long: `GETs --url (http or https) and returns the response: HTML converted to Markdown (default),
to plain text, or left as HTML; JSON, plain text and other text types are returned as they
are; binary types (images, PDFs, archives) are refused. Only hosts this conversation allows
can be reached, and private or local networks are normally blocked; a refused host is
reported as an error. Redirects are followed up to --max-redirects hops, each checked again.

The body is read up to --max-bytes; the converted content is returned in pages of --limit
characters starting at --offset: the metadata (totalChars, shownFrom, shownTo) says whether
more follows, and the next page starts at --offset = shownTo. Metadata also gives the final
URL, HTTP status, content type and page title. A status of 400 or more is an error result
that still includes the body.`,
  keywords: ['web', 'fetch', 'http', 'https', 'url', 'download', 'page', 'html', 'markdown', 'browse', 'internet'],
  permission: 'ReadOnly',
  network: ['*'],
  options: [
    { long: 'url', short: 'u', value: 'URL', required: true, help: 'The http:// or https:// URL to fetch' },
    {
      long: 'format',
      value: 'FORMAT',
      default: 'markdown',
      values: ['markdown', 'text', 'html'],
      help: 'How to return HTML pages',
    },
    {
      long: 'offset',
      value: 'OFFSET',
      type: 'number',
      default: '0',
      help: 'Character of the converted content to start at (for paging)',
    },
    {
      long: 'limit',
      value: 'LIMIT',
      type: 'number',
      default: '20000',
      help: 'Most characters of converted content to return',
    },
    {
      long: 'max-bytes',
      value: 'BYTES',
      type: 'number',
      default: String(5 * 1024 * 1024),
      help: `Most bytes of the response body to read (at most ${HARD_MAX_BYTES})`,
    },
    {
      long: 'max-redirects',
      value: 'MAX_REDIRECTS',
      type: 'number',
      default: '5',
      help: `Most redirects to follow (at most ${HARD_MAX_REDIRECTS})`,
    },
    {
      long: 'header',
      short: 'H',
      value: 'HEADER',
      multiple: true,
      help: 'An extra request header, "Name: value" (repeatable)',
    },
  ],
};

/** Parses and checks a URL. */
function parseUrl(raw, base) {
  let url;
  try {
    url = base ? new URL(raw, base) : new URL(raw);
  } catch {
    throw new ToolError(`not a valid URL: ${JSON.stringify(raw)}`, { url: raw });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolError(`only http and https URLs can be fetched, not ${url.protocol}`, { url: url.href });
  if (url.username || url.password)
    throw new ToolError('URLs with credentials are not fetched', { url: `${url.protocol}//${url.host}` });
  url.hash = '';
  return url;
}

/** A whole number in [min, max], or a ToolError naming the option. */
function bounded(name, v, min, max) {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ToolError(`--${name} must be a whole number from ${min} to ${max}, got ${v}`);
  return v;
}

/**
 * @param {{ url: string, format: 'markdown' | 'text' | 'html', offset: number, limit: number,
 *   max_bytes: number, max_redirects: number, header?: string[] }} v
 */
export function handler(v) {
  const maxBytes = bounded('max-bytes', v.max_bytes, 1, HARD_MAX_BYTES);
  const maxRedirects = bounded('max-redirects', v.max_redirects, 0, HARD_MAX_REDIRECTS);
  bounded('offset', v.offset, 0, Number.MAX_SAFE_INTEGER);
  bounded('limit', v.limit, 1, Number.MAX_SAFE_INTEGER);
  /** @type {Record<string, string>} */
  const headers = {
    'user-agent': 'boxbot-web_fetch/0.1',
    accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
  };
  for (const h of v.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new ToolError(`--header must look like "Name: value", got ${JSON.stringify(h)}`);
    const name = h.slice(0, i).trim().toLowerCase();
    if (['host', 'content-length', 'transfer-encoding', 'connection'].includes(name))
      throw new ToolError(`the ${name} header is set by the sandbox`);
    headers[name] = h.slice(i + 1).trim();
  }

  let url = parseUrl(v.url);
  const hops = [];
  let res;
  for (;;) {
    res = get(url, headers, maxBytes);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location) break;
    if (hops.length >= maxRedirects) {
      throw new ToolError(
        `too many redirects: stopped after ${maxRedirects} (last one to ${new URL(location, url).href})`,
        { url: v.url, redirects: hops },
      );
    }
    hops.push(url.href);
    url = parseUrl(location, url);
  }

  const contentType = res.headers['content-type'] ?? '';
  const meta = {
    url: v.url,
    finalUrl: url.href,
    status: res.status,
    contentType,
    bytes: res.body.length,
    ...(res.truncated ? { bodyTruncated: true } : {}),
    ...(hops.length ? { redirects: hops.length } : {}),
  };
  const mime = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const textual =
    mime === '' || mime.startsWith('text/') || /json|xml|javascript|ecmascript|yaml|toml|csv|markdown|x-sh/.test(mime);
  if (!textual || looksBinary(res.body)) {
    throw new ToolError(
      `${url.href} returned binary content (${mime || 'unknown type'}, ${res.body.length} bytes), which web_fetch ` +
        `does not show`,
      meta,
    );
  }
  const body = decodeBody(res.body, charsetOf(contentType, res.body));
  const isHtml = /html/.test(mime) || (mime === '' && /^\s*<(!doctype html|html)/i.test(body));
  let converted = body;
  let title;
  if (isHtml) {
    title = titleOf(body);
    if (v.format === 'markdown') converted = htmlToMarkdown(body);
    else if (v.format === 'text') converted = htmlToText(body);
    if (title && v.format !== 'html') converted = `Title: ${title}\n\n${converted}`;
  }
  const shownTo = Math.min(converted.length, v.offset + v.limit);
  let content = converted.slice(v.offset, shownTo);
  if (v.offset > 0 && v.offset >= converted.length)
    content = `(offset ${v.offset} is past the end: the content has ${converted.length} characters)`;
  if (shownTo < converted.length)
    content +=
      `\n\n[content cut at character ${shownTo} of ${converted.length}; fetch again with ` +
      `--offset ${shownTo} for more]`;
  if (res.truncated) content += `\n\n[the body was cut at ${maxBytes} bytes]`;
  const metadata = {
    ...meta,
    ...(title ? { title } : {}),
    format: isHtml ? v.format : 'raw',
    totalChars: converted.length,
    shownFrom: v.offset,
    shownTo,
  };
  if (res.status >= 400) throw new ToolError(`HTTP ${res.status} from ${url.href}\n\n${content}`, metadata);
  return { content, metadata };
}
