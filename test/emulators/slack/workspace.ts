// The emulated Slack workspace: its team, bot, users and every message (user and bot) with
// edits. Pure state; the Web API and the event deliveries read and write it.

/** A message as the emulator stores it (latest text after edits). */
export interface StoredMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  /** The author: a user id, or the bot's user id for bot posts. */
  user?: string;
  botId?: string;
  text: string;
  edits: number;
  /** Raw request parameters of the post (for assertions on formatting flags). */
  params?: Record<string, unknown>;
  /** The Block Kit blocks shown (latest after edits; chat.update without blocks keeps them). */
  blocks?: unknown[];
  /** Files shared with the message (files.completeUploadExternal), with the bytes uploaded. */
  files?: SlackFile[];
}

/** A message only one user sees (chat.postEphemeral, or an ephemeral slash command answer). */
export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  threadTs?: string;
}

/** A file the bot uploaded, as the channel shows it. */
export interface SlackFile {
  id: string;
  name: string;
  title: string;
  bytes: Uint8Array;
}

/** Fixed identities of the emulated workspace. */
export interface WorkspaceIds {
  teamId: string;
  teamName: string;
  appId: string;
  botUserId: string;
  botId: string;
  botName: string;
}

/** Teams, users and messages. */
export class Workspace {
  readonly messages: StoredMessage[] = [];
  readonly bot: StoredMessage[] = [];
  readonly users = new Map<string, { name: string; displayName: string }>();
  readonly ephemeral: EphemeralMessage[] = [];
  private readonly byKey = new Map<string, StoredMessage>();
  private lastTs = 0;

  constructor(readonly ids: WorkspaceIds) {}

  /** A new message ts: `<seconds>.<micro>`, strictly increasing like Slack's. */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.lastTs + 1);
    this.lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  /** Stores a message (user or bot). */
  add(m: StoredMessage): StoredMessage {
    this.messages.push(m);
    if (m.botId === this.ids.botId) this.bot.push(m);
    this.byKey.set(`${m.channel}:${m.ts}`, m);
    return m;
  }

  /** The message `ts` in `channel`, if any. */
  find(channel: string, ts: string): StoredMessage | undefined {
    return this.byKey.get(`${channel}:${ts}`);
  }

  /** Deletes a message (a person deleted it). */
  remove(channel: string, ts: string): void {
    const m = this.byKey.get(`${channel}:${ts}`);
    if (!m) return;
    this.byKey.delete(`${channel}:${ts}`);
    this.messages.splice(this.messages.indexOf(m), 1);
  }

  /** Registers a user (users.info answers with it). */
  addUser(id: string, name: string): void {
    this.users.set(id, { name, displayName: name });
  }
}
