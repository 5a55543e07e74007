// The in-chat control scenarios on Discord: boxbot connects discord.js to the Discord emulator;
// /model, /status and /usage run as application commands (INTERACTION_CREATE), approvals show
// button components, and a press by someone other than the approver gets an ephemeral refusal.
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { controlScenarios } from './control-scenarios.ts';
import { until } from './harness.ts';

let emu: DiscordEmulator;
const USER = '4200000000000000001';
/** Another member of the chat, who is no approver. */
const OTHER = '4200000000000000999';

controlScenarios({
  platform: 'discord',
  buttons: true,
  timeoutUser: '4200000000000000002',
  async setup() {
    emu = await startDiscordEmulator();
  },
  config: () => ({ channel: { restApi: emu.restApi } }),
  env: () => ({ DISCORD_BOT_TOKEN: emu.token }),
  async open(_app, as) {
    const userId = as ?? USER;
    const channel = emu.dmChannel(userId, `user${userId.slice(-2)}`);
    emu.dmChannel(OTHER, 'other');
    const mine = () => emu.botMessages().filter((m) => m.channel_id === channel.id);
    const seen = mine().length;
    return {
      conversationKey: `discord:dm:${channel.id}`,
      say: async (text) => {
        emu.userMessage({ channelId: channel.id, userId, userName: `user${userId.slice(-2)}`, content: text });
      },
      async command(name, arg) {
        // The bot registers its commands when it connects.
        await until(() => emu.interactions.commands.some((c) => c.name === name), `the /${name} command registered`);
        emu.interactions.runCommand({ channelId: channel.id, userId, name, ...(arg ? { value: arg } : {}) });
      },
      finals: () =>
        mine()
          .slice(seen)
          .map((m) => m.content),
      async press(label, by = 'self') {
        for (const m of mine().reverse()) {
          const button = (m.components ?? [])
            .flatMap((row) => (row as { components?: { custom_id?: string; label?: string }[] }).components ?? [])
            .find((b) => b.label === label && b.custom_id);
          if (!button) continue;
          emu.interactions.press({
            messageId: m.id,
            customId: button.custom_id!,
            userId: by === 'self' ? userId : OTHER,
          });
          return;
        }
        throw new Error(`no ${label} button in channel ${channel.id}`);
      },
      privateToOther: () => emu.interactions.ephemeral.filter((e) => e.userId === OTHER).map((e) => e.content),
      close: () => undefined,
    };
  },
  teardown: () => emu.close(),
});
