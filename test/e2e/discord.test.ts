// Discord end to end: boxbot connects discord.js to the Discord emulator (gateway WebSocket and
// REST) and answers direct messages; every shared scenario runs.
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { wireMessage } from '../emulators/discord/store.ts';
import { type E2EChat, type PlatformDriver, platformScenarios } from './platform-scenarios.ts';

function discordDriver(): PlatformDriver {
  let emu: DiscordEmulator;
  /** Every text each bot message showed, by message id. */
  const history = new Map<string, string[]>();
  const chats = new Map<number, E2EChat>();
  const author = (chat: E2EChat) => ({
    channelId: chat.chatId,
    userId: chat.userId,
    userName: `user${chat.userId.slice(-2)}`,
  });
  return {
    platform: 'discord',
    overridesKey: 'channels',
    async setup() {
      emu = await startDiscordEmulator();
      emu.onBotMessage((m) => {
        const texts = history.get(m.id) ?? [];
        texts.push(m.content);
        history.set(m.id, texts);
      });
    },
    dm(n) {
      let chat = chats.get(n);
      if (!chat) {
        const userId = String(4_100_000_000_000_000 + n);
        const channel = emu.dmChannel(userId, `user${String(n).padStart(2, '0')}`);
        chats.set(n, (chat = { chatId: channel.id, userId, conversationKey: `discord:dm:${channel.id}` }));
      }
      return chat;
    },
    config: () => ({ channel: { restApi: emu.restApi } }),
    env: () => ({ DISCORD_BOT_TOKEN: emu.token }),
    async say(chat, text) {
      emu.userMessage({ ...author(chat), content: text });
    },
    async sayTwice(chat, text) {
      // A resumed session replays dispatches: the same MESSAGE_CREATE arrives again.
      const m = emu.userMessage({ ...author(chat), content: text });
      emu.gateway.dispatch('MESSAGE_CREATE', () => ({ ...wireMessage(m), channel_type: 1 }));
    },
    botFiles: (chat) =>
      emu
        .botMessages()
        .filter((m) => m.channel_id === chat.chatId)
        .flatMap((m) =>
          (m.uploads ?? []).map((u) => ({
            name: u.filename,
            bytes: u.bytes,
            ...(m.content ? { caption: m.content } : {}),
          })),
        ),
    botMessages: (chat) =>
      emu
        .botMessages()
        .filter((m) => m.channel_id === chat.chatId)
        .map((m) => ({ id: m.id, texts: history.get(m.id) ?? [m.content] })),
    rateLimitSends: (n) => emu.rateLimitNext(n, 300, { routes: ['send', 'edit'] }),
    async sendMalformed() {
      emu.gateway.sendDispatch('MESSAGE_CREATE', { id: 'not-a-snowflake', channel_id: 'nowhere', content: 42 });
      emu.gateway.sendDispatch('MESSAGE_CREATE', {
        id: '123',
        channel_id: '456',
        author: 'nobody',
        content: { text: 'x' },
      });
    },
    malformedLog: /malformed MESSAGE_CREATE/,
    close: () => emu.close(),
  };
}

platformScenarios(discordDriver());
