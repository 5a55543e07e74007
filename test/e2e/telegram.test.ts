// Telegram end to end: boxbot long-polls the Telegram Bot API emulator through grammY (all
// scenarios); a second boxbot in webhook mode shows the emulator's redelivery answered once.
import { createServer } from 'node:net';
import {
  parseTelegramHtml,
  type RecordedCall,
  startTelegramEmulator,
  type TelegramEmulator,
} from '../emulators/telegram/index.ts';
import { until } from './harness.ts';
import { type E2EChat, type PlatformDriver, platformScenarios, type ShownMessage } from './platform-scenarios.ts';

const WEBHOOK_SECRET = 'e2e-webhook_secret-0123';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function telegramDriver(mode: 'polling' | 'webhook'): PlatformDriver {
  let emu: TelegramEmulator;
  let port = 0;
  const shown = (c: RecordedCall): string => {
    const parsed = c.params.parse_mode === 'HTML' ? parseTelegramHtml(String(c.params.text)) : undefined;
    return parsed?.ok ? parsed.text : String(c.params.text);
  };
  const ok = (c: RecordedCall, method: string, chat: E2EChat) =>
    c.method === method && c.status === 200 && String(c.params.chat_id) === chat.chatId;
  const person = (chat: E2EChat) => {
    const id = Number(chat.userId);
    return {
      chat: { id, type: 'private' as const, first_name: `User${id}` },
      from: { id, is_bot: false, first_name: `User${id}`, username: `user${id}` },
    };
  };
  return {
    platform: 'telegram',
    overridesKey: 'chats',
    async setup() {
      emu = await startTelegramEmulator();
      if (mode === 'webhook') port = await freePort();
    },
    dm(n) {
      const id = String(4100 + n);
      return { chatId: id, userId: id, conversationKey: `telegram:${id}` };
    },
    config() {
      if (mode === 'polling') return { channel: { apiRoot: emu.apiRoot } };
      return {
        channel: { apiRoot: emu.apiRoot, mode: 'webhook', webhookUrl: `http://127.0.0.1:${port}/webhooks/telegram` },
        top: { http: { port } },
      };
    },
    env: () => ({
      TELEGRAM_BOT_TOKEN: emu.token,
      ...(mode === 'webhook' ? { TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET } : {}),
    }),
    async say(chat, text) {
      emu.userMessage({ ...person(chat), text });
    },
    ...(mode === 'webhook'
      ? {
          async sayTwice(chat: E2EChat, text: string) {
            const update = emu.userMessage({ ...person(chat), text });
            emu.pushUpdate(update);
            const id = update.update_id as number;
            await until(
              () => emu.webhookAttempts.filter((a) => a.updateId === id && a.status === 200).length === 2,
              'both webhook deliveries answered',
            );
          },
        }
      : {}),
    botFiles: (chat) =>
      emu
        .botFiles(chat.chatId)
        .map((f) => ({ name: f.name, bytes: f.bytes, ...(f.caption ? { caption: f.caption } : {}) })),
    botMessages(chat): ShownMessage[] {
      const sends = emu.calls.filter((c) => ok(c, 'sendMessage', chat));
      return emu.botMessages(chat.chatId).map((m, i) => {
        const edits = emu.calls.filter(
          (c) => ok(c, 'editMessageText', chat) && String(c.params.message_id) === m.messageId,
        );
        const texts = [...(sends[i] ? [shown(sends[i])] : []), ...edits.map(shown)];
        if (texts.at(-1) !== m.text) texts.push(m.text);
        return { id: m.messageId, texts };
      });
    },
    rateLimitSends: (n) => emu.rateLimitNext(n, 1, ['sendMessage', 'editMessageText']),
    async sendMalformed() {
      emu.pushUpdate({ message: { message_id: 'x', chat: 'nope', text: 42 } });
    },
    malformedLog: /malformed telegram update dropped/,
    close: () => emu.close(),
  };
}

platformScenarios(telegramDriver('polling'));
platformScenarios(telegramDriver('webhook'), { only: ['duplicate'], label: 'webhook mode' });
