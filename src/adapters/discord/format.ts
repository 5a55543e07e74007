// Markdown (what the model writes) → Discord markdown. Mostly the same language, so most text
// passes through; this fixes what Discord reads differently (`__x__` is underline there, `||`
// a spoiler, `-# ` small text, `>>>` quotes everything after) and what it lacks (tables,
// headings below ###, images, rules, `~~~` fences). Code is never touched.

/** Renders model Markdown as Discord message markdown. */
export function toDiscordMarkdown(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fence: { char: string; len: number } | undefined;
  let paragraph = false; // the last line written was paragraph text (a setext underline may follow)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      const close = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.len) {
        out.push('```');
        fence = undefined;
      } else {
        out.push(line);
      }
      continue;
    }
    const open = /^\s{0,3}(`{3,}|~{3,})\s*([^`\s]*)/.exec(line);
    if (open) {
      fence = { char: open[1]![0]!, len: open[1]!.length };
      out.push(`\`\`\`${open[2]}`);
      paragraph = false;
      continue;
    }
    const table = readTable(lines, i);
    if (table) {
      out.push('```', ...renderTable(table.rows, table.align), '```');
      i = table.end - 1;
      paragraph = false;
      continue;
    }
    const setext = /^\s{0,3}(=+|-+)\s*$/.exec(line);
    if (setext && paragraph) {
      out[out.length - 1] = `${setext[1]![0] === '=' ? '#' : '##'} ${out.at(-1)!.trim()}`;
      paragraph = false;
      continue;
    }
    out.push(block(line));
    paragraph = line.trim() !== '' && !/^\s{0,3}(#|>|[-*+]\s|\d+[.)]\s)/.test(line) && !RULE.test(line);
  }
  if (fence) out.push('```');
  return out.join('\n');
}

const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;

// One line outside code: block-level fixes, then inline fixes outside code spans.
function block(line: string): string {
  if (RULE.test(line)) return '───────────';
  const heading = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
  if (heading) {
    const text = inline(heading[2]!);
    return heading[1]!.length <= 3 ? `${heading[1]} ${text}` : `**${text}**`;
  }
  const quote = /^\s{0,3}((?:>\s?)+)(.*)$/.exec(line);
  if (quote) return `> ${inline(quote[2]!)}`;
  const task = /^(\s*[-*+]\s+)\[([ xX])\]\s+(.*)$/.exec(line);
  if (task) return `${task[1]}${task[2] === ' ' ? '☐' : '☑'} ${inline(task[3]!)}`;
  return inline(line).replace(/^(\s*)-#(\s)/, '$1\\-#$2');
}

// Inline fixes, applied only between code spans (`code` stays byte-for-byte).
function inline(text: string): string {
  const parts = text.split(/(`+[^`]*?`+)/);
  return parts
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/!\[([^\]]*)\]\((\S+?)(?:\s+"[^"]*")?\)/g, (_m, alt: string, url: string) =>
              alt ? `[${alt}](${url})` : url,
            )
            .replace(/<br\s*\/?>/gi, '\n')
            .replace(/(^|[^\w\\])__(?=\S)(.+?)(?<=\S)__(?![\w])/g, '$1**$2**')
            .replace(/\|\|/g, '\\|\\|'),
    )
    .join('');
}

type Align = 'left' | 'right' | 'center';

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) =>
    c
      .trim()
      .replace(/\\\|/g, '|')
      .replace(/\*\*(.+?)\*\*|__(.+?)__/g, '$1$2')
      .replace(/`([^`]*)`/g, '$1'),
  );
}

// A GFM table starting at `start`: a header row, a delimiter row, then rows containing `|`.
function readTable(lines: string[], start: number): { rows: string[][]; align: Align[]; end: number } | undefined {
  const header = lines[start]!;
  const delim = lines[start + 1];
  if (!header.includes('|') || delim === undefined) return undefined;
  if (!/^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(delim) || !delim.includes('|')) return undefined;
  const align = splitRow(delim).map(
    (c): Align => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : 'left'),
  );
  const rows = [splitRow(header)];
  let end = start + 2;
  while (end < lines.length && lines[end]!.includes('|') && lines[end]!.trim() !== '')
    rows.push(splitRow(lines[end++]!));
  return { rows, align, end };
}

const width = (s: string): number => [...s].length;

function pad(s: string, w: number, align: Align): string {
  const gap = w - width(s);
  if (gap <= 0) return s;
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(Math.ceil(gap / 2));
  return s + ' '.repeat(gap);
}

function renderTable(rows: string[][], align: Align[]): string[] {
  const cols = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, c) => Math.max(1, ...rows.map((r) => width(r[c] ?? ''))));
  const render = (r: string[]) =>
    widths
      .map((w, c) => pad(r[c] ?? '', w, align[c] ?? 'left'))
      .join(' | ')
      .trimEnd();
  return [render(rows[0]!), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.slice(1).map(render)];
}
