// The in-chat control scenarios on Telegram: boxbot long-polls the Telegram Bot API emulator;
// `/model x` is a native bot command typed as text, approvals show an inline keyboard, and a
// press (callback_query) by someone other than the approver is answered with a private alert.
import {
  type ChatInfo,
  startTelegramEmulator,
  type TelegramEmulator,
  type UserInfo,
} from '../emulators/telegram/index.ts';
import { controlScenarios } from './control-scenarios.ts';

let emu: TelegramEmulator;
const person = (id: number): UserInfo => ({ id, is_bot: false, first_name: `User${id}`, username: `user${id}` });
/** Another member of the chat, who is no approver. */
const OTHER = person(5999);

controlScenarios({
  platform: 'telegram',
  buttons: true,
  timeoutUser: '5900',
  async setup() {
    emu = await startTelegramEmulator();
  },
  config: () => ({ channel: { apiRoot: emu.apiRoot } }),
  env: () => ({ TELEGRAM_BOT_TOKEN: emu.token }),
  async open(_app, as) {
    const from = person(Number(as ?? 5100));
    const chat: ChatInfo = { id: from.id, type: 'private', first_name: from.first_name };
    const chatId = String(chat.id);
    const seen = emu.botMessages(chatId).length;
    return {
      conversationKey: `telegram:${chatId}`,
      say: async (text) => {
        emu.userMessage({ chat, from, text });
      },
      finals: () =>
        emu
          .botMessages(chatId)
          .slice(seen)
          .map((m) => m.text),
      async press(label, by = 'self') {
        const messages = [...(emu.chats.get(chatId)?.messages.values() ?? [])].reverse();
        for (const m of messages) {
          const button = m.keyboard?.flat().find((b) => b.text === label);
          if (!button) continue;
          emu.pressButton({ chat, from: by === 'self' ? from : OTHER, messageId: m.messageId, data: button.data });
          return;
        }
        throw new Error(`no ${label} button in chat ${chatId}`);
      },
      privateToOther: () =>
        emu.callbacks.answers.filter((a) => a.userId === String(OTHER.id) && a.showAlert).map((a) => a.text ?? ''),
      close: () => undefined,
    };
  },
  teardown: () => emu.close(),
});
