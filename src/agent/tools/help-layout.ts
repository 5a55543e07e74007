// Splits a program's help text into its parts: header paragraphs, metadata lines
// (Keywords/PermissionLevel/Network), the usage line(s) and named sections with their items.
// Knows the layouts of clap 4 (short and long help), Python's argparse and Go's cobra.

/** A section of the help (`Options:`, `positional arguments:`, `Available Commands:` ...). */
export interface HelpSection {
  title: string;
  kind: 'options' | 'arguments' | 'commands' | 'other';
  items: HelpItem[];
  /** Lines of a section that holds no items (e.g. `Examples:`). */
  text: string[];
}

/** One entry of a section: its left column and its description lines. */
export interface HelpItem {
  left: string;
  description: string[];
}

/** The layout of one help text. */
export interface HelpLayout {
  header: string[][];
  meta: Record<string, string>;
  usage: string[];
  sections: HelpSection[];
}

const SECTION_WORDS = new RegExp(
  '^(usage|options|arguments|commands|subcommands|flags|global flags|positional arguments|optional arguments|' +
    'available commands|additional commands)$',
  'i',
);
const META = /^(keywords|permissionlevel|permission level|network)\s*:\s*(.*)$/i;

/** Removes ANSI colour codes, carriage returns and tabs. */
export function cleanHelp(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '    ');
}

/** Whether `text` has any section a help text must have (`Usage:`/`Options:`/`Arguments:`/`Commands:`). */
export function looksLikeHelp(text: string): boolean {
  return text.split('\n').some((l) => {
    const m = /^\s{0,2}([A-Za-z][A-Za-z ]*?)\s*:/.exec(l);
    return !!m && SECTION_WORDS.test(m[1]!.trim());
  });
}

function sectionKind(title: string): HelpSection['kind'] {
  const t = title.toLowerCase();
  if (/command/.test(t)) return 'commands';
  if (/positional|^arguments$|^args$/.test(t)) return 'arguments';
  if (/option|flag/.test(t)) return 'options';
  return 'other';
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/** Whether a line starts an item of a section of `kind` (rather than continuing one). */
function startsItem(kind: HelpSection['kind'], line: string, itemIndent: number | undefined): boolean {
  const indent = indentOf(line);
  if (indent === 0 || indent > 8) return false;
  const t = line.trimStart();
  if (kind === 'options') return /^(-[A-Za-z0-9?@]|--[A-Za-z0-9])/.test(t);
  if (itemIndent !== undefined && indent > itemIndent) return false;
  if (kind === 'arguments') return /^(<[^>]+>|\[[^\]]+\]|[A-Za-z0-9_][\w.-]*|\{[^}]+\})/.test(t);
  if (kind === 'commands') return /^[A-Za-z0-9][\w.:-]*/.test(t);
  return false;
}

/** Splits `left  description` at the first gap of two or more spaces. */
function splitItem(line: string): HelpItem {
  const t = line.trim();
  const gap = /\s{2,}/.exec(t);
  if (!gap) return { left: t, description: [] };
  return { left: t.slice(0, gap.index), description: [t.slice(gap.index + gap[0].length)] };
}

/** Parses the layout; every line lands in exactly one part. */
export function layoutOf(raw: string): HelpLayout {
  const lines = cleanHelp(raw).split('\n');
  const header: string[][] = [[]];
  const meta: Record<string, string> = {};
  const usage: string[] = [];
  const sections: HelpSection[] = [];
  let current: HelpSection | undefined;
  let inUsage = false;
  let itemIndent: number | undefined;

  for (const line of lines) {
    const metaMatch = META.exec(line.trim());
    if (metaMatch && indentOf(line) === 0) {
      meta[metaMatch[1]!.toLowerCase().replace(/\s+/g, '')] = metaMatch[2]!.trim();
      continue;
    }
    const usageMatch = /^usage:\s*(.*)$/i.exec(line.trim());
    if (usageMatch && indentOf(line) <= 2) {
      inUsage = true;
      current = undefined;
      if (usageMatch[1]) usage.push(usageMatch[1]);
      continue;
    }
    const title = /^([A-Za-z][\w ()/-]*?)\s*:\s*$/.exec(line);
    if (title && indentOf(line) <= 1) {
      inUsage = false;
      current = { title: title[1]!.trim(), kind: sectionKind(title[1]!.trim()), items: [], text: [] };
      itemIndent = undefined;
      sections.push(current);
      continue;
    }
    if (inUsage) {
      // clap continues a long usage on indented lines; argparse aligns under the program name.
      if (line.trim() === '') {
        if (usage.length) inUsage = false;
      } else if (indentOf(line) > 0) {
        usage.push(line.trim());
      } else {
        inUsage = false;
      }
      if (inUsage || line.trim() === '') continue;
    }
    if (current) {
      if (line.trim() !== '' && indentOf(line) === 0) {
        current = undefined; // free text after a section (cobra's trailing hint, epilogues)
      } else {
        if (current.kind !== 'other' && startsItem(current.kind, line, itemIndent)) {
          itemIndent ??= indentOf(line);
          current.items.push(splitItem(line));
        } else if (current.items.length && current.kind !== 'other') {
          current.items[current.items.length - 1]!.description.push(line.trim());
        } else {
          current.text.push(line.trim());
        }
        continue;
      }
    }
    if (line.trim() === '') {
      if (header[header.length - 1]!.length) header.push([]);
    } else {
      header[header.length - 1]!.push(line.trim());
    }
  }
  return { header: header.filter((p) => p.length), meta, usage, sections };
}
