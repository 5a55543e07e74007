// Slack end to end: boxbot connects @slack/socket-mode and @slack/web-api to the Slack emulator
// and answers direct messages; every shared scenario runs (a redelivered envelope included).
import { unescapeSlackText } from '../../src/adapters/slack/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { eventCallback } from '../emulators/slack/payloads.ts';
import { until } from './harness.ts';
import { type E2EChat, type PlatformDriver, platformScenarios } from './platform-scenarios.ts';

function slackDriver(): PlatformDriver {
  let emu: SlackEmulator;
  const post = (chat: E2EChat, text: string) => emu.userSays({ channel: chat.chatId, user: chat.userId, text });
  return {
    platform: 'slack',
    overridesKey: 'channels',
    async setup() {
      emu = await startSlackEmulator({ delivery: 'socket' });
    },
    dm(n) {
      const id = String(n).padStart(4, '0');
      const userId = `U0E2E${id}`;
      emu.workspace.addUser(userId, `user${id}`);
      return { chatId: `D0E2E${id}`, userId, conversationKey: `slack:${emu.ids.teamId}:D0E2E${id}` };
    },
    config: () => ({ channel: { apiUrl: emu.apiUrl, mode: 'socket' } }),
    env: () => ({ SLACK_BOT_TOKEN: emu.botToken, SLACK_APP_TOKEN: emu.appToken }),
    async say(chat, text) {
      await post(chat, text);
    },
    async sayTwice(chat, text) {
      // Slack redelivers an event (same event_id) when it thinks the first did not arrive.
      const first = (await post(chat, text)).socket[0]!;
      await emu.deliverBody(first.payload);
      await until(
        () => emu.link.envelopes.filter((e) => e.eventId === first.eventId && e.acked).length === 2,
        'both deliveries acknowledged',
      );
    },
    botFiles: (chat) =>
      emu
        .botFiles()
        .filter((f) => f.channel === chat.chatId)
        .map((f) => ({ name: f.name, bytes: f.bytes, ...(f.comment ? { caption: f.comment } : {}) })),
    botMessages: (chat) =>
      emu
        .botMessages()
        .filter((m) => m.channel === chat.chatId)
        .map((m) => {
          const updates = emu.api.calls.filter(
            (c) => c.method === 'chat.update' && c.params.channel === chat.chatId && c.params.ts === m.ts,
          );
          const texts = [String(m.params?.text ?? ''), ...updates.map((c) => String(c.params.text ?? ''))].map(
            unescapeSlackText,
          );
          if (texts.at(-1) !== unescapeSlackText(m.text)) texts.push(unescapeSlackText(m.text));
          return { id: m.ts, texts };
        }),
    rateLimitSends: (n) => emu.rateLimitNext(n, 1),
    async sendMalformed() {
      await emu.deliverBody(
        eventCallback(emu.ids, { type: 'message', channel: 42, user: null, text: { bold: true }, ts: [] }),
      );
    },
    malformedLog: /malformed Slack event/,
    close: () => emu.close(),
  };
}

platformScenarios(slackDriver());
