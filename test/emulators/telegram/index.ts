// The Telegram Bot API emulator: start it, point grammY's apiRoot at it, script users, inspect replies.
export { startTelegramEmulator, TelegramEmulator, type ChatAction, type ChatState, type EmulatedMessage, type Fault, type RecordedCall, type TelegramEmulatorOptions, type UserMessageOptions } from './server.ts';
export { autoEntities, type ChatInfo, type UserInfo } from './updates.ts';
export { parseTelegramHtml, type HtmlParse, type MessageEntity } from './html.ts';
export { BotApiError } from './methods.ts';
