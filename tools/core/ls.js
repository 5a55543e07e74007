// @ts-check
// `ls`: a directory listing (optionally a few levels deep) with types and sizes.
import { ToolError } from '../lib/cli.js';
import { includeMatcher } from '../lib/glob.js';
import { HEAVY_DIRS, normalize, readLink, relative, stat, tryStat, walk } from '../lib/wasi-fs.js';

export const spec = {
  name: 'ls',
  version: '0.1.0',
  about: 'List a directory of the workspace',
  long: `Lists the entries of a directory: sub-directories end in "/", files show their size in bytes,
symbolic links show their target. With --depth greater than 1 the listing descends into
sub-directories, indented by level (.git and node_modules are listed but not descended into).
Hidden entries (names starting with '.') are included unless --no-hidden is given; --ignore
drops entries whose name matches a glob (repeatable). Paths are relative to the workspace
root '/'; use glob to find files by pattern and read to see a file.`,
  keywords: ['ls', 'list', 'directory', 'dir', 'files', 'tree', 'folder'],
  permission: 'ReadOnly',
  args: [],
  options: [
    {
      long: 'path',
      short: 'p',
      value: 'PATH',
      default: '.',
      help: 'Directory to list, relative to the workspace root',
    },
    {
      long: 'depth',
      short: 'd',
      value: 'DEPTH',
      type: 'number',
      default: '1',
      help: 'How many levels to list (1 = only the directory itself)',
    },
    {
      long: 'ignore',
      value: 'GLOB',
      multiple: true,
      help: 'Leave out entries whose name matches this glob, e.g. "*.log" (repeatable)',
    },
    { long: 'no-hidden', help: "Leave out entries whose name starts with '.'" },
    {
      long: 'limit',
      short: 'l',
      value: 'LIMIT',
      type: 'number',
      default: '1000',
      help: 'Maximum number of entries to return',
    },
  ],
};

const TYPE = { directory: 'dir', 'regular-file': 'file', 'symbolic-link': 'symlink' };

/** @param {{ path: string, depth: number, ignore?: string[], no_hidden?: boolean, limit: number }} v */
export function handler(v) {
  const root = normalize(v.path);
  const s = stat(root);
  if (s.type !== 'directory') {
    if (s.type === 'regular-file')
      return { content: `${root.slice(1) || '/'}  ${s.size}`, metadata: { path: root, entries: 1, type: 'file' } };
    throw new ToolError(`${root} is not a directory`, { path: root });
  }
  if (!Number.isInteger(v.depth) || v.depth < 1) throw new ToolError(`--depth must be 1 or more, got ${v.depth}`);
  if (!Number.isInteger(v.limit) || v.limit < 1) throw new ToolError(`--limit must be 1 or more, got ${v.limit}`);
  const ignore = (v.ignore ?? []).map(includeMatcher);
  const hidden = (name) => v.no_hidden && name.startsWith('.');
  const lines = [];
  const counts = { dir: 0, file: 0, symlink: 0, other: 0 };
  let truncated = false;
  walk(root, {
    enter: (_p, d, e) => d < v.depth && !HEAVY_DIRS.has(e.name) && !hidden(e.name) && !ignore.some((m) => m(e.name)),
    visit: (p, e, d) => {
      if (hidden(e.name) || ignore.some((m) => m(e.name))) return true;
      if (lines.length >= v.limit) {
        truncated = true;
        return false;
      }
      const indent = '  '.repeat(d - 1);
      const kind = TYPE[e.type] ?? 'other';
      counts[kind]++;
      if (e.type === 'directory') lines.push(`${indent}${e.name}/`);
      else if (e.type === 'symbolic-link') {
        let target = '?';
        try {
          target = readLink(p);
        } catch {
          // unreadable link: show it without a target
        }
        lines.push(`${indent}${e.name} -> ${target}`);
      } else {
        const size = tryStat(p, false)?.size;
        lines.push(`${indent}${e.name}${size === undefined ? '' : `  ${size}`}`);
      }
      return true;
    },
  });
  const title = root === '/' ? '/ (workspace root)' : `${relative('/', root)}/`;
  let content = lines.length ? `${title}\n${lines.join('\n')}` : `${title}\n(empty)`;
  if (truncated) content += `\n\n(listing cut at --limit ${v.limit})`;
  return {
    content,
    metadata: {
      path: root,
      entries: lines.length,
      dirs: counts.dir,
      files: counts.file,
      symlinks: counts.symlink,
      truncated,
    },
  };
}
