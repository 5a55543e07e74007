// Markdown (what the model writes) → Slack mrkdwn, and the escaping Slack requires of every
// text: `&`, `<` and `>` are control characters in Slack messages and must be sent as entities.
// Pure functions; no I/O.

import { hasMarkdownTable, layoutMarkdownTable, readMarkdownTable } from '../markdown-table.ts';

/** Escapes Slack's three control characters (`&`, `<`, `>`); everything else is sent as is. */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Undoes escapeSlackText (Slack delivers user text escaped). */
export function unescapeSlackText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

// Placeholders survive escaping and the inline passes untouched: \u0000<n>\u0000.
const HOLD = '\u0000';
const BOLD = '\u0001';

/**
 * Renders Markdown as Slack mrkdwn: `**b**` → `*b*`, `*i*`/`_i_` → `_i_`, `~~s~~` → `~s~`,
 * `[t](u)` → `<u|t>`, headings → bold lines, `-`/`*` bullets → `•`, fenced code → ``` blocks
 * (language dropped), inline code kept, `>` quotes kept as quotes, tables laid out in a ``` block; all
 * other text escaped.
 * @example toSlackMrkdwn('**Done**: see [docs](https://x.io)') // '*Done*: see <https://x.io|docs>'
 */
export function toSlackMrkdwn(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let prose: string[] = [];
  const flush = (): void => {
    if (prose.length > 0) out.push(renderProse(prose.join('\n')));
    prose = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*(```+|~~~+)/.exec(lines[i]!);
    const table = fence ? undefined : readMarkdownTable(lines, i);
    if (table) {
      // mrkdwn has no tables: the fallback text shows one aligned in monospace.
      flush();
      out.push(`\`\`\`\n${escapeSlackText(layoutMarkdownTable(table))}\n\`\`\``);
      i = table.end - 1;
      continue;
    }
    if (!fence) {
      prose.push(lines[i]!);
      continue;
    }
    const closer = fence[1]!;
    const code: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(closer)) code.push(lines[j++]!);
    flush();
    // An unclosed fence runs to the end (as Markdown renders it).
    out.push(`\`\`\`\n${escapeSlackText(code.join('\n'))}\n\`\`\``);
    i = j;
  }
  flush();
  return out.join('\n');
}

function renderProse(text: string): string {
  const held: string[] = [];
  const hold = (s: string): string => `${HOLD}${held.push(s) - 1}${HOLD}`;

  // Inline code first: its content is escaped but never formatted.
  let s = text.replace(/(`+)([^`\n]|[^`\n][\s\S]*?[^`\n])\1(?!`)/g, (_m, _ticks: string, code: string) =>
    hold(`\`${escapeSlackText(code)}\``),
  );
  // Links and images: the URL must not be touched by the emphasis passes.
  // Label and URL lengths are bounded: a `[` that opens nothing made the pattern scan to the end of the
  // line from every `[`, so a long run of them took seconds.
  s = s.replace(
    /!?\[([^\]\n]{0,500})\]\(\s*<?([^)\s>]{1,2048})>?(?:\s+"[^"]*")?\s*\)/g,
    (_m, label: string, url: string) =>
      hold(label.trim() ? `<${linkUrl(url)}|${escapeSlackText(label.replace(/\|/g, '∣'))}>` : `<${linkUrl(url)}>`),
  );
  s = s.replace(/<((?:https?|mailto):[^\s>]+)>/g, (_m, url: string) => hold(`<${linkUrl(url)}>`));
  s = escapeSlackText(s);

  s = s
    .split('\n')
    .map((escaped) => {
      // A quote marker was escaped with the rest, but mrkdwn only quotes a literal `>` at line
      // start (`&gt;` shows as a `>` character). Nested markers collapse: Slack has one level.
      const quote = /^\s{0,3}(?:&gt;[ \t]?)+/.exec(escaped);
      const line = quote ? escaped.slice(quote[0].length) : escaped;
      const lead = quote ? '> ' : '';
      const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (heading) return heading[1] ? `${lead}${BOLD}${stripBold(heading[1])}${BOLD}` : lead.trimEnd();
      if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return `${lead}──────────`;
      return (lead + line.replace(/^(\s*)[-*+]\s+(?=\S)/, '$1• ')).replace(/^> $/, '>');
    })
    .join('\n');

  s = boldSpans(s, (inner) => `${BOLD}${stripBold(inner)}${BOLD}`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1_$2_')
    .replace(/~~(?=\S)([^~\n]*?\S)~~/g, '~$1~')
    .replace(new RegExp(BOLD, 'g'), '*');
  return s.replace(new RegExp(`${HOLD}(\\d+)${HOLD}`, 'g'), (_m, n: string) => held[Number(n)] ?? '');
}

/**
 * Replaces each `**b**` or `__b__` span as `/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g` would, in linear time: that
 * pattern scans to the end of the text from every opener without a closer (seconds for a
 * 40,000-character message of `__x  `), so the nearest closer of each kind is found once, from the end.
 */
function boldSpans(s: string, replace: (inner: string) => string): string {
  // closer[d][i]: the first j >= i where delimiter d starts after a non-space character, or -1.
  const closer = ['**', '__'].map((d) => {
    const next = new Int32Array(s.length + 2).fill(-1);
    for (let j = s.length - 1; j >= 0; j--)
      next[j] = s.startsWith(d, j) && j > 0 && /\S/.test(s[j - 1]!) ? j : next[j + 1]!;
    return next;
  });
  let out = '';
  let i = 0;
  while (i < s.length) {
    const d = s.startsWith('**', i) ? 0 : s.startsWith('__', i) ? 1 : -1;
    const end = d >= 0 && i + 3 <= s.length && /\S/.test(s[i + 2]!) ? closer[d]![i + 3]! : -1;
    if (end < 0) {
      out += s[i];
      i++;
      continue;
    }
    out += replace(s.slice(i + 2, end));
    i = end + 2;
  }
  return out;
}

// Nested `**` inside a heading or bold span would close Slack's bold early.
function stripBold(s: string): string {
  return s.replace(/\*\*|__/g, '');
}

// Inside <url|label>, `|` and `>` end the URL; percent-encode them (and escape &).
function linkUrl(url: string): string {
  return url.replace(/&/g, '&amp;').replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/</g, '%3C');
}

/** Block Kit's `markdown` block (MarkdownBlock in @slack/types, which web-api's arguments accept). */
export interface SlackMarkdownBlock {
  type: 'markdown';
  text: string;
}

/** Slack's limit on the text of the markdown blocks in one message. */
export const SLACK_MARKDOWN_BLOCK_LIMIT = 12_000;

/**
 * The blocks to send with a Markdown answer: one `markdown` block (Slack renders standard
 * Markdown there, tables included) when the answer has a table mrkdwn cannot show and fits the
 * block's limit; otherwise none, and the mrkdwn text (its tables in ``` blocks) is the message.
 * @example slackMarkdownBlocks('| a | b |\n|---|---|\n| 1 | 2 |') // [{ type: 'markdown', text: '| a | b |…' }]
 */
export function slackMarkdownBlocks(markdown: string): SlackMarkdownBlock[] | undefined {
  if (markdown.length > SLACK_MARKDOWN_BLOCK_LIMIT || !hasMarkdownTable(markdown)) return undefined;
  return [{ type: 'markdown', text: markdown }];
}
