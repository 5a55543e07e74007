// The built-in `send_file` tool: the model names a file in the conversation's workspace and it is
// sent to the chat with the answer, after its text. The host reads it the one safe way
// (readWorkspaceFile: inside the workspace, no symlink out, regular files only, size-checked
// first) and sniffs its type from the bytes. ReadOnly: offered only where reading is permitted.
import { posix } from 'node:path';
import { cleanFileName } from '../../core/clean-file-name.ts';
import { sniffType } from '../../core/sniff-type.ts';
import { readWorkspaceFile } from '../../sandbox/workspace-file.ts';
import type { BuiltinTool } from '../tools/builtin.ts';

/** A file attached to the run's answer (the gateway's OutboundFile). */
export interface AttachedFile {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
  caption?: string;
}

/** The tool's name. */
export const SEND_FILE = 'send_file';

/** Most files one answer sends. */
export const MAX_FILES_PER_ANSWER = 10;
/** Longest caption (Telegram's limit for a photo or document caption). */
export const MAX_CAPTION = 1024;

/** Options of the send_file tool of one run. */
export interface SendFileToolOptions {
  /** The conversation's workspace (the `/` tools see). */
  workspace: string;
  /** Largest file sent (media.maxFileMb). */
  maxBytes: number;
  /** Receives each attached file, in order. */
  attach: (file: AttachedFile) => void;
}

/** send_file's input: one object for every run (the prompt's estimate measures a schema once). */
const SEND_FILE_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Path of the file in the workspace, e.g. /report.csv or chart.png' },
    caption: { type: 'string', description: 'A short caption shown with the file' },
  },
  required: ['path'],
  additionalProperties: false,
};

/** Creates the `send_file` tool of one run. */
export function createSendFileTool(o: SendFileToolOptions): BuiltinTool {
  let attached = 0;
  const limit =
    o.maxBytes >= 1024 * 1024
      ? `${Math.round((o.maxBytes / (1024 * 1024)) * 10) / 10} MB`
      : `${Math.ceil(o.maxBytes / 1024)} KB`;
  return {
    name: SEND_FILE,
    description:
      'Send a file from the workspace to the user in this chat, attached after your answer (images are shown as ' +
      `images). Create the file first with another tool. At most ${MAX_FILES_PER_ANSWER} files per answer, ` +
      `${limit} each.`,
    inputSchema: SEND_FILE_SCHEMA,
    permissionLevel: 'ReadOnly',
    async run(input) {
      const path = String(input.path ?? '');
      // Tools see the workspace as `/`: an absolute path is relative to it.
      const rel = path.replace(/^\/+/, '');
      if (!rel)
        return { content: 'cannot send a file: the path is empty or names the workspace itself', isError: true };
      if (attached >= MAX_FILES_PER_ANSWER)
        return { content: `cannot send ${path}: at most ${MAX_FILES_PER_ANSWER} files per answer`, isError: true };
      const read = readWorkspaceFile(o.workspace, rel, { maxBytes: o.maxBytes });
      if (!read.ok) {
        const why = /the limit is/.test(read.reason)
          ? `it is larger than the ${limit} limit for files sent to a chat (${read.reason})`
          : read.reason;
        return { content: `cannot send ${path}: ${why}`, isError: true };
      }
      // The name the chat shows comes from a path a tool may have written: cleaned like a user's.
      const name = cleanFileName(posix.basename(rel));
      const { mimeType } = sniffType(read.bytes);
      const caption = typeof input.caption === 'string' ? input.caption.trim().slice(0, MAX_CAPTION) : '';
      o.attach({ name, mimeType, bytes: read.bytes, ...(caption ? { caption } : {}) });
      attached++;
      return {
        content: `attached ${name} (${mimeType}, ${read.bytes.byteLength} bytes); it is sent after your answer's text`,
        isError: false,
      };
    },
  };
}
