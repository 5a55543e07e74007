// Inline keyboards, button presses and the command menu, as the Bot API has them: reply_markup
// checked and kept on the message, callback_query updates for presses of buttons that exist,
// answerCallbackQuery once per query (only the presser sees the text), setMyCommands/getMyCommands.
import type { Params } from './body.ts';
import { BotApiError } from './methods.ts';

/** One inline keyboard button as stored: its label and callback_data. */
export interface KeyboardButton {
  text: string;
  data: string;
}

/** An answer the bot gave to a press; only `userId` sees it. */
export interface CallbackAnswer {
  queryId: string;
  userId: string;
  text?: string;
  showAlert: boolean;
}

/** The keyboard in a reply_markup parameter, checked like the Bot API does; undefined when absent. */
export function keyboardOf(p: Params): KeyboardButton[][] | undefined {
  let markup = p.reply_markup;
  if (markup === undefined) return undefined;
  if (typeof markup === 'string') markup = JSON.parse(markup) as unknown;
  if (typeof markup !== 'object' || markup === null)
    throw new BotApiError(400, "Bad Request: can't parse reply keyboard markup JSON object");
  const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows))
    throw new BotApiError(400, 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array');
  return rows.map((row) => {
    if (!Array.isArray(row)) throw new BotApiError(400, 'Bad Request: inline keyboard row must be an Array');
    return row.map((b: { text?: unknown; callback_data?: unknown }) => {
      if (typeof b?.text !== 'string' || b.text === '')
        throw new BotApiError(400, 'Bad Request: text buttons are unallowed in the inline keyboard');
      if (typeof b.callback_data !== 'string' || Buffer.byteLength(b.callback_data) > 64 || b.callback_data === '')
        throw new BotApiError(400, 'Bad Request: BUTTON_DATA_INVALID');
      return { text: b.text, data: b.callback_data };
    });
  });
}

/** Pending callback queries and the answers given, per emulator. */
export class Callbacks {
  /** Answers given, in order. */
  readonly answers: CallbackAnswer[] = [];
  /** The command menu as last set (default scope). */
  commands: { command: string; description: string }[] = [];
  private readonly open = new Map<string, string>();
  private nextId = 1;

  /** A new callback query by `userId`; returns its id. */
  newQuery(userId: string): string {
    const id = `${Date.now().toString(16)}${(this.nextId++).toString(16).padStart(6, '0')}`;
    this.open.set(id, userId);
    return id;
  }

  /** answerCallbackQuery: a query is answered once; unknown or answered ids are refused as Telegram does. */
  answer(p: Params): true {
    const id = typeof p.callback_query_id === 'string' ? p.callback_query_id : undefined;
    const userId = id !== undefined ? this.open.get(id) : undefined;
    if (id === undefined || userId === undefined)
      throw new BotApiError(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
    this.open.delete(id);
    const text = typeof p.text === 'string' && p.text !== '' ? p.text : undefined;
    if (text !== undefined && text.length > 200) throw new BotApiError(400, 'Bad Request: MESSAGE_TOO_LONG');
    this.answers.push({ queryId: id, userId, ...(text ? { text } : {}), showAlert: p.show_alert === true });
    return true;
  }

  /** setMyCommands: 1-32 characters a-z 0-9 _ per command, 1-256 per description, at most 100. */
  setCommands(p: Params): true {
    const list = p.commands;
    if (!Array.isArray(list) || list.length > 100) throw new BotApiError(400, 'Bad Request: commands must be an array');
    const out = list.map((c: { command?: unknown; description?: unknown }) => {
      if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command))
        throw new BotApiError(400, 'Bad Request: BOT_COMMAND_INVALID');
      if (typeof c.description !== 'string' || c.description.length < 1 || c.description.length > 256)
        throw new BotApiError(400, 'Bad Request: BOT_COMMAND_DESCRIPTION_INVALID');
      return { command: c.command, description: c.description };
    });
    this.commands = out;
    return true;
  }
}
