// The in-chat control scenarios on Discord, in a DM and in a server channel: boxbot connects
// discord.js to the Discord emulator; /model, /status and /usage run as application commands
// (INTERACTION_CREATE), approvals show button components, and a press by another member of the
// chat, who is no approver, gets an ephemeral refusal.
import { type DiscordEmulator, type EmuChannel, startDiscordEmulator } from '../emulators/discord/index.ts';
import { type ControlDriver, controlScenarios } from './control-scenarios.ts';
import { until } from './harness.ts';

const USER = '4200000000000000001';
/** Another member of the chat, who is no approver. */
const OTHER = '4200000000000000999';

const TIMEOUT_USER = '4200000000000000002';

function discordControl(where: 'dm' | 'server'): ControlDriver {
  let emu: DiscordEmulator;
  /** Server mode: one channel per user, so each user's scenarios have a conversation of their own. */
  const channels = new Map<string, EmuChannel>();
  return {
    platform: 'discord',
    ...(where === 'server' ? { label: 'server channel' } : {}),
    buttons: true,
    timeoutUser: TIMEOUT_USER,
    async setup() {
      emu = await startDiscordEmulator();
      if (where === 'server') {
        const { guild, channel } = emu.addGuild('control', 'general');
        channels.set(USER, channel);
        channels.set(TIMEOUT_USER, emu.addChannel(guild.id, 'slow'));
      }
    },
    config: () => ({ channel: { restApi: emu.restApi } }),
    env: () => ({ DISCORD_BOT_TOKEN: emu.token }),
    async open(_app, as) {
      const userId = as ?? USER;
      const channel = where === 'dm' ? emu.dmChannel(userId, `user${userId.slice(-2)}`) : channels.get(userId)!;
      const mine = () => emu.botMessages().filter((m) => m.channel_id === channel.id);
      const seen = mine().length;
      return {
        conversationKey: `discord:${channel.guild_id ?? 'dm'}:${channel.id}`,
        say: async (text) => {
          emu.userMessage({
            channelId: channel.id,
            userId,
            userName: `user${userId.slice(-2)}`,
            content: text,
            mentionBot: where === 'server',
          });
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
  };
}

controlScenarios(discordControl('dm'));
controlScenarios(discordControl('server'));
