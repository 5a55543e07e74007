// Building updates the way Telegram's servers do: message objects with the entities the server
// detects by itself (mentions, bot commands, URLs), in the shapes of the Bot API docs.
import type { MessageEntity } from './html.ts';

/** A chat as the Bot API describes it. */
export interface ChatInfo {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
  first_name?: string;
  is_forum?: boolean;
}

/** A user as the Bot API describes it. */
export interface UserInfo {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

const MENTION = /(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}(?![\w])/g;
const COMMAND = /(?<![\S])\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z][A-Za-z0-9_]{3,31})?(?![\w@])/g;
const URL_RE = /\bhttps?:\/\/[^\s<>"]+/g;

/** The entities Telegram's server would attach to `text` on its own. */
export function autoEntities(text: string): MessageEntity[] {
  const out: MessageEntity[] = [];
  for (const [re, type] of [
    [MENTION, 'mention'],
    [COMMAND, 'bot_command'],
    [URL_RE, 'url'],
  ] as const) {
    for (const m of text.matchAll(re)) out.push({ type, offset: m.index, length: m[0].length });
  }
  return out.sort((a, b) => a.offset - b.offset);
}
