// @ts-check
// `grep`: regular-expression search through files under a path, with include globs, context
// lines, three output modes (content, files_with_matches, count) and a cap on results.
import { ToolError } from '../lib/cli.js';
import { includeMatcher } from '../lib/glob.js';
import { decode, HEAVY_DIRS, looksBinary, normalize, readBytes, stat, walk } from '../lib/wasi-fs.js';

/** Files larger than this are skipped (noted in the metadata). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Matched or context lines longer than this are cut. */
const MAX_LINE_CHARS = 500;

export const spec = {
  name: 'grep',
  version: '0.1.0',
  about: 'Search file contents with a regular expression',
  long: `Searches the files under --path (a directory, searched recursively, or one file) for lines
matching --pattern, a JavaScript regular expression (e.g. "function\\s+\\w+", "TODO|FIXME";
escape literal characters such as "\\(" or "\\."). Binary files, files over ${MAX_FILE_BYTES / 1024 / 1024} MiB and
directories named .git or node_modules are skipped.

Output modes: files_with_matches (default) lists the paths of matching files; content shows
the matching lines as "path:line:text", with context lines as "path-line-text" and "--"
between separate groups; count gives "path:number" per file. --include restricts the files
searched: a glob without '/' matches file names at any depth ("*.ts", "*.{js,jsx}"), one with
'/' matches paths relative to --path ("src/**/*.rs"); repeat it for several. --limit caps the
number of result lines (content) or files (other modes); the metadata says when more exist.
Paths are relative to the workspace root '/'.`,
  keywords: ['search', 'grep', 'regex', 'find', 'text', 'code', 'ripgrep', 'rg'],
  permission: 'ReadOnly',
  options: [
    {
      long: 'pattern',
      short: 'e',
      value: 'PATTERN',
      required: true,
      help: 'Regular expression to search for (JavaScript syntax)',
    },
    { long: 'path', value: 'PATH', default: '.', help: 'File or directory to search, relative to the workspace root' },
    {
      long: 'include',
      short: 'g',
      value: 'GLOB',
      multiple: true,
      help: 'Only search files matching this glob, e.g. "*.py" (repeatable)',
    },
    {
      long: 'output-mode',
      value: 'OUTPUT_MODE',
      default: 'files_with_matches',
      values: ['content', 'files_with_matches', 'count'],
      help: 'What to return: matching lines, matching file paths, or match counts per file',
    },
    { long: 'ignore-case', short: 'i', help: 'Case-insensitive search' },
    {
      long: 'after-context',
      short: 'A',
      value: 'LINES',
      type: 'number',
      help: 'Lines to show after each match (content mode)',
    },
    {
      long: 'before-context',
      short: 'B',
      value: 'LINES',
      type: 'number',
      help: 'Lines to show before each match (content mode)',
    },
    {
      long: 'context',
      short: 'C',
      value: 'LINES',
      type: 'number',
      help: 'Lines to show before and after each match (content mode)',
    },
    {
      long: 'multiline',
      help: 'Let the pattern span lines: "." matches newlines and the whole file is searched at once',
    },
    {
      long: 'limit',
      short: 'l',
      value: 'LIMIT',
      type: 'number',
      default: '200',
      help: 'Maximum number of result lines (content) or files (other modes)',
    },
  ],
};

