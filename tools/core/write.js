// @ts-check
// `write`: creates or overwrites a text file, creating missing parent directories.
import { ToolError } from '../lib/cli.js';
import { encode, mkdirp, normalize, tryStat, writeBytes } from '../lib/wasi-fs.js';

export const spec = {
  name: 'write',
  version: '0.1.0',
  about: 'Create or overwrite a file in the workspace',
  long: `Writes --content to --file-path as UTF-8, replacing the whole file if it exists and creating
it (and any missing parent directories) if not. To change part of an existing file, prefer
edit, which replaces an exact string and leaves the rest untouched. Paths are relative to the
workspace root '/'. Fails when the workspace is read-only for this conversation.`,
  keywords: ['file', 'write', 'create', 'save', 'overwrite', 'new'],
  permission: 'Write',
  options: [
    {
      long: 'file-path',
      short: 'f',
      value: 'FILE_PATH',
      required: true,
      help: 'Path of the file to write, relative to the workspace root',
    },
    { long: 'content', short: 'c', value: 'CONTENT', required: true, help: 'The complete new content of the file' },
  ],
};

/** @param {{ file_path: string, content: string }} v */
export function handler(v) {
  const path = normalize(v.file_path);
  if (path === '/') throw new ToolError('--file-path must name a file, not the workspace root');
  const before = tryStat(path);
  if (before?.type === 'directory') throw new ToolError(`${path} is a directory`, { path, code: 'is-directory' });
  mkdirp(path.slice(0, path.lastIndexOf('/')) || '/');
  const bytes = encode(v.content);
  writeBytes(path, bytes);
  const lines = v.content === '' ? 0 : v.content.split('\n').length - (v.content.endsWith('\n') ? 1 : 0);
  const verb = before ? 'Overwrote' : 'Created';
  return {
    content: `${verb} ${path.slice(1)} (${bytes.length} bytes, ${lines} lines)`,
    metadata: { path, bytes: bytes.length, lines, created: !before },
  };
}
