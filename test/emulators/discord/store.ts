// The Discord emulator's world: users, guilds, channels (text, DM, threads) and messages, kept
// in the shapes Discord's API returns them (snake_case JSON objects, snowflake string ids).

/** A user as Discord returns it. */
export interface EmuUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: null;
  bot?: boolean;
}

/** Channel types the emulator knows (Discord's numbers). */
export const ChannelKind = { GuildText: 0, DM: 1, PublicThread: 11, PrivateThread: 12 } as const;

/** A channel as Discord returns it. */
export interface EmuChannel {
  id: string;
  type: number;
  guild_id?: string;
  parent_id?: string;
  name?: string;
  recipients?: EmuUser[];
  last_message_id: string | null;
  /** Threads only. */
  owner_id?: string;
  thread_metadata?: { archived: boolean; auto_archive_duration: number; archive_timestamp: string; locked: boolean };
  message_count?: number;
  member_count?: number;
}

/** A guild and the ids of its channels and threads. */
export interface EmuGuild {
  id: string;
  name: string;
  channelIds: string[];
  /** The bot's managed role (what mentioning the bot's role mentions). */
  botRoleId: string;
}

/** A stored message (Discord's message object plus the emulator's edit count). */
export interface EmuMessage {
  id: string;
  type: number;
  channel_id: string;
  guild_id?: string;
  author: EmuUser;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  tts: boolean;
  mention_everyone: boolean;
  mentions: EmuUser[];
  mention_roles: string[];
  attachments: unknown[];
  embeds: unknown[];
  pinned: boolean;
  flags: number;
  message_reference?: { type: number; message_id: string; channel_id: string; guild_id?: string };
  referenced_message?: Omit<EmuMessage, 'referenced_message' | 'edits'> | null;
  allowed_mentions?: unknown;
  /** Action rows of buttons under the message. */
  components?: unknown[];
  /** The nonce the message was created with. */
  nonce?: string;
  /** Emulator bookkeeping: how many times the message was edited. */
  edits: number;
  /** Emulator bookkeeping: the bytes of files the bot uploaded, in the order of `attachments`. */
  uploads?: { filename: string; contentType: string; bytes: Uint8Array }[];
}

const DISCORD_EPOCH = 1420070400000n;

/** Makes increasing snowflake ids (timestamp bits plus a counter), like Discord's. */
export function snowflakes(): () => string {
  let last = 0n;
  return () => {
    let id = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
    if (id <= last) id = last + 1n;
    last = id;
    return id.toString();
  };
}

/** A user object with Discord's defaults. */
export function makeUser(id: string, username: string, bot = false): EmuUser {
  return {
    id,
    username,
    global_name: bot ? null : username,
    discriminator: '0',
    avatar: null,
    ...(bot ? { bot: true } : {}),
  };
}

/** The emulator's data: everything is in memory and fast to look up. */
export class DiscordWorld {
  readonly nextId = snowflakes();
  readonly users = new Map<string, EmuUser>();
  readonly guilds = new Map<string, EmuGuild>();
  readonly channels = new Map<string, EmuChannel>();
  readonly messages = new Map<string, EmuMessage>();
  /** DM channel id per user id. */
  readonly dmChannels = new Map<string, string>();
  /** Nonces sent with `enforce_nonce`: the message each made and when. */
  readonly nonces = new Map<string, { messageId: string; at: number }>();
  /** Message creates answered with the message an earlier one with the same nonce made. */
  nonceRepeats = 0;
  /** Channels the bot may not view: every REST call on them answers 403 Missing Access. */
  readonly hidden = new Set<string>();

  constructor(readonly bot: EmuUser) {
    this.users.set(bot.id, bot);
  }

  /** The user with this id, created on first sight. */
  user(id: string, username = `user${id}`, bot = false): EmuUser {
    let u = this.users.get(id);
    if (!u) {
      u = makeUser(id, username, bot);
      this.users.set(id, u);
    } else if (username !== `user${id}` && u.username !== username) {
      u.username = username;
      if (!u.bot) u.global_name = username;
    }
    if (bot && !u.bot) Object.assign(u, { bot: true, global_name: null });
    return u;
  }

