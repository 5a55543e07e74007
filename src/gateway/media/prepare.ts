// The gateway's media step, between accepting a message and running the agent on it: every
// attachment is downloaded by its adapter (host side: a Telegram file URL holds the bot token),
// held to the per-file and per-message caps, typed from its bytes, saved into the conversation's
// workspace under `inbox/` without following links, then read for the prompt (image data for
// vision models, speech transcribed, document text). Nothing here throws for one bad file: it is
// left out and the user gets one line saying why. Running it again for the same message (a
// resume after a restart) saves the same names again, so it leaves one copy of each file.
import type { Attachment, ChannelAdapter, InboundMessage } from '../../adapters/index.ts';
import { isTooLarge } from '../../adapters/index.ts';
import { cleanFileName } from '../../clean-file-name.ts';
import { errorMessage } from '../../errors.ts';
import { type Logger, silentLogger } from '../../log.ts';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from '../../parsers/index.ts';
import { writeWorkspaceFile } from '../../sandbox/index.ts';
import { sniffType } from '../../sniff-type.ts';
import { extractText } from './extract-text.ts';
import { inboxName } from './file-name.ts';
import type { InboxFile, PreparedMedia, TranscribeFile } from './types.ts';

/** The workspace folder inbound files are saved in. */
export const INBOX_DIR = 'inbox';

/** How the media step is configured (main.ts builds it from `media.*`). */
export interface MediaOptions {
  /** Per file and per message, in bytes. */
  maxFileBytes: number;
  maxMessageBytes: number;
  /** The conversation's workspace folder (the same one its tools get). */
  workspaceOf(conversationKey: string): string;
  /** The workspace quota tools write under (sandbox.limits.maxWorkspaceMb); saved files count against it. */
  maxWorkspaceBytes?: number;
  /** Names the workspace may hold (sandbox.limits.maxWorkspaceEntries), counted like the tools' own. */
  maxWorkspaceEntries?: number;
  /** Speech to text; absent: voice notes get `transcriptionHint`. */
  transcribe?: TranscribeFile;
  /** What a user is told when a voice note cannot be transcribed because nothing is configured. */
  transcriptionHint?: string;
  /** Document text given to the model, at most (default 20,000 characters; the file is in the workspace). */
  maxTextChars?: number;
  /** Caps of the child process that parses documents (default DEFAULT_PARSE_LIMITS). */
  parseLimits?: ParseLimits;
  /** Parser processes at once (default 2). */
  maxParallelParses?: number;
  log?: Logger;
}

/** Images the providers take as image parts (others are saved and listed only). */
const VISION_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The largest image sent as an image part: Anthropic refuses images over 5 MB (the whole call fails). */
const MAX_IMAGE_PART_BYTES = 5 * 1024 * 1024;

const DEFAULT_HINT =
  'I cannot listen to voice notes yet: an admin can enable it by setting media.transcription.model in ' +
  'boxbot.config.json (e.g. "openai/gpt-4o-mini-transcribe").';

