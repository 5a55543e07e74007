// Telegram updates → ChannelEvents for the channel log: group and supergroup messages (addressed
// to the bot or not; forum topics as threads) and their edits (`edited_message`). Telegram reports
// no deletions to bots, and sends a group's every message only with privacy mode off or the bot
// an admin (`boxbot doctor` says which). Private chats are never observed.
import type { ChannelEvent } from '../channel-event.ts';
import { encodeConversationKey } from '../conversation-key.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const time = (seconds: unknown): string | undefined =>
  typeof seconds === 'number' && Math.abs(seconds) <= 8.64e12 ? new Date(seconds * 1000).toISOString() : undefined;

/** The channel event of one update, or undefined when it is none (`botId`: the bot's own are skipped). */
export function telegramChannelEvent(update: unknown, botId: number): ChannelEvent | undefined {
  if (!isObj(update)) return undefined;
  const edited = isObj(update.edited_message);
  const m = edited ? update.edited_message : update.message;
  if (!isObj(m) || !isObj(m.chat) || !isInt(m.chat.id) || !isInt(m.message_id)) return undefined;
  if (m.chat.type !== 'group' && m.chat.type !== 'supergroup') return undefined;
  const from = m.from;
  if (!isObj(from) || !isInt(from.id) || from.id === botId) return undefined;
  const at = time(m.date);
  if (!at) return undefined;
  const text = typeof m.text === 'string' ? m.text : typeof m.caption === 'string' ? m.caption : '';
  const files = fileNames(m);
  if (!text && !files.length) return undefined; // a service message (joins, pins) or a sticker
  const topic = m.is_topic_message === true && isInt(m.message_thread_id) ? String(m.message_thread_id) : undefined;
  const channel = encodeConversationKey({ platform: 'telegram', chatId: String(m.chat.id) });
  const base = {
    channel,
    messageId: String(m.message_id),
    ...(topic ? { threadId: topic } : {}),
    at,
    userId: String(from.id),
    userName: nameOf(from),
    text,
    files,
  };
  if (!edited) return { kind: 'message', ...base };
  return { kind: 'edit', ...base, editedAt: time(m.edit_date) ?? new Date().toISOString() };
}

function nameOf(from: Obj): string {
  const full = [from.first_name, from.last_name]
    .filter((p): p is string => typeof p === 'string' && p !== '')
    .join(' ');
  if (full) return full;
  return typeof from.username === 'string' && from.username ? from.username : String(from.id);
}

function fileNames(m: Obj): string[] {
  const out: string[] = [];
  const add = (f: unknown, fallback: string): void => {
    if (isObj(f)) out.push(typeof f.file_name === 'string' && f.file_name ? f.file_name : fallback);
  };
  if (Array.isArray(m.photo) && m.photo.length > 0) add(m.photo[m.photo.length - 1], 'photo.jpg');
  add(m.document, 'document');
  add(m.audio, 'audio');
  add(m.voice, 'voice.ogg');
  add(m.video, 'video.mp4');
  add(m.video_note, 'video-note.mp4');
  add(m.animation, 'animation.mp4');
  return out;
}
