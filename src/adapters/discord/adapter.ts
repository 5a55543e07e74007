// The Discord channel, wired from its parts: the gateway connection (connection.ts), inbound
// messages in order per channel (intake.ts), slash commands and buttons (slash-commands.ts),
// catch-up and channel-log history reads (backfill.ts) and what the bot posts (outbound.ts),
// all sharing one adapter's state (runtime.ts). Every message and upload carries a nonce from
// the caller's idempotency key.
import type { ChannelAdapter } from '../types.ts';
import { createBackfill } from './backfill.ts';
import { createConnection } from './connection.ts';
import { fetchDiscordFile } from './files.ts';
import { createIntake } from './intake.ts';
import { createOutbound } from './outbound.ts';
import { createDiscordRuntime, DISCORD_CAPABILITIES, type DiscordAdapterOptions } from './runtime.ts';
import { createSlashCommands } from './slash-commands.ts';

export { DISCORD_CAPABILITIES, type DiscordAdapterOptions } from './runtime.ts';

/**
 * Creates the Discord adapter.
 * @example
 *   const discord = createDiscordAdapter({ token: secrets.DISCORD_BOT_TOKEN!, logger });
 *   await discord.start(async (m) => gateway.accept(m));
 */
export function createDiscordAdapter(options: DiscordAdapterOptions): ChannelAdapter {
  const rt = createDiscordRuntime(options);
  const intake = createIntake(rt);
  const slash = createSlashCommands(rt);
  const backfill = createBackfill(rt, intake);
  const { start, stop } = createConnection(rt, { intake, slash, backfill });
  return {
    platform: 'discord',
    readHistory: backfill.readHistory,
    capabilities: DISCORD_CAPABILITIES,
    start,
    stop,
    ...createOutbound(rt),
    routes: () => [],
    identity: () => rt.self,
    setCommands: slash.setCommands,
    answerPress: slash.answerPress,
    fetchAttachment: fetchDiscordFile,
  };
}