const MB = 1024 * 1024;
const mb = (bytes: number): string => {
  if (bytes < MB) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0).replace(/\.0$/, '')} MB`;
};

/**
 * Downloads, checks, saves and reads the attachments of `msg`.
 * Example: const media = await prepareMedia(msg, adapter, options, signal); // then the agent run
 */
export async function prepareMedia(
  msg: InboundMessage,
  adapter: ChannelAdapter,
  o: MediaOptions,
  signal?: AbortSignal,
): Promise<PreparedMedia> {
  const log = o.log ?? silentLogger;
  const files: InboxFile[] = [];
  const notices: string[] = [];
  const workspace = o.workspaceOf(msg.conversationKey);
  let used = 0;
  let hinted = false;
  for (const [index, a] of msg.attachments.entries()) {
    // The name as the user gave it is shown (in notices and to the model) only once cleaned.
    const declared = a.name ? cleanFileName(a.name) : undefined;
    const label = declared ? `"${declared}"` : `the ${a.kind ?? 'file'}`;
    if (!adapter.fetchAttachment) {
      notices.push(`I could not receive ${label}: files sent on ${msg.platform} are not supported yet.`);
      continue;
    }
    const left = o.maxMessageBytes - used;
    const fileLimit = `files up to ${mb(o.maxFileBytes)} are accepted (media.maxFileMb)`;
    const messageLimit = `one message may bring up to ${mb(o.maxMessageBytes)} of files (media.maxMessageMb)`;
    if (a.size !== undefined && a.size > o.maxFileBytes) {
      notices.push(`I did not take ${label} (${mb(a.size)}): ${fileLimit}.`);
      continue;
    }
    if (a.size !== undefined && a.size > left) {
      notices.push(`I did not take ${label} (${mb(a.size)}): ${messageLimit}.`);
      continue;
    }
    const maxBytes = Math.min(o.maxFileBytes, left);
    let bytes: Uint8Array;
    try {
      ({ bytes } = await adapter.fetchAttachment(a, { maxBytes, ...(signal ? { signal } : {}) }));
    } catch (e) {
      if (isTooLarge(e)) {
        notices.push(`I did not take ${label}: ${maxBytes === o.maxFileBytes ? fileLimit : messageLimit}.`);
      } else {
        log.warn({ platform: msg.platform, attachment: a.id, err: errorMessage(e) }, 'attachment not downloaded');
        notices.push(`I could not download ${label}; please send it again.`);
      }
      continue;
    }
    used += bytes.length;
    const type = sniffType(bytes);
    const name = inboxName(msg, index, msg.attachments.length, declared, type);
    const saved = writeWorkspaceFile(workspace, INBOX_DIR, name, bytes, {
      ...(o.maxWorkspaceBytes !== undefined ? { maxWorkspaceBytes: o.maxWorkspaceBytes } : {}),
      ...(o.maxWorkspaceEntries !== undefined ? { maxEntries: o.maxWorkspaceEntries } : {}),
    });
    if (!saved.ok) {
      log.warn({ conversation: msg.conversationKey, reason: saved.reason }, 'attachment not saved');
      notices.push(`I could not save ${label} in this conversation's workspace: ${saved.reason}.`);
      continue;
    }
    const file: InboxFile = {
      path: saved.path,
      ...(declared ? { originalName: declared } : {}),
      mimeType: type.mimeType,
      size: bytes.length,
      family: type.family,
      ...(a.kind ? { kind: a.kind } : {}),
    };
    if (type.family === 'image' && VISION_TYPES.has(type.mimeType)) {
      if (bytes.length <= MAX_IMAGE_PART_BYTES)
        file.image = { mediaType: type.mimeType, data: Buffer.from(bytes).toString('base64') };
      else file.unreadable = `too large to show to the model (over ${mb(MAX_IMAGE_PART_BYTES)})`;
    }
    if (type.family === 'audio' || (type.family === 'video' && isSpeech(a))) {
      if (o.transcribe) {
        try {
          const text = await o.transcribe({ bytes, name, mimeType: type.mimeType }, signal);
          if (text) file.transcript = text;
          else file.unreadable = 'no speech was recognised in it';
        } catch (e) {
          log.warn({ conversation: msg.conversationKey, err: errorMessage(e) }, 'transcription failed');
          file.unreadable = 'transcription failed';
          notices.push(`I could not transcribe ${label}: the speech-to-text service failed.`);
        }
      } else if (!hinted) {
        hinted = true;
        notices.push(o.transcriptionHint ?? DEFAULT_HINT);
      }
    }
    const text = await extractText(bytes, type, {
      maxChars: o.maxTextChars ?? 20_000,
      limits: o.parseLimits ?? DEFAULT_PARSE_LIMITS,
      ...(o.maxParallelParses ? { maxParallel: o.maxParallelParses } : {}),
      ...(signal ? { signal } : {}),
    });
    if (text && 'error' in text) {
      log.warn({ conversation: msg.conversationKey, type: type.mimeType, why: text.error }, 'document not read');
      file.unreadable = text.error;
      notices.push(`${cap1(label)} could not be read: ${text.error}.`);
    } else if (text) file.text = text;
    files.push(file);
  }
  return { files, notices };
}

/** `the document` → `The document`; a quoted name stays as it is. */
const cap1 = (label: string): string => label.charAt(0).toUpperCase() + label.slice(1);

/** A video the platform calls a voice message (Telegram video notes are round selfie videos: not transcribed). */
function isSpeech(a: Attachment): boolean {
  return a.kind === 'voice' || a.kind === 'audio';
}
