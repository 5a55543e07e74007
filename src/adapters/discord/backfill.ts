// Reading back what the bot did not see live. A new session (not a resumed one) misses what was
// posted while there was none: each channel the bot has seen messages in is read from its last
// seen message on, through the same path as live messages (the gateway's dedupe drops what
// arrives both ways). Each read runs in its channel's queue, so live messages of that channel
// wait behind it and keep their order. The channel log's backfill reads a guild channel's
// history through readHistory.
import type { Client } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import type { ChannelHistoryReader } from '../channel-event.ts';
import { readChannelAfter, readGuildHistory } from './channel-history.ts';
import type { DiscordIntake } from './intake.ts';
import { parseMessageCreate } from './normalize.ts';
import { botIdOf, type DiscordRuntime } from './runtime.ts';
import type { ChannelSeen } from './session.ts';

/** The history reads of one adapter (createBackfill). */
export interface DiscordBackfill {
  /** Reads every channel the bot has seen from its mark on (after READY of a new session). */
  catchUp(c: Client, botId: string): void;
  /** A guild channel's history for the channel log (channel-history.ts), as this bot. */
  readHistory: ChannelHistoryReader;
}

/** The history reads of the adapter whose state is `rt`, delivered through `intake`. */
export function createBackfill(rt: DiscordRuntime, intake: DiscordIntake): DiscordBackfill {
  const { log, rest } = rt;

  async function catchUpChannel(c: Client, botId: string, seen: ChannelSeen, signal: AbortSignal): Promise<void> {
    await rt.settled;
    let delivered = 0;
    try {
      for await (const raw of readChannelAfter(rest, seen.channelId, seen.messageId, { signal })) {
        // History messages carry no guild id; the mark kept it.
        const parsed = parseMessageCreate(seen.guildId ? { ...raw, guild_id: seen.guildId } : raw);
        if (typeof parsed === 'string') {
          log.warn({ reason: parsed }, 'skipped a malformed message in channel history');
          continue;
        }
        if (intake.skipped(parsed, botId)) {
          await intake.observeOnly(c, botId, parsed);
          continue;
        }
        if (!(await intake.deliver(c, botId, parsed, new Date()))) return;
        delivered++;
      }
    } catch (e) {
      if (signal.aborted) return;
      log.warn(
        { channelId: seen.channelId, err: errorMessage(e) },
        'could not catch up a channel; what was posted there while the bot was away is not read',
      );
    }
    if (delivered) log.info({ channelId: seen.channelId, delivered }, 'caught up a channel from its history');
  }

  return {
    catchUp(c, botId) {
      const signal = rt.running.signal;
      for (const seen of rt.keeper.tracked()) rt.enqueue(seen.channelId, () => catchUpChannel(c, botId, seen, signal));
    },
    readHistory: (channel, from, observe, signal, pace) =>
      readGuildHistory(rest, rt.self?.id ?? (rt.client ? botIdOf(rt, rt.client) : undefined), channel, from, observe, {
        ...(signal ? { signal } : {}),
        ...(pace ? { pace } : {}),
        skipped: (what, reason) =>
          log.warn({ channelId: channel.chatId, what, reason }, 'channel log backfill left out what Discord refused'),
      }),
  };
}
