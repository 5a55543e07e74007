// @ts-check
// A fetched body → what the model reads: HTML as Markdown (turndown over domino's DOM) or as
// plain text, other text types as they are; character sets decoded from the Content-Type.
import TurndownService from 'turndown';

/** Elements that carry no readable content. */
const NOISE = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'canvas',
  'object',
  'embed',
  'link',
  'meta',
  'title',
];
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
]);

/** The charset named by a Content-Type (or a <meta charset> early in an HTML body). */
export function charsetOf(contentType, bytes) {
  const m = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '');
  if (m) return /** @type {string} */ (m[1]).toLowerCase();
  if (/html/i.test(contentType ?? '')) {
    const head = String.fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(0, 2048)));
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
    if (meta) return /** @type {string} */ (meta[1]).toLowerCase();
  }
  return 'utf-8';
}

/** Decodes a body; single-byte Western charsets are mapped directly, unknown ones as UTF-8. */
export function decodeBody(bytes, charset) {
  if (/^(iso-8859-1|latin1|windows-1252|cp1252|us-ascii|ascii)$/.test(charset)) {
    let s = '';
    for (let i = 0; i < bytes.length; i += 8192)
      s += String.fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(i, i + 8192)));
    return s;
  }
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** The page title of an HTML string, if any. */
export function titleOf(html) {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  return m
    ? decodeEntities(/** @type {string} */ (m[1]))
        .replace(/\s+/g, ' ')
        .trim()
    : undefined;
}

function decodeEntities(s) {
  return s.replace(/&(#x?[0-9a-f]+|amp|lt|gt|quot|apos|nbsp);/gi, (all, e) => {
    const k = e.toLowerCase();
    if (k === 'amp') return '&';
    if (k === 'lt') return '<';
    if (k === 'gt') return '>';
    if (k === 'quot') return '"';
    if (k === 'apos') return "'";
    if (k === 'nbsp') return ' ';
    const code = k.startsWith('#x') ? parseInt(k.slice(2), 16) : parseInt(k.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : all;
  });
}

/** HTML → Markdown. */
export function htmlToMarkdown(html) {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
  });
  service.remove(/** @type {any} */ (NOISE));
  return service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** HTML → plain text: block elements on their own lines, whitespace collapsed. */
export function htmlToText(html) {
  const service = new TurndownService();
  service.remove(/** @type {any} */ (NOISE));
  // Render every element as its text, with line breaks around blocks.
  service.addRule('plain', {
    filter: (node) => !NOISE.includes(String(node.nodeName).toLowerCase()),
    replacement: (content, node) =>
      BLOCK.has(String(/** @type {any} */ (node).nodeName).toLowerCase()) ? `\n${content}\n` : content,
  });
  service.escape = (s) => s;
  return service
    .turndown(html)
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
