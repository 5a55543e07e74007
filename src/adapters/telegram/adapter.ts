// The Telegram channel: grammY's API client against `apiRoot`, updates by long polling (default)
// or webhook, all entering through one `handleUpdate`; replies as Telegram HTML with a
// plain-text fallback; files as photos (images) or documents, uploaded multipart. Edits,
// channel posts and bots' messages are acknowledged and dropped.
// Buttons are an inline keyboard; their presses (callback queries) enter through handleUpdate too.
import { type ApiClientOptions, Bot, InputFile } from 'grammy';
import { type Logger, silentLogger } from '../../core/log.ts';
import { ButtonMemory } from '../button-memory.ts';
import type { ChannelObserver } from '../channel-event.ts';
import { AdapterApiError, AdapterError, alreadyStarted } from '../errors.ts';
import { type MarkupStyle, withMarkupFallback } from '../markup-fallback.ts';
import type {
  AdapterCapabilities,
  AdapterRoute,
  AdapterState,
  Button,
  ChannelAdapter,
  InboundSink,
  IntakeOptions,
  OutboundFile,
  OutboundTarget,
  SentMessage,
} from '../types.ts';
import { isNotModified, isParseError, scrub, toAdapterError } from './api.ts';
import { apiFetch } from './api-fetch.ts';
import { inlineKeyboard, PendingPresses } from './buttons.ts';
import { fetchTelegramFile } from './files.ts';
import { markdownToTelegramHtml, telegramRenderedLength } from './format.ts';
import { normalizeUpdate, type TelegramBotIdentity, updateIdOf } from './normalize.ts';
import { telegramChannelEvent } from './observe.ts';
import { type BackoffOptions, DEFAULT_BACKOFF, type Poller, startPoller } from './poller.ts';
import { WEBHOOK_SECRET, webhookRoute } from './webhook.ts';

/** What Telegram can do (Bot API limits: 4,096 characters, ~1 edit/s per chat, typing lasts 5 s). */
export const TELEGRAM_CAPABILITIES: AdapterCapabilities = Object.freeze({
  edit: true,
  typing: true,
  threads: true,
  maxTextLength: 4096,
  editIntervalMs: 1000,
  typingIntervalMs: 5000,
  renderedLength: telegramRenderedLength,
});

/** The update kinds requested: messages and button presses (edits and channel posts are not prompts). */
const ALLOWED_UPDATES = ['message', 'callback_query'];

/** Telegram's limit on the text of a callback query answer. */
const MAX_PRESS_ANSWER = 200;

/** Images Telegram shows as photos (up to 10 MB); anything else goes as a document. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
/** Telegram's caption limit. */
const MAX_CAPTION = 1024;

/** Options of createTelegramAdapter. */
export interface TelegramAdapterOptions {
  /** The bot token (from TELEGRAM_BOT_TOKEN); never logged. */
  token: string;
  /** Bot API root (a local Bot API server, or an emulator in tests). Default https://api.telegram.org. */
  apiRoot?: string;
  /** Persists the polling offset (`telegram.offset`). */
  state: AdapterState;
  logger?: Logger;
  /** `polling` (default) or `webhook` (needs `webhook`). */
  mode?: 'polling' | 'webhook';
  /**
   * Webhook mode: the public URL Telegram posts to (ending in /webhooks/telegram) and the secret token (1-256 of A-Z
   * a-z 0-9 _ -).
   */
  webhook?: { url: string; secret: string };
  /** Long-poll timeout of one getUpdates call, in seconds. Default 30. */
  pollTimeoutSeconds?: number;
  /** Waits after polling failures (409, network, 5xx). Default 1 s doubling to 5 s, jittered. */
  backoff?: Partial<BackoffOptions>;
  /**
   * How long after a button press was accepted the gateway may still answer it with text
   * (answerPress) before the press is answered empty so the button stops spinning. Default 8 s.
   */
  pressAnswerWindowMs?: number;
  /** Told of every group message and edit the bot sees (the channel log's recorder); edits are then fetched too. */
  observe?: ChannelObserver;
}

/** A Telegram ChannelAdapter that is also the one entry point for raw updates. */
export interface TelegramAdapter extends ChannelAdapter {
  /** Normalizes one raw update and hands it to the sink; rejects only when the sink rejected. */
  handleUpdate(update: unknown, intake?: IntakeOptions): Promise<void>;
}

/**
 * Creates the Telegram adapter.
 * @example createTelegramAdapter({ token: secrets.TELEGRAM_BOT_TOKEN!, state, logger })
 */
