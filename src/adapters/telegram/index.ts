// Public names of the Telegram adapter.
export { createTelegramAdapter, TELEGRAM_CAPABILITIES, type TelegramAdapter, type TelegramAdapterOptions } from './adapter.ts';
export { escapeHtml, markdownToTelegramHtml, telegramRenderedLength } from './format.ts';
export { normalizeUpdate, updateIdOf, type TelegramBotIdentity } from './normalize.ts';
export { TELEGRAM_OFFSET_KEY, type BackoffOptions } from './poller.ts';
export { TELEGRAM_WEBHOOK_PATH } from './webhook.ts';
