// The in-chat control scenarios on Telegram, in a private chat and in a supergroup: boxbot
// long-polls the Telegram Bot API emulator; `/model x` is a native bot command typed as text
// (`/model@bot x` in a group), approvals show an inline keyboard, and a press (callback_query) by
// another member of the chat, who is no approver, is answered with an alert only they see.
import {
  type ChatInfo,
  startTelegramEmulator,
  type TelegramEmulator,
  type UserInfo,
} from '../emulators/telegram/index.ts';
import { type ControlDriver, controlScenarios } from './control-scenarios.ts';

const person = (id: number): UserInfo => ({ id, is_bot: false, first_name: `User${id}`, username: `user${id}` });
/** Another member of the chat, who is no approver. */
const OTHER = person(5999);

function telegramControl(where: 'private' | 'group'): ControlDriver {
  let emu: TelegramEmulator;
  return {
    platform: 'telegram',
    ...(where === 'group' ? { label: 'group' } : {}),
    buttons: true,
    timeoutUser: '5900',
    async setup() {
      emu = await startTelegramEmulator();
    },
    config: () => ({ channel: { apiRoot: emu.apiRoot } }),
    env: () => ({ TELEGRAM_BOT_TOKEN: emu.token }),
    async open(_app, as) {
      const from = person(Number(as ?? 5100));
      // One supergroup per user, so each user's scenarios have a conversation of their own.
      const chat: ChatInfo =
        where === 'private'
          ? { id: from.id, type: 'private', first_name: from.first_name }
          : { id: -1_005_000_000_000 - from.id, type: 'supergroup', title: `Team of ${from.first_name}` };
      const chatId = String(chat.id);
      const seen = emu.botMessages(chatId).length;
      // In a group the bot is addressed: `/command@bot` or an @mention.
      const addressed = (text: string) => {
        if (where === 'private') return text;
        const command = /^\/(\w+)(.*)$/s.exec(text);
        return command ? `/${command[1]}@${emu.bot.username}${command[2]}` : `@${emu.bot.username} ${text}`;
      };
      return {
        conversationKey: `telegram:${chatId}`,
        say: async (text) => {
          emu.userMessage({ chat, from, text: addressed(text) });
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
  };
}

controlScenarios(telegramControl('private'));
controlScenarios(telegramControl('group'));
