// The Discord adapter wired to a running emulator: the contract's AdapterHarness plus the
// handles the Discord-specific tests use.
import { createDiscordAdapter, type DiscordAdapterOptions } from '../../src/adapters/discord/index.ts';
import type { ChannelAdapter } from '../../src/adapters/index.ts';
import {
  type DiscordEmulator,
  type DiscordEmulatorOptions,
  type EmuChannel,
  type EmuGuild,
  startDiscordEmulator,
} from '../emulators/discord/index.ts';
import type { AdapterHarness, EmulatedBotMessage } from './contract.ts';

/** A harness with the emulator and its first guild, channel and DM channel exposed. */
export interface DiscordHarness extends AdapterHarness {
  emu: DiscordEmulator;
  guild: EmuGuild;
  channel: EmuChannel;
  dm: EmuChannel;
  adapter: ChannelAdapter;
}

/** Starts an emulator with one guild (#general) and a DM channel for user 4242, and an adapter pointed at it. */
export async function discordHarness(
  opts: { emulator?: DiscordEmulatorOptions; adapter?: Partial<DiscordAdapterOptions> } = {},
): Promise<DiscordHarness> {
  const emu = await startDiscordEmulator(opts.emulator);
  const { guild, channel } = emu.addGuild('boxbot test', 'general');
  const dm = emu.dmChannel('4242', 'ada');
  const adapter = createDiscordAdapter({ token: emu.token, restApi: emu.restApi, ...opts.adapter });
  const key = (c: EmuChannel) => (c.guild_id ? `discord:${c.guild_id}:${c.id}` : `discord:dm:${c.id}`);
  return {
    emu,
    guild,
    channel,
    dm,
    adapter,
    async userSays(o) {
      let channelId = o.direct ? dm.id : channel.id;
      if (o.threadId && !o.direct)
        channelId = emu.world.channels.get(o.threadId)?.id ?? emu.addThread(channel.id, 'thread', o.threadId).id;
      emu.userMessage({
        channelId,
        content: o.text,
        userId: o.userId ?? (o.fromBot ? '5555' : '4242'),
        userName: o.userName ?? (o.fromBot ? 'otherbot' : 'ada'),
        ...(o.fromBot ? { bot: true } : {}),
        ...(o.mention ? { mentionBot: true } : {}),
      });
    },
    async userSendsFile(f) {
      emu.userFile({
        channelId: dm.id,
        filename: f.name,
        contentType: f.mimeType,
        bytes: f.bytes,
        ...(f.caption ? { content: f.caption } : {}),
        ...(f.kind === 'voice' ? { voice: true } : {}),
      });
    },
    async sendMalformed() {
      emu.gateway.sendDispatch('MESSAGE_CREATE', { id: 'not-a-snowflake', channel_id: dm.id, content: 42 });
    },
    directTarget: () => ({ chatId: dm.id, conversationKey: key(dm) }),
    groupTarget: () => ({ chatId: channel.id, conversationKey: key(channel) }),
    botMessages(): EmulatedBotMessage[] {
      return emu.botMessages().map((m) => {
        const ch = emu.world.channels.get(m.channel_id);
        const thread = ch?.parent_id !== undefined;
        return {
          chatId: thread ? ch!.parent_id! : m.channel_id,
          ...(thread ? { threadId: m.channel_id } : {}),
          messageId: m.id,
          text: m.content,
          edits: m.edits,
        };
      });
    },
    typingCount: () => emu.typing.length,
    rateLimitNext: (n, ms) => emu.rateLimitNext(n, ms),
    botFiles: () =>
      emu.botMessages().flatMap((m) =>
        (m.uploads ?? []).map((u) => ({
          chatId: m.channel_id,
          messageId: m.id,
          name: u.filename,
          bytes: u.bytes,
          ...(m.content ? { caption: m.content } : {}),
          // Discord shows an image attachment inline by its content type.
          shownAs: u.contentType.startsWith('image/') ? ('image' as const) : ('file' as const),
        })),
      ),
    rateLimitFilesNext: (n, ms) => emu.rateLimitNext(n, ms),
    close: () => emu.close(),
  };
}
