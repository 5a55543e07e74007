// The gateway's media step, between accepting a message and running the agent on it: every
// attachment is downloaded by its adapter (host side: a Telegram file URL holds the bot token),
// held to the per-file and per-message caps, typed from its bytes, saved into the conversation's
// workspace under `inbox/` without following links, then read for the prompt (image data for
// vision models, speech transcribed, document text). Nothing here throws for one bad file: it is
// left out and the user gets one line saying why. Running it again for the same message (a
// resume after a restart) saves the same names again, so it leaves one copy of each file.
import type { Attachment, ChannelAdapter, InboundMessage } from '../../adapters/index.ts';
import { isTooLarge } from '../../adapters/index.ts';
import { cleanFileName } from '../../core/clean-file-name.ts';
import { errorMessage } from '../../core/errors.ts';
import { type Logger, silentLogger } from '../../core/log.ts';
import { type Sniffed, sniffType } from '../../core/sniff-type.ts';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from '../../parsers/index.ts';
import { writeWorkspaceFile } from '../../sandbox/index.ts';
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
  /** Tests only: the parser child's entry file (the compiled copy of src/, not its TypeScript through tsx). */
  parserFile?: string;
  /** Tests only: runs inside the journaled work on a file, just before it is read (a crash test aborts here). */
  onReading?: (attachment: Attachment) => void;
  log?: Logger;
}

/**
 * The message's journal of host-side work on its files (DeliveryStore.startMediaWork), so that a
 * file the process died inside twice is left out at a resume instead of ending the process again.
 */
export interface MediaWorkJournal {
  /** Work on attachment `index` starts; resolves with how many earlier starts of it never ended. */
  start(index: number): Promise<number>;
  /** That work ended (it returned or threw: the process lived). */
  end(index: number): Promise<void>;
  /** Attachment `index` was left out as poison input (metrics). */
  poisoned?(index: number): void;
}

/** Deaths inside the work on one file after which a resume leaves it out. */
export const POISON_DEATHS = 2;

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
 * Downloads, checks, saves and reads the attachments of `msg`; with `journal`, the work on each
 * file is journaled and a file the process died inside twice is left out.
 * Example: const media = await prepareMedia(msg, adapter, options, signal); // then the agent run
 */
export async function prepareMedia(
  msg: InboundMessage,
  adapter: ChannelAdapter,
  o: MediaOptions,
  signal?: AbortSignal,
  journal?: MediaWorkJournal,
): Promise<PreparedMedia> {
  const log = o.log ?? silentLogger;
  const files: InboxFile[] = [];
  const notices: string[] = [];
  const workspace = o.workspaceOf(msg.conversationKey);
  let used = 0;
  let hinted = false;

  /** Types, saves and reads one downloaded file; undefined (and a notice) when it could not be saved. */
  async function keep(index: number, a: Attachment, bytes: Uint8Array, declared: string | undefined, label: string) {
    const type = sniffType(bytes);
    const name = inboxName(msg, index, msg.attachments.length, declared, type);
    const saved = writeWorkspaceFile(workspace, INBOX_DIR, name, bytes, {
      ...(o.maxWorkspaceBytes !== undefined ? { maxWorkspaceBytes: o.maxWorkspaceBytes } : {}),
      ...(o.maxWorkspaceEntries !== undefined ? { maxEntries: o.maxWorkspaceEntries } : {}),
    });
    if (!saved.ok) {
      log.warn({ conversation: msg.conversationKey, reason: saved.reason }, 'attachment not saved');
      notices.push(`I could not save ${label} in this conversation's workspace: ${saved.reason}.`);
      return undefined;
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
    o.onReading?.(a);
    const text = await extractText(bytes, type, {
      maxChars: o.maxTextChars ?? 20_000,
      limits: o.parseLimits ?? DEFAULT_PARSE_LIMITS,
      ...(o.maxParallelParses ? { maxParallel: o.maxParallelParses } : {}),
      ...(o.parserFile ? { parserFile: o.parserFile } : {}),
      ...(signal ? { signal } : {}),
    });
    if (text && 'error' in text) {
      log.warn({ conversation: msg.conversationKey, type: type.mimeType, why: text.error }, 'document not read');
      file.unreadable = text.error;
      notices.push(`${cap1(label)} could not be read: ${text.error}.`);
    } else if (text) file.text = text;
    return { file, type, name };
  }

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
    // From here until its bytes are read the host itself works on the file (typing, saving,
    // reading through the parser child): journaled, so a file the process died inside twice is
    // left out at the next resume (poison input). The waits on the platform (the download above)
    // and on the model (transcription below) are outside it: a death there is not the file's doing.
    const deaths = journal ? await journal.start(index) : 0;
    if (deaths >= POISON_DEATHS) {
      log.error(
        { conversation: msg.conversationKey, message: msg.id, attachment: index, deaths },
        'poison input: a file the process died inside twice is left out',
      );
      journal?.poisoned?.(index);
      notices.push(`${cap1(label)} could not be read: the server stopped twice while reading it, so I left it out.`);
      continue;
    }
    let kept: { file: InboxFile; type: Sniffed; name: string } | undefined;
    try {
      kept = await keep(index, a, bytes, declared, label);
    } finally {
      await journal?.end(index);
    }
    if (!kept) continue;
    const { file, type, name } = kept;
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
