// The channel log's shapes: what a recorded channel keeps of each message (README, "Recording a
// channel"), shared by both backends. A channel is a space key (`slack:T:C`, `discord:G:C`,
// `telegram:<chat>`); its threads' messages carry `threadId`.

/** One message as the channel log keeps it (edits and deletions already applied). */
export interface ChannelLogEntry {
  /** The space key of the channel or chat (`slack:T1:C9`): a thread's messages are in its channel's log. */
  channel: string;
  /** The platform's message id (Slack `ts`, Discord snowflake, Telegram message_id): one entry per id. */
  messageId: string;
  /** The thread the message is in (Slack parent `ts`, Discord thread channel, Telegram topic), if any. */
  threadId?: string;
  /** When it was posted (ISO 8601). */
  at: string;
  /** When it was last edited, if it was. */
  editedAt?: string;
  userId: string;
  /** The author's display name as the platform showed it. */
  userName: string;
  text: string;
  /** Names of the files attached (the files themselves are not kept). */
  files?: string[];
  /** Posted by a bot: boxbot itself, another bot or an integration. */
  bot?: boolean;
}

/** A change to a recorded message's text (and files), found by its id near the time it was posted. */
export interface ChannelLogEdit {
  messageId: string;
  /** When the edited message was posted (the file backend looks for it there). */
  at: string;
  text: string;
  files?: string[];
  editedAt: string;
}

/** The channel logs: one per recorded channel, entries ordered by the time they were posted. */
export interface ChannelLogStore {
  /** Adds entries, replacing any with the same channel and message id (a redelivery, a backfill). */
  put(entries: ChannelLogEntry[]): Promise<void>;
  /** Applies an edit to a recorded message; false when the message is not in the log. */
  edit(channel: string, edit: ChannelLogEdit): Promise<boolean>;
  /** Deletes a message (`at`: when it was posted, where known); false when it was not in the log. */
  remove(channel: string, messageId: string, at?: string): Promise<boolean>;
  /** The entries posted in [from, to) (ISO 8601), oldest first. */
  list(channel: string, range: { from: string; to: string }): Promise<ChannelLogEntry[]>;
  /** When the oldest entry still kept was posted, or undefined for an empty log. */
  oldest(channel: string): Promise<string | undefined>;
  /** The channels that have a log. */
  channels(): Promise<string[]>;
  /** Deletes the channel's entries posted before `before` (ISO 8601); returns how many. */
  prune(channel: string, before: string): Promise<number>;
}
