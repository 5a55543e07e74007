// What the gateway's media step hands the agent run: the files of one message as saved in the
// conversation's workspace (with what was read from them), and the lines the user is told.
import type { Sniffed } from '../../core/sniff-type.ts';

/** How boxbot treats a file, from its bytes. */
export type FileFamily = Sniffed['family'];

/** One file of the message, saved in the workspace. */
export interface InboxFile {
  /** Below the workspace root: `inbox/<name>`. */
  path: string;
  /** As the user named it (for the prompt; never used as a path). */
  originalName?: string;
  /** Sniffed from the bytes. */
  mimeType: string;
  size: number;
  family: FileFamily;
  /** As the platform labelled it (`voice` for a voice note). */
  kind?: 'image' | 'voice' | 'audio' | 'video' | 'document';
  /** An image a vision model can be shown (base64), for the turn it arrived in only. */
  image?: { mediaType: string; data: string };
  /** Speech in it, transcribed. */
  transcript?: string;
  /** Text read from a document (capped). */
  text?: { content: string; truncated: boolean; pages?: number };
  /** Why its content could not be read (the file is still saved). */
  unreadable?: string;
}

/** The media of one message, ready for the prompt. */
export interface PreparedMedia {
  files: InboxFile[];
  /** One line each, shown to the user before the answer: a file refused, a voice note not transcribed. */
  notices: string[];
}

/** Speech to text (the agent's transcriber, bound to `media.transcription.model`). */
export type TranscribeFile = (
  file: { bytes: Uint8Array; name: string; mimeType: string },
  signal?: AbortSignal,
) => Promise<string>;
