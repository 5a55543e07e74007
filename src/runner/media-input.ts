// The user turn of a message that brought files: the text (a voice note's transcript is the
// prompt), a list of the files saved in the workspace (path, type, size), document text, and the
// images themselves as image parts when the model can see them. Also what the history keeps of
// such a turn: the image data is sent in the turn it arrived in only; later turns keep the text,
// which names each image's path, so a long conversation does not resend megabytes every turn.

import type { ContentPart, Message } from '../agent/types.ts';
import type { InboxFile, PreparedMedia } from './media/index.ts';

/** The input of one run: its parts, and the text part the history tags the turn by. */
export interface MediaInput {
  text: string;
  parts: ContentPart[];
  /** Nothing to run on: no text, no transcript and no readable file (the notices say why). */
  empty: boolean;
}

const KB = 1024;
const sizeOf = (n: number): string =>
  n < KB ? `${n} B` : n < KB * KB ? `${Math.round(n / KB)} KB` : `${(n / KB / KB).toFixed(1)} MB`;

/**
 * Builds the user turn. `speaker` prefixes group messages (`[name]: `); `vision` says whether the
 * run's model takes image parts.
 * Example: mediaInput('what is this?', media, { vision: true }) → text listing inbox/… + one image part
 */
export function mediaInput(
  text: string,
  media: PreparedMedia | undefined,
  o: { vision: boolean; speaker?: string },
): MediaInput {
  const files = media?.files ?? [];
  const transcripts = files.filter((f) => f.transcript).map((f) => f.transcript!);
  const said = [text.trim(), ...transcripts].filter(Boolean).join('\n\n');
  const lines: string[] = [];
  if (files.length > 0) {
    lines.push('[The user sent files; they are saved in your workspace:');
    for (const f of files) lines.push(`- ${describe(f, o.vision)}`);
    lines.push(']');
  }
  const docs = files.filter((f) => f.text?.content.trim());
  for (const f of docs) {
    lines.push(
      `<document path="${f.path}"${f.text!.truncated ? ' truncated="true"' : ''}>`,
      // A document cannot close its own tags and pass what follows off as boxbot's words.
      f.text!.content.replace(/<(\/?)document/gi, '<$1 document'),
      '</document>',
    );
  }
  const speaking = o.speaker ? `[${o.speaker}]: ` : '';
  const body = [said, ...(lines.length ? [lines.join('\n')] : [])].filter(Boolean).join('\n\n');
  const full = `${speaking}${body}`;
  const images = o.vision ? files.filter((f) => f.image) : [];
  // A recording nobody could transcribe gives the model nothing to answer (a Slack clip is a webm video).
  const unheard = (f: InboxFile) =>
    !f.transcript && (f.family === 'audio' || f.kind === 'voice' || (f.kind === 'audio' && f.family === 'video'));
  const usable = files.some((f) => !unheard(f));
  return {
    text: full,
    parts: [
      { type: 'text', text: full },
      ...images.map((f): ContentPart => ({ type: 'image', mediaType: f.image!.mediaType, data: f.image!.data })),
    ],
    empty: said === '' && !usable,
  };
}

/** One line of the file list: where it is, what its bytes are, and what the model got of it. */
function describe(f: InboxFile, vision: boolean): string {
  const named = f.originalName && !f.path.endsWith(f.originalName) ? `, sent as "${f.originalName}"` : '';
  let what = '';
  if (f.image)
    what = vision ? ' — shown to you below' : ' — an image; you cannot see images, but tools can read the file';
  else if (f.family === 'image') what = ' — an image you are not shown; tools can read the file';
  else if (f.transcript) what = ` — ${f.kind === 'voice' ? 'a voice note' : 'audio'}, transcribed above`;
  else if (f.text) what = ` — its text is below${f.text.pages ? ` (${f.text.pages} pages)` : ''}`;
  else if (f.family === 'executable') what = ' — an executable program (not run)';
  if (f.unreadable) what += ` (${f.unreadable})`;
  return `${f.path} (${f.mimeType}, ${sizeOf(f.size)}${named})${what}`;
}

/** The history's copy of messages: image parts dropped (the turn's text names their paths). */
export function withoutImages(messages: Message[]): Message[] {
  return messages.map((m) => {
    if (!m.content.some((p) => p.type === 'image')) return m;
    const content = m.content.filter((p) => p.type !== 'image');
    return { ...m, content: content.length ? content : [{ type: 'text', text: '[image]' }] };
  });
}

/** The line an answer starts with when the prompt came from speech, so the user sees what was heard. */
export function transcriptNote(media: PreparedMedia | undefined): string {
  const heard = (media?.files ?? []).filter((f) => f.transcript).map((f) => f.transcript!);
  if (heard.length === 0) return '';
  const all = heard.join(' / ');
  const shown = all.length > 300 ? `${all.slice(0, 300)}…` : all;
  return `(Transcribed from your ${heard.length > 1 ? 'recordings' : 'voice note'}: "${shown}")\n\n`;
}
