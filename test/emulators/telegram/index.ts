// The Telegram Bot API emulator: start it, point grammY's apiRoot at it, script users, inspect replies.

export { type EmulatedFile, EmulatedFiles, GET_FILE_LIMIT, type UserFileOptions } from './files.ts';
export { type HtmlParse, type MessageEntity, parseTelegramHtml } from './html.ts';
export { BotApiError } from './methods.ts';
export { startTelegramEmulator, TelegramEmulator } from './server.ts';
export type {
  ChatAction,
  ChatState,
  EmulatedMessage,
  Fault,
  RecordedCall,
  TelegramEmulatorOptions,
  UserMessageOptions,
} from './types.ts';
export { autoEntities, type ChatInfo, type UserInfo } from './updates.ts';
