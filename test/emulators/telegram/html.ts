// Telegram's HTML parse mode as the Bot API applies it: tags become entities over the plain
// text, entities are decoded, and anything it cannot parse is refused with the API's
// "can't parse entities" description (https://core.telegram.org/bots/api#html-style).

/** A MessageEntity as the Bot API returns it (offsets in UTF-16 code units). */
export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
  user?: { id: number; is_bot: boolean; first_name: string };
}

/** The parse result: plain text and entities, or the reason Telegram would give. */
export type HtmlParse = { ok: true; text: string; entities: MessageEntity[] } | { ok: false; error: string };

const TAGS: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  span: 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  'tg-emoji': 'custom_emoji',
};

interface Open {
  tag: string;
  type: string;
  start: number;
  url?: string;
  language?: string;
}

/** Parses Telegram HTML. */
export function parseTelegramHtml(html: string): HtmlParse {
  let text = '';
  const entities: MessageEntity[] = [];
  const stack: Open[] = [];
  const bytesBefore = (i: number): number => Buffer.byteLength(html.slice(0, i));
  let i = 0;
  while (i < html.length) {
    const c = html[i]!;
    if (c === '&') {
      const m = /^&(lt|gt|amp|quot|#\d{1,7}|#x[0-9a-fA-F]{1,6});/.exec(html.slice(i, i + 12));
      if (m) {
        const name = m[1]!;
        text +=
          name === 'lt'
            ? '<'
            : name === 'gt'
              ? '>'
              : name === 'amp'
                ? '&'
                : name === 'quot'
                  ? '"'
                  : String.fromCodePoint(name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
        i += m[0].length;
      } else {
        text += '&';
        i++;
      }
      continue;
    }
    if (c !== '<') {
      text += c;
      i++;
      continue;
    }
    const end = html.indexOf('>', i);
    if (end < 0) return fail(`Can't find end of the tag at byte offset ${bytesBefore(i)}`);
    const raw = html.slice(i + 1, end);
    if (raw.startsWith('/')) {
      const name = raw.slice(1).trim().toLowerCase();
      const top = stack.pop();
      if (!top) return fail(`Unexpected end tag at byte offset ${bytesBefore(i)}`);
      if (name !== top.tag)
        return fail(`Unmatched end tag at byte offset ${bytesBefore(i)}, expected "</${top.tag}>", found "</${name}>"`);
      // <pre><code class="language-x"> is one pre entity with a language.
      const parent = stack[stack.length - 1];
      if (top.tag === 'code' && parent?.tag === 'pre') {
        if (top.language !== undefined) parent.language = top.language;
      } else if (text.length > top.start) {
        entities.push({
          type: top.type,
          offset: top.start,
          length: text.length - top.start,
          ...(top.url !== undefined ? { url: top.url } : {}),
          ...(top.language !== undefined && top.type === 'pre' ? { language: top.language } : {}),
        });
      }
      i = end + 1;
      continue;
    }
    const m = /^([a-zA-Z][a-zA-Z0-9-]*)(\s[\s\S]*)?$/.exec(raw);
    const name = m?.[1]?.toLowerCase() ?? '';
    const type = TAGS[name];
    if (!m || !type) return fail(`Unsupported start tag "${name}" at byte offset ${bytesBefore(i)}`);
    const attrs = parseAttrs(m[2] ?? '');
    const open: Open = { tag: name, type, start: text.length };
    if (name === 'a') {
      const href = attrs.href;
      if (!href) return fail(`Can't find href attribute of the "a" tag at byte offset ${bytesBefore(i)}`);
      open.url = href;
    }
    if (name === 'span' && attrs.class !== 'tg-spoiler')
      return fail(`Tag "span" must have class "tg-spoiler" at byte offset ${bytesBefore(i)}`);
    if (name === 'code' && attrs.class?.startsWith('language-')) open.language = attrs.class.slice('language-'.length);
    if (name === 'blockquote' && stack.some((s) => s.tag === 'blockquote'))
      return fail(`Blockquote entities can't be nested at byte offset ${bytesBefore(i)}`);
    const codeInPre = name === 'code' && stack[stack.length - 1]?.tag === 'pre';
    if (stack.some((s) => s.tag === 'code') || (stack.some((s) => s.tag === 'pre') && !codeInPre)) {
      return fail(`Entities can't be nested in code or pre at byte offset ${bytesBefore(i)}`);
    }
    if (name === 'a' && stack.some((s) => s.tag === 'a'))
      return fail(`Links can't be nested at byte offset ${bytesBefore(i)}`);
    stack.push(open);
    i = end + 1;
  }
  const unclosed = stack.pop();
  if (unclosed) return fail(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  // UTF-16 offsets: JS string indices already count in code units.
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { ok: true, text, entities };
}

function fail(why: string): HtmlParse {
  return { ok: false, error: `Bad Request: can't parse entities: ${why}` };
}

function parseAttrs(src: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of src.matchAll(/([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

function decode(s: string): string {
  return s.replace(/&(lt|gt|amp|quot);/g, (_, n: string) =>
    n === 'lt' ? '<' : n === 'gt' ? '>' : n === 'amp' ? '&' : '"',
  );
}
