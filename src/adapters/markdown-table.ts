// GFM tables in the Markdown a model writes, found line by line and laid out as aligned plain
// text, for platforms whose markup has no tables (Telegram, Slack mrkdwn). Pure; no escaping:
// each adapter escapes the laid-out text for its own markup.

const DELIMITER_CELL = /^:?-+:?$/;

/** A table read from Markdown lines: its rows (header first) and the index of the line after it. */
export interface MarkdownTable {
  rows: string[][];
  align: ('left' | 'right' | 'center')[];
  end: number;
}

/** Splits a table row into trimmed cells; `\|` is a literal pipe, outer pipes are optional. */
function cells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const out: string[] = [];
  let cell = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (s[i] === '|') {
      out.push(cell.trim());
      cell = '';
    } else cell += s[i];
  }
  out.push(cell.trim());
  return out;
}

/**
 * Reads the GFM table starting at `lines[i]` (a header row with pipes, then a delimiter row such
 * as `|---|:--:|` with as many cells), or undefined when none starts there. The body runs to the
 * first blank line or line without a pipe.
 * @example readMarkdownTable(['| a | b |', '|---|--:|', '| 1 | 2 |'], 0)?.rows // [['a','b'],['1','2']]
 */
export function readMarkdownTable(lines: readonly string[], i: number): MarkdownTable | undefined {
  const header = lines[i];
  const delimiter = lines[i + 1];
  if (header === undefined || delimiter === undefined || !header.includes('|') || !delimiter.includes('|'))
    return undefined;
  const heads = cells(header);
  const delims = cells(delimiter);
  if (delims.length !== heads.length || !delims.every((d) => DELIMITER_CELL.test(d))) return undefined;
  const align = delims.map((d): MarkdownTable['align'][number] =>
    d.endsWith(':') ? (d.startsWith(':') ? 'center' : 'right') : 'left',
  );
  const rows = [heads];
  let j = i + 2;
  for (; j < lines.length && lines[j]!.trim() !== '' && lines[j]!.includes('|'); j++) {
    // GFM pads short rows and drops extra cells, so every row has the header's width.
    const row = cells(lines[j]!).slice(0, heads.length);
    while (row.length < heads.length) row.push('');
    rows.push(row);
  }
  return { rows, align, end: j };
}

// Inline markers would show literally in monospace text: keep the words, drop the markers.
function plainCell(cell: string): string {
  return cell
    .replace(/!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?[^)]*\)/g, (_m, label: string, url: string) =>
      label.trim() ? `${label} (${url})` : url,
    )
    .replace(/\*\*|__|~~|`/g, '');
}

/**
 * Lays a table out as monospace lines: columns padded to their widest cell (code points) and
 * aligned as the delimiter row says, a rule under the header, columns separated by ` | `.
 * @example layoutMarkdownTable(readMarkdownTable(['a|bb', '-|-', '1|2'], 0)!) // 'a | bb\n--+---\n1 | 2'
 */
export function layoutMarkdownTable(table: MarkdownTable): string {
  const rows = table.rows.map((row) => row.map(plainCell));
  const width = (s: string): number => [...s].length;
  const widths = table.align.map((_a, c) => Math.max(1, ...rows.map((row) => width(row[c]!))));
  const pad = (s: string, c: number): string => {
    const gap = widths[c]! - width(s);
    const a = table.align[c];
    if (a === 'right') return ' '.repeat(gap) + s;
    if (a === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(Math.ceil(gap / 2));
    return s + ' '.repeat(gap);
  };
  const line = (row: string[]): string => row.map(pad).join(' | ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

/** True when `markdown` holds a GFM table outside fenced code. */
export function hasMarkdownTable(markdown: string): boolean {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const f = /^\s*(```+|~~~+)/.exec(lines[i]!);
    if (f) {
      if (fence === undefined) fence = f[1]!;
      else if (lines[i]!.trim().startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence === undefined && readMarkdownTable(lines, i)) return true;
  }
  return false;
}