export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const { token, state } = options;
  const mode = options.mode ?? 'polling';
  const log = (options.logger ?? silentLogger).child({ scope: 'adapter:telegram' });
  if (!token) throw new AdapterError('telegram', 'config', 'no bot token (set TELEGRAM_BOT_TOKEN)');
  if (mode === 'webhook') {
    if (!options.webhook?.url)
      throw new AdapterError('telegram', 'config', 'webhook mode needs the public webhook URL');
    if (!WEBHOOK_SECRET.test(options.webhook.secret))
      throw new AdapterError(
        'telegram',
        'config',
        'webhook mode needs a secret of 1-256 characters A-Z a-z 0-9 _ - (set TELEGRAM_WEBHOOK_SECRET)',
      );
  }
  const apiRoot = (options.apiRoot ?? 'https://api.telegram.org').replace(/\/+$/, '');
  // grammY's calls go through apiFetch (api-fetch.ts), not node-fetch: same requests, less work per call.
  const bot = new Bot(token, { client: { apiRoot, fetch: apiFetch as unknown as ApiClientOptions['fetch'] } });
  const api = bot.api;
  const backoff: BackoffOptions = {
    initialMs: options.backoff?.initialMs ?? DEFAULT_BACKOFF.initialMs,
    maxMs: options.backoff?.maxMs ?? DEFAULT_BACKOFF.maxMs,
  };

  let me: TelegramBotIdentity | undefined;
  let sink: InboundSink | undefined;
  let poller: Poller | undefined;
  const keyboards = new ButtonMemory();
  const presses = new PendingPresses(options.pressAnswerWindowMs ?? 8000, async (queryId) => {
    try {
      await api.answerCallbackQuery(queryId);
    } catch (e) {
      log.debug({ err: toAdapterError(e, token).message }, 'could not acknowledge a button press');
    }
  });

  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw toAdapterError(e, token);
    }
  };

  // Recording channels needs their edits too (normalize.ts still drops them for the agent).
  const allowedUpdates = options.observe ? [...ALLOWED_UPDATES, 'edited_message'] : ALLOWED_UPDATES;

  async function handleUpdate(update: unknown, intake?: IntakeOptions): Promise<void> {
    const to = sink;
    // Not running: reject, so the update is not acknowledged and comes again after start.
    if (!me || !to) throw new AdapterError('telegram', 'not-running', 'the adapter is stopped');
    if (options.observe) {
      const event = telegramChannelEvent(update, me.id);
      if (event) options.observe(event);
    }
    const result = normalizeUpdate(update, me);
    if (result.kind !== 'message') {
      if (result.kind === 'malformed')
        log.warn({ updateId: updateIdOf(update), reason: result.reason }, 'malformed telegram update dropped');
      else log.debug({ updateId: updateIdOf(update), reason: result.reason }, 'telegram update ignored');
      // A press that goes nowhere (a game, an inline message) still stops spinning.
      const queryId = (update as { callback_query?: { id?: unknown } }).callback_query?.id;
      if (typeof queryId === 'string') presses.track(queryId, 0);
      return;
    }
    await to(result.message, intake);
    const handle = result.message.action?.handle;
    if (handle) presses.track(handle);
  }

  /** reply_markup of a send or edit: the buttons given, or on an edit those already there. */
  const markupOf = (chatId: string, messageId: string | undefined, buttons: Button[] | undefined) => {
    const shown = buttons ?? (messageId !== undefined ? keyboards.get(chatId, messageId) : undefined);
    return shown && (shown.length > 0 || buttons) ? { reply_markup: inlineKeyboard(shown) } : {};
  };

  const routes: AdapterRoute[] =
    mode === 'webhook' && options.webhook
      ? [webhookRoute({ secret: options.webhook.secret, log, running: () => sink !== undefined, handleUpdate })]
      : [];

  // Sent as HTML; when Telegram cannot parse it, once more as the text as is.
  const html: MarkupStyle = { render: markdownToTelegramHtml, refused: isParseError, log };

  return {
    platform: 'telegram',
    capabilities: TELEGRAM_CAPABILITIES,
    handleUpdate,

    async start(onMessage) {
      if (sink) throw alreadyStarted('telegram');
      const info = await call(() => api.getMe());
      me = { id: info.id, username: info.username };
      if (mode === 'webhook' && options.webhook) {
        await call(() =>
          api.setWebhook(options.webhook!.url, {
            secret_token: options.webhook!.secret,
            allowed_updates: allowedUpdates as never,
          }),
        );
        sink = onMessage;
        log.info({ bot: me.username, url: scrub(options.webhook.url, token) }, 'telegram webhook set');
        return;
      }
      // Polling and an active webhook exclude each other; pending updates are kept.
      await call(() => api.deleteWebhook({ drop_pending_updates: false }));
      sink = onMessage;
      try {
        poller = await startPoller({
          api,
          token,
          state,
          log,
          backoff,
          deliver: handleUpdate,
          timeoutSeconds: options.pollTimeoutSeconds ?? 30,
          allowedUpdates,
        });
      } catch (e) {
        sink = undefined;
        throw toAdapterError(e, token);
      }
      log.info({ bot: me.username }, 'telegram long polling started');
    },

    async stop() {
      const p = poller;
      poller = undefined;
      const stopped = p?.stop(); // aborts at once; waits for the update in hand
      sink = undefined;
      await stopped;
      await presses.flush();
    },

    async send(target, text, opts) {
      const chatId = chatIdOf(target);
      const thread = target.threadId ? { message_thread_id: Number(target.threadId) } : {};
      const reply = target.replyToMessageId
        ? { reply_parameters: { message_id: Number(target.replyToMessageId), allow_sending_without_reply: true } }
        : {};
      const keyboard = opts?.buttons?.length ? { reply_markup: inlineKeyboard(opts.buttons) } : {};
      const sent = await withMarkupFallback(html, text, opts, (body, markup) =>
        call(() =>
          api.sendMessage(chatId, body, {
            ...thread,
            ...reply,
            ...keyboard,
            ...(markup ? { parse_mode: 'HTML' as const } : {}),
          }),
        ),
      );
      if (opts?.buttons) keyboards.set(target.chatId, String(sent.message_id), opts.buttons);
      return { messageId: String(sent.message_id) } satisfies SentMessage;
    },

    async sendFile(target, file) {
      const chatId = chatIdOf(target);
      const extra = {
        ...(target.threadId ? { message_thread_id: Number(target.threadId) } : {}),
        ...(target.replyToMessageId
          ? { reply_parameters: { message_id: Number(target.replyToMessageId), allow_sending_without_reply: true } }
          : {}),
        ...(file.caption ? { caption: file.caption.slice(0, MAX_CAPTION) } : {}),
      };
      const document = () => call(() => api.sendDocument(chatId, inputFile(file), extra));
      if (!PHOTO_TYPES.has(file.mimeType) || file.bytes.byteLength > MAX_PHOTO_BYTES)
        return { messageId: String((await document()).message_id) };
      try {
        return { messageId: String((await call(() => api.sendPhoto(chatId, inputFile(file), extra))).message_id) };
      } catch (e) {
        // An image Telegram cannot process as a photo (dimensions, ratio) still reaches the user as a file.
        if (!(e instanceof AdapterApiError && e.status === 400 && /IMAGE|PHOTO/i.test(e.description))) throw e;
        log.debug({ err: e.description }, 'photo refused; sending it as a document');
        return { messageId: String((await document()).message_id) };
      }
    },

    async edit(target, messageId, text, opts) {
      const chatId = chatIdOf(target);
      // Without reply_markup Telegram removes the keyboard: an edit that names no buttons keeps them.
      const keyboard = markupOf(target.chatId, messageId, opts?.buttons);
      try {
        await withMarkupFallback(html, text, opts, (body, markup) =>
          call(() =>
            api.editMessageText(chatId, Number(messageId), body, {
              ...keyboard,
              ...(markup ? { parse_mode: 'HTML' as const } : {}),
            }),
          ),
        );
      } catch (e) {
        // Same text and buttons again: nothing to do.
        if (!(e instanceof AdapterError && isNotModified(e))) throw e;
      }
      if (opts?.buttons) keyboards.set(target.chatId, messageId, opts.buttons);
    },

    async sendPrivate(to, text) {
      // A user's private chat with the bot has the user's id.
      await call(() => api.sendMessage(to.userId, text, { link_preview_options: { is_disabled: true } }));
    },

    async typing(target) {
      const thread = target.threadId ? { message_thread_id: Number(target.threadId) } : {};
      await call(() => api.sendChatAction(chatIdOf(target), 'typing', thread));
    },

    routes: () => routes,

    async setCommands(commands) {
      await call(() =>
        api.setMyCommands(commands.map((c) => ({ command: c.name, description: describe(c.description, c.argument) }))),
      );
    },

    async answerPress(press, text) {
      const queryId = press.action?.handle;
      if (!queryId) throw new AdapterError('telegram', 'not-a-press', 'answerPress needs a button press');
      presses.take(queryId);
      await call(() => api.answerCallbackQuery(queryId, { text: text.slice(0, MAX_PRESS_ANSWER), show_alert: true }));
    },

    identity: () => (me ? { id: String(me.id), name: me.username } : undefined),

    fetchAttachment: (attachment, opts) => fetchTelegramFile({ api, apiRoot, token }, attachment, opts),
  };
}

/** A menu entry's description (1-256 characters), naming the argument the command takes. */
function describe(description: string, argument: { name: string } | undefined): string {
  const text = argument ? `${description} [${argument.name}]` : description;
  return (text.trim() || 'command').slice(0, 256);
}

/** The upload of one file; grammY refuses names with line breaks, and quotes are kept out of the header. */
function inputFile(file: OutboundFile): InputFile {
  return new InputFile(file.bytes, file.name.replace(/[\r\n"\\]/g, '_') || 'file');
}

/** Numeric chat ids go out as numbers, `@channelname` ids as strings. */
function chatIdOf(target: OutboundTarget): number | string {
  return /^-?\d{1,16}$/.test(target.chatId) ? Number(target.chatId) : target.chatId;
}
