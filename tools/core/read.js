// @ts-check
// `read`: one text file with line numbers, paged by --offset/--limit; directories, binary files
// and files over the size cap are refused with a message saying what to do instead.
import { ToolError } from '../lib/cli.js';
import { decode, looksBinary, normalize, readBytes, stat } from '../lib/wasi-fs.js';

/** Files larger than this are not read whole. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Longest line shown; longer lines are cut with a note. */
const MAX_LINE_CHARS = 2000;
/** Most characters returned in one call; the rest is left for the next page. */
const MAX_OUTPUT_CHARS = 100_000;

export const spec = {
  name: 'read',
  version: '0.1.0',
  about: 'Read a text file from the workspace, with line numbers',
  long:
    `Reads a text file and returns its lines numbered like \`cat -n\` (number, tab, text), so a
later edit can quote them exactly (without the number prefix). Paths are relative to the
workspace root '/' (absolute guest paths such as /src/main.rs work too); nothing outside the
workspace exists for this tool.

Large files are paged: --offset is the 1-based line to start at and --limit the number of
lines (2000 by default). The result's metadata says which lines were shown (shownFrom,
shownTo) and how many the file has (totalLines), so the next page starts at shownTo + 1.
Lines longer than ${MAX_LINE_CHARS} characters are cut. Directories (use ls or glob), binary
files and files over ${MAX_FILE_BYTES / 1024 / 1024} MiB (use grep, or bash with head/tail/sed -n) ` +
    `are refused with an error.`,
  keywords: ['file', 'read', 'cat', 'view', 'open', 'lines', 'text'],
  permission: 'ReadOnly',
  options: [
    {
      long: 'file-path',
      short: 'f',
      value: 'FILE_PATH',
      required: true,
      help: 'Path of the file to read, relative to the workspace root',
    },
    {
      long: 'offset',
      short: 'o',
      value: 'OFFSET',
      type: 'number',
      default: '1',
      help: 'Line number to start reading at (1 = first line)',
    },
    {
      long: 'limit',
      short: 'l',
      value: 'LIMIT',
      type: 'number',
      default: '2000',
      help: 'Maximum number of lines to return',
    },
  ],
};

/** Splits text into lines; a final newline does not start another line. */
function lines(text) {
  const all = text.split(/\r?\n/);
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  return all;
}

/** @param {{ file_path: string, offset: number, limit: number }} v */
export function handler(v) {
  const path = normalize(v.file_path);
  const s = stat(path);
  if (s.type === 'directory')
    throw new ToolError(`${path} is a directory, not a file; use ls or glob to see what it contains`, {
      path,
      code: 'is-directory',
    });
  if (s.type !== 'regular-file') throw new ToolError(`${path} is not a regular file (${s.type})`, { path });
  if (s.size > MAX_FILE_BYTES) {
    throw new ToolError(
      `${path} is ${s.size} bytes, over the ${MAX_FILE_BYTES / 1024 / 1024} MiB limit of read; search it with grep, ` +
        `or show parts with bash (head, tail, sed -n '100,200p')`,
      { path, size: s.size },
    );
  }
  if (!Number.isInteger(v.offset) || v.offset < 1)
    throw new ToolError(`--offset must be a line number of 1 or more, got ${v.offset}`);
  if (!Number.isInteger(v.limit) || v.limit < 1) throw new ToolError(`--limit must be 1 or more, got ${v.limit}`);
  const { bytes } = readBytes(path, MAX_FILE_BYTES);
  if (looksBinary(bytes))
    throw new ToolError(`${path} is a binary file (${bytes.length} bytes); read shows text files only`, {
      path,
      size: bytes.length,
      binary: true,
    });
  const text = decode(bytes);
  const all = text === '' ? [] : lines(text);
  const meta = { path, totalLines: all.length, size: bytes.length };
  if (all.length === 0) return { content: `(${path} is empty)`, metadata: { ...meta, shownFrom: 0, shownTo: 0 } };
  if (v.offset > all.length) {
    throw new ToolError(`--offset ${v.offset} is past the end of ${path}, which has ${all.length} lines`, meta);
  }
  const out = [];
  let chars = 0;
  let cutLines = 0;
  let last = v.offset - 1;
  const end = Math.min(all.length, v.offset - 1 + v.limit);
  const width = Math.max(6, String(end).length);
  for (let i = v.offset - 1; i < end; i++) {
    let line = /** @type {string} */ (all[i]);
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length - MAX_LINE_CHARS} more characters]`;
      cutLines++;
    }
    const row = `${String(i + 1).padStart(width)}\t${line}`;
    if (chars + row.length > MAX_OUTPUT_CHARS && out.length) break;
    out.push(row);
    chars += row.length + 1;
    last = i + 1;
  }
  let content = out.join('\n');
  if (last < all.length)
    content += `\n\n(lines ${v.offset}-${last} of ${all.length}; continue with --offset ${last + 1})`;
  return { content, metadata: { ...meta, shownFrom: v.offset, shownTo: last, ...(cutLines ? { cutLines } : {}) } };
}
