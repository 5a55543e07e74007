// @ts-check
// `glob`: files whose path matches a glob pattern under a directory, newest first.
import { ToolError } from '../lib/cli.js';
import { globMatcher, literalPrefix, maxDepth } from '../lib/glob.js';
import { HEAVY_DIRS, normalize, relative, stat, tryStat, walk } from '../lib/wasi-fs.js';

export const spec = {
  name: 'glob',
  version: '0.1.0',
  about: 'Find files by name pattern (e.g. "**/*.ts"), newest first',
  long: `Lists the files under --path whose path relative to --path matches --pattern, sorted by
modification time, most recently changed first. Use it to find files by name; use grep to
search their contents.

Pattern syntax: \`*\` matches within one directory level, \`**\` any number of levels, \`?\` one
character, \`[abc]\`/\`[!abc]\` a character class, \`{ts,tsx}\` alternatives. A pattern is matched
against the whole relative path: "*.md" finds Markdown files directly in --path only, while
"**/*.md" finds them at any depth and "src/**/test_*.py" under src/. Directories named .git
and node_modules are skipped unless the pattern names them. Paths in the result are relative
to the workspace root '/'.`,
  keywords: ['file', 'find', 'glob', 'search', 'pattern', 'list', 'files'],
  permission: 'ReadOnly',
  options: [
    {
      long: 'pattern',
      short: 'p',
      value: 'PATTERN',
      required: true,
      help: 'Glob pattern matched against paths relative to --path, e.g. "**/*.ts"',
    },
    { long: 'path', value: 'PATH', default: '.', help: 'Directory to search in, relative to the workspace root' },
    {
      long: 'limit',
      short: 'l',
      value: 'LIMIT',
      type: 'number',
      default: '500',
      help: 'Maximum number of files to return',
    },
    { long: 'ignore-case', short: 'i', help: 'Match the pattern case-insensitively' },
  ],
};

/** @param {{ pattern: string, path: string, limit: number, ignore_case?: boolean }} v */
export function handler(v) {
  const root = normalize(v.path);
  const s = stat(root);
  if (s.type !== 'directory') throw new ToolError(`${root} is not a directory`, { path: root });
  if (!v.pattern.trim()) throw new ToolError('--pattern must not be empty');
  if (!Number.isInteger(v.limit) || v.limit < 1) throw new ToolError(`--limit must be 1 or more, got ${v.limit}`);
  const pattern = v.pattern.replace(/^\.\//, '').replace(/^\/+/, '');
  const match = globMatcher(pattern, !!v.ignore_case);
  const { base } = literalPrefix(pattern);
  const start = base ? normalize(`${root}/${base}`) : root;
  const depth = maxDepth(pattern) - (base ? base.split('/').length : 0);
  const named = [...HEAVY_DIRS].filter((d) => pattern.includes(d));
  /** @type {{ path: string, rel: string }[]} */
  const found = [];
  const startStat = base ? tryStat(start) : s;
  let complete = true;
  if (startStat?.type === 'directory') {
    complete = walk(start, {
      enter: (_p, d, e) => d < depth && (!HEAVY_DIRS.has(e.name) || named.includes(e.name)),
      visit: (p, e) => {
        if (e.type === 'directory') return true;
        const rel = relative(root, p);
        if (match(rel)) found.push({ path: p, rel });
        return true;
      },
    });
  }
  const withTimes = found.map((f) => ({ ...f, mtimeMs: tryStat(f.path, false)?.mtimeMs ?? 0 }));
  withTimes.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
  const shown = withTimes.slice(0, v.limit);
  const truncated = withTimes.length > shown.length;
  const lines = shown.map((f) => f.path.slice(1));
  let content = lines.length ? lines.join('\n') : `No files match ${JSON.stringify(v.pattern)} under ${root}`;
  if (truncated)
    content += `\n\n(${withTimes.length - shown.length} more not shown; raise --limit or narrow the pattern)`;
  if (!complete) content += '\n\n(the search stopped early: too many entries; narrow --path or the pattern)';
  return {
    content,
    metadata: {
      path: root,
      pattern: v.pattern,
      count: shown.length,
      total: withTimes.length,
      truncated: truncated || !complete,
    },
  };
}
