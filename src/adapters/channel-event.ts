// What an adapter reports of a channel for its log (README, "Recording a channel"): every message
// the bot can see in a group channel, addressed to it or not, and the platform's edits and
// deletions. Observing is separate from the sink: nothing here is answered or reaches a model.

/** One thing that happened in a group channel. `channel` is its space key (`slack:T1:C9`). */
export type ChannelEvent =
  | {
      kind: 'message';
      channel: string;
      messageId: string;
      /** The thread (Slack parent ts, Discord thread channel id, Telegram topic) it was posted in. */
      threadId?: string;
      /** When it was posted (ISO 8601). */
      at: string;
      userId: string;
      userName: string;
      text: string;
      /** Names of attached files (never downloaded for the log). */
      files: string[];
      /** Posted by a bot: boxbot itself, another bot or an integration (never answered). */
      bot?: boolean;
    }
  | {
      kind: 'edit';
      channel: string;
      messageId: string;
      threadId?: string;
      /** When the edited message was posted. */
      at: string;
      editedAt: string;
      text: string;
      files?: string[];
      /** The author, when the platform sent it (an edit of a message not yet in the log is added). */
      userId?: string;
      userName?: string;
      bot?: boolean;
    }
  | {
      kind: 'delete';
      channel: string;
      messageId: string;
      /** When the deleted message was posted, where the id tells (Slack ts, Discord snowflake). */
      at?: string;
    };

/** Receives channel events; never throws and never delays the adapter (it queues its own work). */
export type ChannelObserver = (event: ChannelEvent) => void;

/** When a Slack `ts` (`1712345678.000200`) was posted, as ISO 8601; undefined for a malformed ts. */
export function slackTsTime(ts: string): string | undefined {
  const ms = Number(ts) * 1000;
  return Number.isFinite(ms) && ms > 0 ? new Date(Math.floor(ms)).toISOString() : undefined;
}

const DISCORD_EPOCH = 1_420_070_400_000n;

/** When a Discord snowflake was made, as ISO 8601; undefined for a malformed id. */
export function snowflakeTime(id: string): string | undefined {
  if (!/^\d{1,20}$/.test(id)) return undefined;
  return new Date(Number((BigInt(id) >> 22n) + DISCORD_EPOCH)).toISOString();
}

/** The smallest Discord snowflake made at `ms` (reading `after=` it gives what was posted since). */
export function snowflakeAt(ms: number): string {
  return String((BigInt(Math.max(0, Math.floor(ms))) - DISCORD_EPOCH) << 22n);
}

/**
 * Runs one platform request of a history read through the bot's outbound queue: paced with the
 * bot's other calls, waiting out a 429 the whole bot shares, retrying network failures and 5xx.
 */
export type RequestPacer = <T>(call: () => Promise<T>) => Promise<T>;

/**
 * Reads a channel's own history posted since `from` (ISO 8601) from the platform, telling each
 * message to `observe` (a backfill of the channel log); resolves with how many were read. Each
 * request goes through `pace` when given (the gateway's outbound queue).
 */
export type ChannelHistoryReader = (
  channel: { chatId: string; scope?: string },
  from: string,
  observe: ChannelObserver,
  signal?: AbortSignal,
  pace?: RequestPacer,
) => Promise<number>;
