// Telegram Update → InboundMessage. Pure and defensive: the payload is untrusted JSON, so every
// field is checked; a bad update becomes `malformed` (logged and dropped by the adapter), an
// update boxbot does not act on becomes `ignored`. Nothing here throws.
import { encodeConversationKey } from '../conversation-key.ts';
import { platformOrder } from '../platform-order.ts';
import type { Attachment, AttachmentKind, InboundMessage, NormalizeResult } from '../types.ts';

/** The bot's own identity (from getMe), needed to recognise mentions and replies to it. */
export interface TelegramBotIdentity {
  id: number;
  username: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
// Unix seconds a Date can hold (±8.64e15 ms): a later `date` would make toISOString throw.
const isUnixTime = (v: unknown): v is number => typeof v === 'number' && Math.abs(v) <= 8.64e12;

/** The update's `update_id` when it has a valid one (used to acknowledge even dropped updates). */
export function updateIdOf(update: unknown): number | undefined {
  return isObj(update) && isInt(update.update_id) && update.update_id >= 0 ? update.update_id : undefined;
}

// Update kinds boxbot does not turn into prompts. Edits would re-run a question the agent may
// already be answering; channel posts have no user to answer to. Both are acknowledged and dropped.
// Messages from bots (`from.is_bot`) are dropped too; that includes anonymous group admins, whom
// Telegram presents as @GroupAnonymousBot. In groups a bare `/command` is not taken as addressed
// to this bot (several bots may share the group); `/command@thisbot` is.
const IGNORED_KINDS = [
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_message',
  'edited_business_message',
  'inline_query',
  'my_chat_member',
  'chat_member',
  'message_reaction',
];

/**
 * Normalizes one Telegram update. Private chats are direct; groups and supergroups carry
 * `mentionsBot` (an @mention or text mention of the bot, a reply to the bot, or
 * `/command@botname`; in private chats also a bare `/command`), and the mention is removed from
 * the text. Forum topic messages get the topic as thread: `telegram:<chatId>:<topicId>`.
 */
export function normalizeUpdate(update: unknown, bot: TelegramBotIdentity): NormalizeResult {
  const updateId = updateIdOf(update);
  if (updateId === undefined || !isObj(update)) return { kind: 'malformed', reason: 'no valid update_id' };
  if ('callback_query' in update) return normalizeCallbackQuery(update, updateId, bot);
  if (!('message' in update)) {
    const kind = Object.keys(update).find((k) => k !== 'update_id');
    if (kind === undefined) return { kind: 'malformed', reason: 'update without content' };
    return {
      kind: 'ignored',
      reason: IGNORED_KINDS.includes(kind) ? `${kind} updates are not handled` : `unsupported update type ${kind}`,
    };
  }
  const m = update.message;
  if (!isObj(m)) return { kind: 'malformed', reason: 'message is not an object' };
  const chat = m.chat;
  if (!isInt(m.message_id) || !isUnixTime(m.date) || !isObj(chat) || !isInt(chat.id) || typeof chat.type !== 'string') {
    return { kind: 'malformed', reason: 'message lacks message_id, date or chat' };
  }
  const from = m.from;
  if (from === undefined) return { kind: 'ignored', reason: 'message without a sender' };
  if (!isObj(from) || !isInt(from.id)) return { kind: 'malformed', reason: 'message sender is invalid' };
  if (from.is_bot === true) return { kind: 'ignored', reason: 'sent by a bot' };

  const rawText = m.text ?? m.caption;
  if (rawText !== undefined && typeof rawText !== 'string')
    return { kind: 'malformed', reason: 'text is not a string' };
  const text = rawText ?? '';
  const attachments = attachmentsOf(m);
  if (text === '' && attachments.length === 0)
    return { kind: 'ignored', reason: 'no text or file (service message or sticker)' };

  const isDirect = chat.type === 'private';
  const entities = entitiesOf(m.text !== undefined ? m.entities : m.caption_entities, text.length);
  const { mentioned, cuts } = mentionsOf(text, entities, bot, isDirect);
  const threadId = threadOf(m);

  const message: InboundMessage = {
    ...origin(bot, updateId, chat.id, threadId),
    messageId: String(m.message_id),
    userId: String(from.id),
    userName: nameOf(from),
    text: cut(text, cuts),
    isDirect,
    mentionsBot: mentioned || repliesToBot(m, bot, threadId),
    attachments,
    receivedAt: new Date(m.date * 1000).toISOString(),
    raw: update,
  };
  return { kind: 'message', message };
}

/**
 * A press of an inline keyboard button: an InboundMessage with empty text and `action` (the
 * button's callback_data, the message it was under, and the callback query id to answer). The id
 * is the update's, like a message's, so a redelivered update is dropped the same way.
 */
function normalizeCallbackQuery(update: Obj, updateId: number, bot: TelegramBotIdentity): NormalizeResult {
  const q = update.callback_query;
  if (!isObj(q) || typeof q.id !== 'string' || !isObj(q.from) || !isInt(q.from.id))
    return { kind: 'malformed', reason: 'callback_query lacks id or from' };
  if (q.from.is_bot === true) return { kind: 'ignored', reason: 'pressed by a bot' };
  if (typeof q.data !== 'string') return { kind: 'ignored', reason: 'callback_query without data (a game)' };
  const m = q.message;
  // Buttons under inline-mode messages come without the message: there is no chat to answer in.
  if (!isObj(m)) return { kind: 'ignored', reason: 'callback_query without a message (inline mode)' };
  const chat = m.chat;
  if (!isInt(m.message_id) || !isObj(chat) || !isInt(chat.id) || typeof chat.type !== 'string')
    return { kind: 'malformed', reason: 'callback_query message lacks message_id or chat' };
  const message: InboundMessage = {
    ...origin(bot, updateId, chat.id, threadOf(m)),
    userId: String(q.from.id),
    userName: nameOf(q.from),
    text: '',
    isDirect: chat.type === 'private',
    // Only this bot's buttons produce its callback queries: a press is always addressed to it.
    mentionsBot: true,
    attachments: [],
    action: { id: q.data, messageId: String(m.message_id), handle: q.id },
    receivedAt: new Date().toISOString(),
    raw: update,
  };
  return { kind: 'message', message };
}

/** The forum topic a message is in, if any. */
function threadOf(m: Obj): string | undefined {
  return m.is_topic_message === true && isInt(m.message_thread_id) ? String(m.message_thread_id) : undefined;
}

/** Where an update came from: its id (the update's, so a redelivered one is dropped), chat and topic. */
function origin(
  bot: TelegramBotIdentity,
  updateId: number,
  chatNumber: number,
  threadId: string | undefined,
): Pick<InboundMessage, 'id' | 'platform' | 'conversationKey' | 'chatId' | 'threadId' | 'order'> {
  const chatId = String(chatNumber);
  const order = platformOrder(updateId);
  return {
    id: `telegram:${bot.id}:${updateId}`,
    platform: 'telegram',
    ...(order ? { order } : {}),
    conversationKey: encodeConversationKey({ platform: 'telegram', chatId, ...(threadId ? { threadId } : {}) }),
    chatId,
    ...(threadId ? { threadId } : {}),
  };
}

interface Entity {
  type: string;
  offset: number;
  length: number;
  userId?: number;
}

/** Valid entities only (offsets are UTF-16 code units, as JS strings count). */
function entitiesOf(raw: unknown, textLength: number): Entity[] {
  if (!Array.isArray(raw)) return [];
  const out: Entity[] = [];
  for (const e of raw) {
    if (!isObj(e) || typeof e.type !== 'string' || !isInt(e.offset) || !isInt(e.length)) continue;
    if (e.offset < 0 || e.length <= 0 || e.offset + e.length > textLength) continue;
    const userId = isObj(e.user) && isInt(e.user.id) ? e.user.id : undefined;
    out.push({ type: e.type, offset: e.offset, length: e.length, ...(userId !== undefined ? { userId } : {}) });
  }
  return out;
}

/** Whether the bot is addressed, and the spans to remove from the text. */
function mentionsOf(
  text: string,
  entities: Entity[],
  bot: TelegramBotIdentity,
  isDirect: boolean,
): { mentioned: boolean; cuts: [number, number][] } {
  const handle = `@${bot.username.toLowerCase()}`;
  let mentioned = false;
  const cuts: [number, number][] = [];
  for (const e of entities) {
    const span = text.slice(e.offset, e.offset + e.length);
    if (e.type === 'mention' && span.toLowerCase() === handle) {
      mentioned = true;
      cuts.push([e.offset, e.offset + e.length]);
    } else if (e.type === 'text_mention' && e.userId === bot.id) {
      mentioned = true;
      cuts.push([e.offset, e.offset + e.length]);
    } else if (e.type === 'bot_command') {
      const at = span.indexOf('@');
      if (at < 0) mentioned ||= isDirect;
      else if (span.slice(at).toLowerCase() === handle) {
        mentioned = true;
        cuts.push([e.offset + at, e.offset + e.length]); // keep `/command`, drop `@botname`
      }
    }
  }
  return { mentioned, cuts };
}

/**
 * A reply to one of the bot's messages. In forum topics every message "replies" to the topic's creation message; that
 * is not a reply.
 */
function repliesToBot(m: Obj, bot: TelegramBotIdentity, threadId: string | undefined): boolean {
  const r = m.reply_to_message;
  if (!isObj(r) || !isObj(r.from) || r.from.id !== bot.id) return false;
  if (threadId !== undefined && (String(r.message_id) === threadId || r.forum_topic_created !== undefined))
    return false;
  return true;
}

/** Removes the spans and mends the seams (`@bot, do x` → `do x`; `hey @bot how` → `hey how`). */
function cut(text: string, cuts: [number, number][]): string {
  let out = text;
  for (const [start, end] of [...cuts].sort((a, b) => b[0] - a[0])) {
    const left = out.slice(0, start).replace(/[ \t]+$/, '');
    let right = out.slice(end);
    if (left.trim() === '') right = right.replace(/^[,:;]/, '');
    right = right.replace(/^[ \t]+/, '');
    const glue = left === '' || right === '' || /^[\s,.:;!?)]/.test(right) || /\s$/.test(left) ? '' : ' ';
    out = left + glue + right;
  }
  return out.trim();
}

