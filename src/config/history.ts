// Whether a channel is recorded, and for how long (policy `history`, README "Recording a
// channel"): the platform's section for all its channels, then the channel's or chat's own entry.
// Channel-level: a thread is recorded with its channel, and user overrides play no part.
import type { Config } from './schema.ts';

/** Days a recorded channel's messages are kept when `history.days` is not set. */
export const DEFAULT_HISTORY_DAYS = 30;

/** A channel's recording policy. */
export interface HistoryPolicy {
  record: boolean;
  days: number;
}

type HistorySection = { history?: { record?: boolean; days?: number } };

/**
 * The recording policy of channel `chatId` on `platform` (`slack` channel id, `discord` channel
 * id, `telegram` chat id).
 * @example historyPolicy(config, 'slack', 'C123') // { record: true, days: 30 }
 */
export function historyPolicy(config: Config, platform: string, chatId: string): HistoryPolicy {
  const section = (
    config.channels as Record<
      string,
      | (HistorySection & { chats?: Record<string, HistorySection>; channels?: Record<string, HistorySection> })
      | undefined
    >
  )[platform];
  const own = (section?.chats ?? section?.channels)?.[chatId]?.history;
  return {
    record: own?.record ?? section?.history?.record ?? false,
    days: own?.days ?? section?.history?.days ?? DEFAULT_HISTORY_DAYS,
  };
}

/** True when some channel of the config is recorded (the recorder is wired only then). */
export function anyRecorded(config: Config): boolean {
  return Object.values(config.channels as Record<string, unknown>).some((raw) => {
    const s = raw as
      | (HistorySection & { chats?: Record<string, HistorySection>; channels?: Record<string, HistorySection> })
      | undefined;
    if (s?.history?.record) return true;
    return Object.values(s?.chats ?? s?.channels ?? {}).some((c) => c.history?.record === true);
  });
}