  /** Adds a guild with a first text channel `general`. */
  addGuild(name: string, id = this.nextId()): EmuGuild {
    const guild: EmuGuild = { id, name, channelIds: [], botRoleId: this.nextId() };
    this.guilds.set(id, guild);
    return guild;
  }

  /** Adds a text channel to a guild. */
  addTextChannel(guildId: string, name: string, id = this.nextId()): EmuChannel {
    const guild = this.mustGuild(guildId);
    const channel: EmuChannel = { id, type: ChannelKind.GuildText, guild_id: guildId, name, last_message_id: null };
    this.channels.set(id, channel);
    guild.channelIds.push(id);
    return channel;
  }

  /** Adds a public thread under a text channel. */
  addThread(parentId: string, name: string, id = this.nextId()): EmuChannel {
    const parent = this.channels.get(parentId);
    if (!parent?.guild_id) throw new Error(`no guild text channel ${parentId}`);
    const guild = this.mustGuild(parent.guild_id);
    const thread: EmuChannel = {
      id,
      type: ChannelKind.PublicThread,
      guild_id: guild.id,
      parent_id: parentId,
      name,
      owner_id: this.bot.id,
      last_message_id: null,
      message_count: 0,
      member_count: 1,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
        locked: false,
      },
    };
    this.channels.set(id, thread);
    guild.channelIds.push(id);
    return thread;
  }

  /** The DM channel between the bot and `user`, created on first use. */
  dmChannel(user: EmuUser, id?: string): EmuChannel {
    const existing = this.dmChannels.get(user.id);
    if (existing) return this.channels.get(existing)!;
    const channel: EmuChannel = {
      id: id ?? this.nextId(),
      type: ChannelKind.DM,
      recipients: [user],
      last_message_id: null,
    };
    this.channels.set(channel.id, channel);
    this.dmChannels.set(user.id, channel.id);
    return channel;
  }

  /** Stores a new message in a channel and returns it. */
  addMessage(
    m: Omit<
      EmuMessage,
      | 'id'
      | 'timestamp'
      | 'edited_timestamp'
      | 'tts'
      | 'mention_everyone'
      | 'pinned'
      | 'flags'
      | 'edits'
      | 'type'
      | 'embeds'
      | 'attachments'
      | 'mention_roles'
    > &
      Partial<EmuMessage>,
  ): EmuMessage {
    const channel = this.channels.get(m.channel_id);
    if (!channel) throw new Error(`no channel ${m.channel_id}`);
    const message: EmuMessage = {
      type: m.message_reference ? 19 : 0,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      flags: 0,
      edits: 0,
      ...m,
      id: m.id ?? this.nextId(),
    };
    if (channel.guild_id) message.guild_id = channel.guild_id;
    this.messages.set(message.id, message);
    channel.last_message_id = message.id;
    if (channel.message_count !== undefined) channel.message_count++;
    return message;
  }

  /** The channel objects of a guild (text channels first, then threads), as GUILD_CREATE lists them. */
  guildChannels(guildId: string): { channels: EmuChannel[]; threads: EmuChannel[] } {
    const guild = this.mustGuild(guildId);
    const all = guild.channelIds.map((id) => this.channels.get(id)!);
    return {
      channels: all.filter((c) => c.parent_id === undefined),
      threads: all.filter((c) => c.parent_id !== undefined),
    };
  }

  private mustGuild(id: string): EmuGuild {
    const g = this.guilds.get(id);
    if (!g) throw new Error(`no guild ${id}`);
    return g;
  }
}

/** A message as the API returns it (without the emulator's bookkeeping). */
export function wireMessage(m: EmuMessage): Omit<EmuMessage, 'edits' | 'allowed_mentions' | 'uploads'> {
  const { edits: _edits, allowed_mentions: _am, uploads: _uploads, ...wire } = m;
  return wire;
}