const cut = (line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [cut]` : line);

/** Line numbers (0-based) matched by a multiline regex over the whole text. */
function multilineHits(text, re, starts) {
  const hits = new Set();
  re.lastIndex = 0;
  for (let m; (m = re.exec(text)); ) {
    const from = lineAt(starts, m.index);
    const to = lineAt(starts, m.index + Math.max(0, m[0].length - 1));
    for (let l = from; l <= to; l++) hits.add(l);
    if (m[0].length === 0) re.lastIndex++;
  }
  return [...hits].sort((a, b) => a - b);
}

/** The line holding character `pos`, by binary search over line start offsets. */
function lineAt(starts, pos) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (/** @type {number} */ (starts[mid]) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * @param {{ pattern: string, path: string, include?: string[], output_mode: string, ignore_case?: boolean,
 *   after_context?: number, before_context?: number, context?: number, multiline?: boolean, limit: number }} v
 */
export function handler(v) {
  let re;
  try {
    re = new RegExp(v.pattern, `${v.ignore_case ? 'i' : ''}${v.multiline ? 'gs' : ''}`);
  } catch (e) {
    throw new ToolError(`invalid regular expression ${JSON.stringify(v.pattern)}: ${/** @type {Error} */ (e).message}`);
  }
  for (const n of ['after_context', 'before_context', 'context', 'limit']) {
    const x = v[n];
    if (x !== undefined && (!Number.isInteger(x) || x < (n === 'limit' ? 1 : 0)))
      throw new ToolError(
        `--${n.replace(/_/g, '-')} must be a whole number${n === 'limit' ? ' of 1 or more' : ''}, got ${x}`,
      );
  }
  const before = v.before_context ?? v.context ?? 0;
  const after = v.after_context ?? v.context ?? 0;
  const root = normalize(v.path);
  const includes = (v.include ?? []).map(includeMatcher);
  const rootStat = stat(root);
  /** @type {string[]} */
  const files = [];
  let complete = true;
  if (rootStat.type === 'directory') {
    complete = walk(root, {
      enter: (_p, _d, e) => !HEAVY_DIRS.has(e.name),
      visit: (p, e) => {
        if (e.type !== 'regular-file') return true;
        const rel = root === '/' ? p.slice(1) : p.slice(root.length + 1);
        if (includes.length && !includes.some((m) => m(rel))) return true;
        files.push(p);
        return true;
      },
    });
  } else if (rootStat.type === 'regular-file') {
    files.push(root);
  } else {
    throw new ToolError(`${root} is neither a file nor a directory`, { path: root });
  }

  const out = [];
  let resultCount = 0;
  let matchCount = 0;
  let filesMatched = 0;
  let truncated = false;
  const skipped = { binary: 0, large: 0 };
  for (const file of files) {
    if (truncated) break;
    let bytes;
    try {
      const s = stat(file);
      if (s.size > MAX_FILE_BYTES) {
        skipped.large++;
        continue;
      }
      bytes = readBytes(file, MAX_FILE_BYTES).bytes;
    } catch {
      continue; // vanished or unreadable: not a search result
    }
    if (looksBinary(bytes)) {
      skipped.binary++;
      continue;
    }
    const text = decode(bytes);
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    let hits;
    if (v.multiline) {
      const starts = [0];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
      hits = multilineHits(text, re, starts);
    } else {
      hits = [];
      for (let i = 0; i < lines.length; i++) if (re.test(/** @type {string} */ (lines[i]))) hits.push(i);
    }
    if (!hits.length) continue;
    filesMatched++;
    matchCount += hits.length;
    const shown = file.slice(1);
    if (v.output_mode === 'files_with_matches') {
      if (resultCount >= v.limit) {
        truncated = true;
        break;
      }
      out.push(shown);
      resultCount++;
    } else if (v.output_mode === 'count') {
      if (resultCount >= v.limit) {
        truncated = true;
        break;
      }
      out.push(`${shown}:${hits.length}`);
      resultCount++;
    } else {
      const isHit = new Set(hits);
      let lastPrinted = -1;
      for (const h of hits) {
        const from = Math.max(0, h - before, lastPrinted + 1);
        const to = Math.min(lines.length - 1, h + after);
        if (from > lastPrinted + 1 && lastPrinted !== -1 && (before || after)) out.push('--');
        for (let l = from; l <= to; l++) {
          if (resultCount >= v.limit) {
            truncated = true;
            break;
          }
          out.push(`${shown}${isHit.has(l) ? ':' : '-'}${l + 1}${isHit.has(l) ? ':' : '-'}${cut(lines[l])}`);
          resultCount++;
          lastPrinted = l;
        }
        if (truncated) break;
      }
      if ((before || after) && !truncated) out.push('--');
    }
  }
  if (out[out.length - 1] === '--') out.pop();
  let content = out.length ? out.join('\n') : `No matches for ${JSON.stringify(v.pattern)} in ${root}`;
  if (truncated) content += `\n\n(results cut at --limit ${v.limit}; narrow the search or raise the limit)`;
  if (!complete) content += '\n\n(the search stopped early: too many entries; narrow --path or use --include)';
  return {
    content,
    metadata: {
      mode: v.output_mode,
      path: root,
      filesSearched: files.length,
      filesMatched,
      matches: matchCount,
      results: resultCount,
      truncated: truncated || !complete,
      ...(skipped.binary ? { skippedBinary: skipped.binary } : {}),
      ...(skipped.large ? { skippedLarge: skipped.large } : {}),
    },
  };
}
