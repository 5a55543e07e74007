// Markdown (as models write it) → Telegram's HTML parse mode. Pure. Every construct emits
// balanced tags around escaped text, so half-written answers (streamed edits) still parse;
// unmatched markers stay literal. Telegram HTML: https://core.telegram.org/bots/api#html-style

import { layoutMarkdownTable, readMarkdownTable } from '../markdown-table.ts';

/** Escapes text for Telegram HTML (`&`, `<`, `>`; `"` too, so it is safe in attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;

/**
 * Renders Markdown as Telegram HTML: bold, italic, strike, inline code, fenced code with language,
 * links, headings, quotes, bullets, and tables (Telegram has none) as aligned columns in `<pre>`.
 */
export function markdownToTelegramHtml(markdown: string): string {
  // An answer is rendered to measure it (the chunking) and again to send it: the last one is kept.
  if (markdown === lastRendered.markdown) return lastRendered.html;
  const html = renderHtml(markdown);
  if (markdown.length <= REMEMBER_MAX) lastRendered = { markdown, html };
  return html;
}

/** Longest Markdown whose rendering is kept for the next call (the memo holds one answer, not a book). */
const REMEMBER_MAX = 16 * 1024;
let lastRendered = { markdown: '', html: '' };

function renderHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const lang = fence[2] ?? '';
      const body: string[] = [];
      let j = i + 1;
      // An unclosed fence runs to the end (a streamed answer whose block is still open).
      while (j < lines.length && !isClosingFence(lines[j]!, marker)) body.push(lines[j++]!);
      const code = escapeHtml(body.join('\n'));
      out.push(
        LANG.test(lang) ? `<pre><code class="language-${escapeHtml(lang)}">${code}</code></pre>` : `<pre>${code}</pre>`,
      );
      i = j;
      continue;
    }
    const table = readMarkdownTable(lines, i);
    if (table) {
      out.push(`<pre>${escapeHtml(layoutMarkdownTable(table))}</pre>`);
      i = table.end - 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) quoted.push(inline(QUOTE.exec(lines[i++]!)![1]!));
      i--;
      out.push(`<blockquote>${quoted.join('\n')}</blockquote>`);
      continue;
    }
    if (RULE.test(line)) {
      out.push('──────────');
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push(`<b>${inline(heading[1]!)}</b>`);
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      out.push(`${bullet[1]!}• ${inline(bullet[2]!)}`);
      continue;
    }
    out.push(inline(line));
  }
  return out.join('\n');
}

