// @ts-check
// `edit`: exact string replacement in one file; refuses a missing or ambiguous old string
// unless every occurrence is to be replaced.
import { ToolError } from '../lib/cli.js';
import { decode, encode, looksBinary, normalize, readBytes, stat, writeBytes } from '../lib/wasi-fs.js';

const MAX_FILE_BYTES = 16 * 1024 * 1024;

export const spec = {
  name: 'edit',
  version: '0.1.0',
  about: 'Replace an exact string in a file',
  long: `Replaces --old-string with --new-string in --file-path. The old string must match the file
exactly, including whitespace and indentation (copy it from read's output without the line
number prefix), and must occur exactly once: include enough surrounding lines to make it
unique, or pass --replace-all to change every occurrence (e.g. to rename a variable). An old
string that is missing or occurs several times without --replace-all fails and leaves the file
unchanged. To create a file or replace all of it, use write.`,
  keywords: ['file', 'edit', 'replace', 'modify', 'change', 'patch', 'str_replace'],
  permission: 'Write',
  options: [
    {
      long: 'file-path',
      short: 'f',
      value: 'FILE_PATH',
      required: true,
      help: 'Path of the file to change, relative to the workspace root',
    },
    { long: 'old-string', value: 'OLD_STRING', required: true, help: 'The exact text to replace' },
    {
      long: 'new-string',
      value: 'NEW_STRING',
      required: true,
      help: 'The text to put in its place (may be empty to delete)',
    },
    { long: 'replace-all', help: 'Replace every occurrence instead of requiring exactly one' },
  ],
};

/** Counts non-overlapping occurrences. */
function occurrences(text, needle) {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** @param {{ file_path: string, old_string: string, new_string: string, replace_all?: boolean }} v */
export function handler(v) {
  const path = normalize(v.file_path);
  const s = stat(path);
  if (s.type === 'directory') throw new ToolError(`${path} is a directory`, { path, code: 'is-directory' });
  if (s.size > MAX_FILE_BYTES) throw new ToolError(`${path} is too large to edit (${s.size} bytes)`, { path });
  if (v.old_string === '')
    throw new ToolError('--old-string must not be empty; to create or replace a whole file use write');
  if (v.old_string === v.new_string)
    throw new ToolError('--old-string and --new-string are the same; nothing would change');
  const { bytes } = readBytes(path, MAX_FILE_BYTES);
  if (looksBinary(bytes)) throw new ToolError(`${path} is a binary file; edit changes text files only`, { path });
  const text = decode(bytes);
  // Files with CRLF line ends: match an LF-only old string against them too.
  const crlf = !v.old_string.includes('\r') && text.includes('\r\n') && !text.includes(v.old_string);
  const oldS = crlf ? v.old_string.replace(/\n/g, '\r\n') : v.old_string;
  const newS = crlf ? v.new_string.replace(/\r?\n/g, '\r\n') : v.new_string;
  const n = occurrences(text, oldS);
  if (n === 0) {
    throw new ToolError(
      `--old-string was not found in ${path}; it must match exactly, including whitespace and indentation (read the ` +
        `file again to copy it)`,
      { path, occurrences: 0 },
    );
  }
  if (n > 1 && !v.replace_all) {
    throw new ToolError(
      `--old-string occurs ${n} times in ${path}; add surrounding lines to make it unique, or pass --replace-all to ` +
        `change all ${n}`,
      { path, occurrences: n },
    );
  }
  const first = text.indexOf(oldS);
  const updated = v.replace_all
    ? text.split(oldS).join(newS)
    : text.slice(0, first) + newS + text.slice(first + oldS.length);
  writeBytes(path, encode(updated));
  // A few numbered lines around the (first) change, so the result can be checked without a read.
  const lines = updated.split('\n');
  const startLine = text.slice(0, first).split('\n').length; // 1-based
  const changed = newS.split('\n').length;
  const from = Math.max(1, startLine - 3);
  const to = Math.min(lines.length, startLine + changed + 2);
  const snippet = lines
    .slice(from - 1, to)
    .map((l, i) => `${String(from + i).padStart(6)}\t${l.replace(/\r$/, '')}`)
    .join('\n');
  const what = v.replace_all ? `Replaced ${n} occurrence${n === 1 ? '' : 's'}` : 'Replaced 1 occurrence';
  return {
    content: `${what} in ${path.slice(1)}. Around line ${startLine} now:\n${snippet}`,
    metadata: { path, replacements: v.replace_all ? n : 1, line: startLine },
  };
}
