// The buttons the bot put under its recent messages. SendOptions.buttons on an edit replaces
// them and an empty list removes them, so an edit that names none must keep them; Telegram
// (editMessageText without reply_markup) and Slack (new blocks for new text) drop them unless
// they are sent again, so those adapters remember what they sent.
import type { Button } from './types.ts';

/** The last buttons sent under each recent message (bounded: the oldest is forgotten first). */
export class ButtonMemory {
  private readonly byMessage = new Map<string, Button[]>();

  constructor(private readonly capacity = 2000) {}

  /** Records the buttons now under `chatId`/`messageId` (an empty list forgets them). */
  set(chatId: string, messageId: string, buttons: Button[]): void {
    const key = `${chatId}:${messageId}`;
    this.byMessage.delete(key);
    if (buttons.length === 0) return;
    this.byMessage.set(key, buttons);
    if (this.byMessage.size > this.capacity) {
      const oldest = this.byMessage.keys().next().value;
      if (oldest !== undefined) this.byMessage.delete(oldest);
    }
  }

  /** The buttons under a message, if the bot put some there recently. */
  get(chatId: string, messageId: string): Button[] | undefined {
    return this.byMessage.get(`${chatId}:${messageId}`);
  }
}
