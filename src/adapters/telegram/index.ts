// Public names of the Telegram adapter.
export {
  createTelegramAdapter,
  TELEGRAM_CAPABILITIES,
  type TelegramAdapter,
  type TelegramAdapterOptions,
} from './adapter.ts';
export { escapeHtml, markdownToTelegramHtml, telegramRenderedLength } from './format.ts';
export { normalizeUpdate, type TelegramBotIdentity, updateIdOf } from './normalize.ts';
export { type BackoffOptions, TELEGRAM_OFFSET_KEY } from './poller.ts';
export { TELEGRAM_WEBHOOK_PATH } from './webhook.ts';