function isClosingFence(line: string, marker: string): boolean {
  const t = line.trim();
  return t.length >= marker.length && t[0] === marker[0] && /^(`+|~+)$/.test(t);
}

const PUNCT = /[!-/:-@[-`{-~]/;
const SPACE = /\s/;
const WORD = /[\p{L}\p{N}]/u;
const SAFE_URL = /^(https?:\/\/|tg:\/\/|mailto:)[^\s<>"]+$/i;

/** Inline Markdown of one line → HTML. `inLink` forbids nested links (Telegram rejects them). */
function inline(src: string, inLink = false): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\' && i + 1 < src.length && PUNCT.test(src[i + 1]!)) {
      out += escapeHtml(src[i + 1]!);
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = runLength(src, i, '`');
      const end = findCodeEnd(src, i + run, run);
      if (end >= 0) {
        let code = src.slice(i + run, end);
        if (code.length > 1 && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
        out += `<code>${escapeHtml(code)}</code>`;
        i = end + run;
      } else {
        out += src.slice(i, i + run);
        i += run;
      }
      continue;
    }
    if (c === '[' && !inLink) {
      const link = parseLink(src, i);
      if (link) {
        out += `<a href="${escapeHtml(link.url)}">${inline(link.label, true)}</a>`;
        i = link.end;
        continue;
      }
    }
    if (c === '<' && !inLink) {
      const close = src.indexOf('>', i);
      const url = close > i ? src.slice(i + 1, close) : '';
      if (SAFE_URL.test(url)) {
        out += `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;
        i = close + 1;
        continue;
      }
    }
    if (c === '*' || c === '_' || c === '~') {
      const span = parseEmphasis(src, i);
      if (span) {
        out += `<${span.tag}>${inline(span.content, inLink)}</${span.tag}>`;
        i = span.end;
        continue;
      }
      // An unmatched run stays literal as a whole (so `**` never half-opens later).
      const run = runLength(src, i, c);
      out += src.slice(i, i + run);
      i += run;
      continue;
    }
    out += escapeHtml(c);
    i++;
  }
  return out;
}

function runLength(src: string, at: number, ch: string): number {
  let n = 0;
  while (src[at + n] === ch) n++;
  return n;
}

/** Index of the closing backtick run of exactly `run` backticks, or -1. */
function findCodeEnd(src: string, from: number, run: number): number {
  let j = from;
  while (j < src.length) {
    const k = src.indexOf('`', j);
    if (k < 0) return -1;
    const n = runLength(src, k, '`');
    if (n === run) return k;
    j = k + n;
  }
  return -1;
}

// How far a link's label and URL are looked for. Every `[` starts a search, so without a bound a
// line of ten thousand `[` took a second to render (and a hundred thousand, minutes).
const MAX_LABEL = 500;
const MAX_URL = 2_048;

function parseLink(src: string, at: number): { label: string; url: string; end: number } | undefined {
  let depth = 0;
  let j = at;
  const labelEnd = Math.min(src.length, at + MAX_LABEL);
  for (; j < labelEnd; j++) {
    const ch = src[j];
    if (ch === '\\') j++;
    else if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) break;
  }
  if (j >= labelEnd || src[j + 1] !== '(') return undefined;
  let k = j + 2;
  let parens = 1;
  const urlEnd = Math.min(src.length, k + MAX_URL);
  for (; k < urlEnd; k++) {
    const ch = src[k];
    if (ch === '(') parens++;
    else if (ch === ')' && --parens === 0) break;
  }
  if (k >= urlEnd) return undefined;
  const label = src.slice(at + 1, j);
  const url = src
    .slice(j + 2, k)
    .trim()
    .replace(/\s+"[^"]*"$/, '');
  if (!label || !SAFE_URL.test(url)) return undefined;
  return { label, url, end: k + 1 };
}

// How far an emphasis closer is looked for. Every `*`, `_` or `~~` without a closer started a scan to
// the end of the line: a 4,096-character chunk of `](> *` took 50 ms to render, measured ~20 times
// per answer by the chunker, and a 300,000-character line minutes.
const MAX_SPAN = 1_000;

/** `**b**`/`__b__` → b, `*i*`/`_i_` → i, `~~s~~` → s, when a valid closer exists within MAX_SPAN. */
function parseEmphasis(src: string, at: number): { tag: 'b' | 'i' | 's'; content: string; end: number } | undefined {
  const ch = src[at]!;
  const run = runLength(src, at, ch);
  const width = ch === '~' ? (run >= 2 ? 2 : 0) : run >= 2 ? 2 : 1;
  if (width === 0) return undefined;
  const tag = ch === '~' ? 's' : width === 2 ? 'b' : 'i';
  const open = at + width;
  const next = src[open];
  if (next === undefined || SPACE.test(next)) return undefined;
  if (ch === '_' && at > 0 && WORD.test(src[at - 1]!)) return undefined; // snake_case stays literal
  let j = open;
  const stop = Math.min(src.length, open + MAX_SPAN);
  while (j < stop) {
    const c = src[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === '`') {
      const n = runLength(src, j, '`');
      const end = findCodeEnd(src, j + n, n);
      j = end >= 0 ? end + n : j + n;
      continue;
    }
    if (c !== ch) {
      j++;
      continue;
    }
    const n = runLength(src, j, ch);
    // In a run longer than the delimiter (`***` = inner `**` + our `*`), close with its last chars.
    const close = n > width ? j + n - width : j;
    const usable = width === 1 ? n === 1 || n === 3 : n >= 2;
    const before = src[close - 1]!;
    const after = src[close + width];
    const closes =
      usable && close > open && !SPACE.test(before) && !(ch === '_' && after !== undefined && WORD.test(after));
    if (closes) return { tag, content: src.slice(open, close), end: close + width };
    j += n;
  }
  return undefined;
}

/**
 * How long `markdown` is for Telegram's limit: the text left after the HTML is parsed into
 * entities (tags gone, escapes decoded), in UTF-16 units as Telegram counts; 0 when nothing but
 * whitespace is left (Telegram refuses that as empty). Rules render longer than their Markdown;
 * markup renders shorter.
 */
export function telegramRenderedLength(markdown: string): number {
  const text = markdownToTelegramHtml(markdown)
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|quot|amp);/g, (_, e: string) => (e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : '&'));
  return text.trim() ? text.length : 0;
}
