// The Bot API methods the emulator answers besides getUpdates, with the real API's checks and
// error descriptions (chat not found, empty or too long text, message not modified, ...).
import { bool, int, type Params, str, upload } from './body.ts';
import { type MessageEntity, parseTelegramHtml } from './html.ts';
import type { TelegramEmulator } from './server.ts';

/** A refusal in the Bot API's shape (`error_code`, `description`, `parameters.retry_after`). */
export class BotApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

const ACTIONS = [
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
];
const MAX_TEXT = 4096;

/** Runs one method; returns the `result` or throws BotApiError. */
export function callMethod(emu: TelegramEmulator, method: string, p: Params): unknown {
  switch (method) {
    case 'getMe':
      return { ...emu.bot, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false };
    case 'sendMessage':
      return sendMessage(emu, p);
    case 'sendPhoto':
      return sendFile(emu, p, 'photo');
    case 'sendDocument':
      return sendFile(emu, p, 'document');
    case 'editMessageText':
      return editMessageText(emu, p);
    case 'sendChatAction': {
      const state = chatOf(emu, p);
      const action = str(p.action);
      if (!action || !ACTIONS.includes(action))
        throw new BotApiError(400, 'Bad Request: wrong parameter action in request');
      const threadId = int(p.message_thread_id);
      emu.actions.push({
        chatId: String(state.chat.id),
        ...(threadId !== undefined ? { threadId: String(threadId) } : {}),
        action,
      });
      return true;
    }
    case 'setWebhook': {
      const url = str(p.url) ?? '';
      if (url === '') {
        emu.setHook(undefined, bool(p.drop_pending_updates));
        return true;
      }
      if (!/^https?:\/\//.test(url))
        throw new BotApiError(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
      const secret = str(p.secret_token);
      if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
        throw new BotApiError(400, 'Bad Request: secret token contains unallowed characters');
      if (Array.isArray(p.allowed_updates)) emu.allowedUpdates = p.allowed_updates.map(String);
      emu.setHook({ url, ...(secret ? { secret } : {}) }, bool(p.drop_pending_updates));
      return true;
    }
    case 'getFile':
      return emu.files.getFile(p.file_id);
    case 'deleteWebhook':
      emu.setHook(undefined, bool(p.drop_pending_updates));
      return true;
    case 'getWebhookInfo':
      return {
        url: emu.hook?.url ?? '',
        has_custom_certificate: false,
        pending_update_count: emu.pendingUpdates(),
        ...(emu.allowedUpdates ? { allowed_updates: emu.allowedUpdates } : {}),
      };
    default:
      throw new BotApiError(404, 'Not Found');
  }
}

function chatOf(emu: TelegramEmulator, p: Params) {
  const id = str(p.chat_id);
  if (id === undefined || id === '') throw new BotApiError(400, 'Bad Request: chat_id is empty');
  const state = emu.chats.get(id);
  if (!state) throw new BotApiError(400, 'Bad Request: chat not found');
  return state;
}

/** Text and entities after parse_mode; the API's errors for empty, unparsable or too long text. */
function render(p: Params): { text: string; entities: MessageEntity[]; sentText: string; parseMode?: string } {
  const sentText = str(p.text);
  if (sentText === undefined || sentText === '') throw new BotApiError(400, 'Bad Request: message text is empty');
  const parseMode = str(p.parse_mode);
  let text = sentText;
  let entities: MessageEntity[] = Array.isArray(p.entities) ? (p.entities as MessageEntity[]) : [];
  if (parseMode !== undefined && parseMode !== '') {
    if (parseMode.toLowerCase() !== 'html') throw new BotApiError(400, 'Bad Request: unsupported parse_mode');
    const parsed = parseTelegramHtml(sentText);
    if (!parsed.ok) throw new BotApiError(400, parsed.error);
    ({ text, entities } = parsed);
  }
  if (text.trim() === '') throw new BotApiError(400, 'Bad Request: message text is empty');
  if (text.length > MAX_TEXT) throw new BotApiError(400, 'Bad Request: message is too long');
  return { text, entities, sentText, ...(parseMode ? { parseMode } : {}) };
}

function sendMessage(emu: TelegramEmulator, p: Params): unknown {
  const state = chatOf(emu, p);
  const body = render(p);
  let threadId = int(p.message_thread_id);
  if (threadId !== undefined && !state.chat.is_forum) threadId = undefined; // ignored outside forums
  if (threadId !== undefined && !state.topics.has(threadId))
    throw new BotApiError(400, 'Bad Request: message thread not found');
  const rp =
    typeof p.reply_parameters === 'object' && p.reply_parameters !== null ? (p.reply_parameters as Params) : {};
  let replyTo = int(rp.message_id) ?? int(p.reply_to_message_id);
  if (replyTo !== undefined && !state.messages.has(replyTo)) {
    if (!bool(rp.allow_sending_without_reply) && !bool(p.allow_sending_without_reply))
      throw new BotApiError(400, 'Bad Request: message to be replied not found');
    replyTo = undefined;
  }
  return emu.storeMessage(state.chat, emu.bot, {
    ...body,
    ...(threadId !== undefined ? { threadId } : {}),
    ...(replyTo !== undefined ? { replyTo } : {}),
  });
}

// The Bot API's upload limits: 10 MB for a photo, 50 MB for other files; 1,024 caption characters.
const MAX_PHOTO = 10 * 1024 * 1024;
const MAX_DOCUMENT = 50 * 1024 * 1024;
const MAX_CAPTION = 1024;
const IMAGE_MAGIC = [
  [0x89, 0x50, 0x4e, 0x47],
  [0xff, 0xd8, 0xff],
  [0x52, 0x49, 0x46, 0x46],
  [0x47, 0x49, 0x46],
];

/** sendPhoto / sendDocument with a multipart upload (file ids and URLs are not emulated). */
function sendFile(emu: TelegramEmulator, p: Params, kind: 'photo' | 'document'): unknown {
  const state = chatOf(emu, p);
  const value = p[kind];
  const file = upload(value);
  if (value === undefined || value === '')
    throw new BotApiError(400, `Bad Request: there is no ${kind} in the request`);
  if (!file) throw new BotApiError(400, 'Bad Request: wrong file identifier/HTTP URL specified');
  if (file.bytes.byteLength > (kind === 'photo' ? MAX_PHOTO : MAX_DOCUMENT))
    throw new BotApiError(413, 'Request Entity Too Large');
  if (kind === 'photo' && !IMAGE_MAGIC.some((m) => m.every((b, i) => file.bytes[i] === b)))
    throw new BotApiError(400, 'Bad Request: IMAGE_PROCESS_FAILED');
  const caption = str(p.caption) ?? '';
  if (caption.length > MAX_CAPTION) throw new BotApiError(400, 'Bad Request: message caption is too long');
  let threadId = int(p.message_thread_id);
  if (threadId !== undefined && !state.chat.is_forum) threadId = undefined;
  if (threadId !== undefined && !state.topics.has(threadId))
    throw new BotApiError(400, 'Bad Request: message thread not found');
  const rp =
    typeof p.reply_parameters === 'object' && p.reply_parameters !== null ? (p.reply_parameters as Params) : {};
  let replyTo = int(rp.message_id);
  if (replyTo !== undefined && !state.messages.has(replyTo)) replyTo = undefined;
  return emu.storeMessage(state.chat, emu.bot, {
    text: caption,
    entities: [],
    ...(threadId !== undefined ? { threadId } : {}),
    ...(replyTo !== undefined ? { replyTo } : {}),
    file: { kind, name: file.filename, contentType: file.contentType, bytes: file.bytes },
  });
}

function editMessageText(emu: TelegramEmulator, p: Params): unknown {
  if (p.inline_message_id !== undefined) throw new BotApiError(400, 'Bad Request: inline messages are not emulated');
  const state = chatOf(emu, p);
  const id = int(p.message_id);
  const m = id !== undefined ? state.messages.get(id) : undefined;
  if (!m) throw new BotApiError(400, 'Bad Request: message to edit not found');
  if (!m.fromBot) throw new BotApiError(400, "Bad Request: message can't be edited");
  const body = render(p);
  if (body.text === m.text && JSON.stringify(body.entities) === JSON.stringify(m.entities)) {
    throw new BotApiError(
      400,
      'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as ' +
        'a current content and reply markup of the message',
    );
  }
  m.text = body.text;
  m.entities = body.entities;
  m.sentText = body.sentText;
  if (body.parseMode) m.parseMode = body.parseMode;
  else delete m.parseMode;
  m.edits++;
  return emu.messageObject(state, m);
}