function nameOf(from: Obj): string {
  if (typeof from.username === 'string' && from.username) return from.username;
  const full = [from.first_name, from.last_name]
    .filter((p): p is string => typeof p === 'string' && p !== '')
    .join(' ');
  return full || String(from.id);
}

/** Files on the message; ids are Telegram `file_id`s (fetched later with getFile; no URL, it would carry the token). */
function attachmentsOf(m: Obj): Attachment[] {
  const out: Attachment[] = [];
  const add = (f: unknown, kind: AttachmentKind, fallbackName?: string): void => {
    if (!isObj(f) || typeof f.file_id !== 'string') return;
    const name = typeof f.file_name === 'string' ? f.file_name : fallbackName;
    out.push({
      id: f.file_id,
      kind,
      ...(name ? { name } : {}),
      ...(typeof f.mime_type === 'string' ? { mimeType: f.mime_type } : {}),
      ...(isInt(f.file_size) ? { size: f.file_size } : {}),
    });
  };
  // sizes ascend: take the largest
  if (Array.isArray(m.photo) && m.photo.length > 0) add(m.photo[m.photo.length - 1], 'image', 'photo.jpg');
  add(m.document, 'document');
  add(m.audio, 'audio');
  add(m.voice, 'voice', 'voice.ogg');
  add(m.video, 'video');
  add(m.video_note, 'video', 'video-note.mp4');
  add(m.animation, 'video');
  return out;
}
