// A local Discord: REST under /api/v10 and the gateway WebSocket on one 127.0.0.1 port, so the
// real discord.js Client runs unmodified against it. Tests, the gateway end-to-end tests and the
// benchmark inject user messages and read what the bot posted.
//
//   const emu = await startDiscordEmulator();
//   const { channel } = emu.addGuild('boxbot test');
//   emu.userMessage({ channelId: channel.id, content: 'hi', mentionBot: true });
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EmulatedCdn } from './cdn.ts';
import { EmulatedGateway, Intent, PRIVILEGED_INTENTS } from './gateway.ts';
import { Interactions } from './interactions.ts';
import { createRestHandler, type InjectedFault, type RateLimitedRoute, type RestRequestRecord } from './rest.ts';
import {
  DiscordWorld,
  type EmuChannel,
  type EmuGuild,
  type EmuMessage,
  type EmuUser,
  makeUser,
  wireMessage,
} from './store.ts';

/** Options of the emulator; every field has a default. */
export interface DiscordEmulatorOptions {
  /** The bot token REST and IDENTIFY accept (default `emulated-discord-token`). */
  token?: string;
  botId?: string;
  botName?: string;
  /** HELLO's heartbeat_interval (default 41250 ms, Discord's usual value). */
  heartbeatIntervalMs?: number;
  /** Privileged intents switched on in the "developer portal" (default: all three). */
  enabledPrivilegedIntents?: number;
}

/** A user message to deliver (MESSAGE_CREATE). */
export interface UserMessageInput {
  channelId: string;
  content: string;
  userId?: string;
  userName?: string;
  /** The author is a bot account. */
  bot?: boolean;
  /** Prefix the content with `<@botId> ` (how a client writes a mention). */
  mentionBot?: boolean;
  /** Reply to this message id (the reply pings its author unless `replyPing` is false). */
  replyTo?: string;
  replyPing?: boolean;
  attachments?: {
    id: string;
    filename: string;
    size: number;
    url: string;
    content_type?: string;
    /** Voice messages carry a waveform and a duration. */
    waveform?: string;
    duration_secs?: number;
  }[];
  /** Message flags (8192: IS_VOICE_MESSAGE). */
  flags?: number;
}

/** A user uploads a file (optionally as a voice message) with an optional message text. */
export interface UserFileInput {
  channelId: string;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
  content?: string;
  voice?: boolean;
  userId?: string;
  userName?: string;
}

type BotMessageListener = (message: EmuMessage, kind: 'create' | 'update') => void;

/** A running Discord emulator. */
export class DiscordEmulator {
  /** Base for discord.js's `rest.api` / boxbot's `discord.restApi`. */
  readonly restApi: string;
  readonly gatewayUrl: string;
  readonly bot: EmuUser;
  readonly world: DiscordWorld;
  readonly gateway: EmulatedGateway;
  /** Application commands, interactions and ephemeral messages. */
  readonly interactions: Interactions;
  /** Every REST request answered, in order. */
  readonly requests: RestRequestRecord[] = [];
  /** Channel ids of the typing signals received, in order. */
  readonly typing: string[] = [];
  private readonly listeners = new Set<BotMessageListener>();
  private readonly faults: { routes: RateLimitedRoute[]; fault: InjectedFault }[] = [];
  private readonly botMessageIds: string[] = [];
  /** Uploaded attachments, served at their signed URLs. */
  readonly cdn: EmulatedCdn;

  constructor(
    private readonly server: Server,
    readonly token: string,
    bot: EmuUser,
    world: DiscordWorld,
    gateway: EmulatedGateway,
    interactions: Interactions,
    cdn: EmulatedCdn,
  ) {
    const { port } = server.address() as AddressInfo;
    this.restApi = `http://127.0.0.1:${port}/api`;
    this.gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
    this.bot = bot;
    this.world = world;
    this.gateway = gateway;
    this.interactions = interactions;
    this.cdn = cdn;
  }

  /** A user posts a file; it is stored on the CDN and its message dispatched. */
  userFile(input: UserFileInput): EmuMessage {
    const id = this.world.nextId();
    const url = this.cdn.add(input.channelId, id, input.filename, input.bytes, input.contentType);
    return this.userMessage({
      channelId: input.channelId,
      content: input.content ?? '',
      ...(input.userId ? { userId: input.userId } : {}),
      ...(input.userName ? { userName: input.userName } : {}),
      ...(input.voice ? { flags: 8192 } : {}),
      attachments: [
        {
          id,
          filename: input.filename,
          size: input.bytes.length,
          url,
          content_type: input.contentType,
          ...(input.voice ? { waveform: 'AAAA', duration_secs: 2 } : {}),
        },
      ],
    });
  }

  /** Adds a guild with one text channel (`general`); connected clients get GUILD_CREATE on their next IDENTIFY. */
  addGuild(name = 'boxbot test', channelName = 'general'): { guild: EmuGuild; channel: EmuChannel } {
    const guild = this.world.addGuild(name);
    const channel = this.world.addTextChannel(guild.id, channelName);
    return { guild, channel };
  }

  /** Adds a text channel; connected clients get CHANNEL_CREATE. */
  addChannel(guildId: string, name: string): EmuChannel {
    const channel = this.world.addTextChannel(guildId, name);
    this.gateway.dispatch('CHANNEL_CREATE', (intents) => (intents & Intent.Guilds ? channel : undefined));
    return channel;
  }

  /** Adds a public thread under `parentId`; connected clients get THREAD_CREATE. */
  addThread(parentId: string, name = 'a thread', id?: string): EmuChannel {
    const thread = this.world.addThread(parentId, name, id);
    this.gateway.dispatch('THREAD_CREATE', (intents) =>
      intents & Intent.Guilds ? { ...thread, newly_created: true } : undefined,
    );
    return thread;
  }

  /**
   * Archives a thread (as Discord does after its auto-archive duration), at `at` (default now):
   * GET /guilds/{id}/threads/active no longer lists it; GET
   * /channels/{parent}/threads/archived/public does. Connected clients get THREAD_UPDATE.
   */
  /** The bot loses the View Channel permission on `channelId` (a thread too): Discord answers 403 Missing Access. */
  hideFromBot(channelId: string): void {
    this.world.hidden.add(channelId);
  }

  archiveThread(threadId: string, at = new Date()): EmuChannel {
    const thread = this.world.channels.get(threadId);
    if (!thread?.thread_metadata) throw new Error(`no thread ${threadId}`);
    thread.thread_metadata = { ...thread.thread_metadata, archived: true, archive_timestamp: at.toISOString() };
    this.gateway.dispatch('THREAD_UPDATE', (intents) => (intents & Intent.Guilds ? thread : undefined));
    return thread;
  }

  /** The DM channel between the bot and this user (created on first use). */
  dmChannel(userId: string, userName?: string, channelId?: string): EmuChannel {
    return this.world.dmChannel(this.world.user(userId, userName), channelId);
  }

  /** A user posts a message; it is stored and dispatched as MESSAGE_CREATE to connected clients. */
  userMessage(input: UserMessageInput): EmuMessage {
    const author = this.world.user(input.userId ?? '4242', input.userName ?? 'ada', input.bot ?? false);
    const content = input.mentionBot ? `<@${this.bot.id}> ${input.content}` : input.content;
    const mentionRoles = [...new Set([...content.matchAll(/<@&(\d+)>/g)].map(([, id]) => id!))];
    const mentions: EmuUser[] = [];
    for (const [, id] of content.matchAll(/<@!?(\d+)>/g)) {
      const u = this.world.users.get(id!);
      if (u && !mentions.includes(u)) mentions.push(u);
    }
    const referenced = input.replyTo ? this.world.messages.get(input.replyTo) : undefined;
    if (input.replyTo && !referenced) throw new Error(`no message ${input.replyTo} to reply to`);
    if (referenced && input.replyPing !== false && !mentions.includes(referenced.author))
      mentions.push(referenced.author);
    const msg = this.world.addMessage({
      channel_id: input.channelId,
      author,
      content,
      mentions,
      ...(mentionRoles.length ? { mention_roles: mentionRoles } : {}),
      ...(input.attachments ? { attachments: input.attachments } : {}),
      ...(input.flags ? { flags: input.flags } : {}),
      ...(referenced
        ? {
            message_reference: {
              type: 0,
              message_id: referenced.id,
              channel_id: referenced.channel_id,
              ...(referenced.guild_id ? { guild_id: referenced.guild_id } : {}),
            },
            referenced_message: wireMessage({ ...referenced, referenced_message: null }),
          }
        : {}),
    });
    this.dispatchMessage('MESSAGE_CREATE', msg);
    return msg;
  }

  /** A user edits their message: stored, and dispatched as MESSAGE_UPDATE (the whole message, as Discord does). */
  userEdits(messageId: string, content: string): EmuMessage {
    const msg = this.world.messages.get(messageId);
    if (!msg) throw new Error(`no message ${messageId}`);
    msg.content = content;
    msg.edited_timestamp = new Date().toISOString();
    this.dispatchMessage('MESSAGE_UPDATE', msg);
    return msg;
  }

  /** A message is deleted: removed, and dispatched as MESSAGE_DELETE (ids only). */
  userDeletes(messageId: string): void {
    const msg = this.world.messages.get(messageId);
    if (!msg) throw new Error(`no message ${messageId}`);
    this.world.messages.delete(messageId);
    this.gateway.dispatch('MESSAGE_DELETE', (intents) =>
      intents & (msg.guild_id ? Intent.GuildMessages : Intent.DirectMessages)
        ? { id: msg.id, channel_id: msg.channel_id, ...(msg.guild_id ? { guild_id: msg.guild_id } : {}) }
        : undefined,
    );
  }

  /** Messages the bot posted, oldest first (with their current text and edit count). */
  botMessages(): EmuMessage[] {
    return this.botMessageIds.map((id) => this.world.messages.get(id)!);
  }

  /** Messages of one channel, oldest first. */
  messagesIn(channelId: string): EmuMessage[] {
    return [...this.world.messages.values()].filter((m) => m.channel_id === channelId);
  }

  /** The next `n` REST writes on `routes` (default: message sends) get 429 with this retry-after. */
  rateLimitNext(n: number, retryAfterMs: number, opts: { routes?: RateLimitedRoute[]; global?: boolean } = {}): void {
    for (let i = 0; i < n; i++)
      this.faults.push({
        routes: opts.routes ?? ['send'],
        fault: { kind: 'rate-limit', retryAfterMs, global: opts.global ?? false },
      });
  }

  /** The next `n` REST writes on `routes` (default: message sends) fail with `status` (e.g. 500, 503). */
  failNext(n: number, status: number, opts: { routes?: RateLimitedRoute[] } = {}): void {
    for (let i = 0; i < n; i++)
      this.faults.push({ routes: opts.routes ?? ['send'], fault: { kind: 'status', status } });
  }

  /** Drops the injected faults not yet used (the end of a 429 storm). */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Calls `listener` for every message the bot creates or edits; returns the unsubscribe function. */
  onBotMessage(listener: BotMessageListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the server, closing every socket. */
  async close(): Promise<void> {
    this.gateway.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** @internal REST context hook. */
  takeFault(route: RateLimitedRoute): InjectedFault | undefined {
    const i = this.faults.findIndex((f) => f.routes.includes(route));
    return i < 0 ? undefined : this.faults.splice(i, 1)[0]!.fault;
  }

  /** @internal */
  botMessage(message: EmuMessage, kind: 'create' | 'update'): void {
    if (kind === 'create') this.botMessageIds.push(message.id);
    this.dispatchMessage(kind === 'create' ? 'MESSAGE_CREATE' : 'MESSAGE_UPDATE', message);
    for (const l of this.listeners) l(message, kind);
  }

  private dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', msg: EmuMessage): void {
    const wire = wireMessage(msg);
    const botMentioned = msg.mentions.some((u) => u.id === this.bot.id);
    const channelType = this.world.channels.get(msg.channel_id)?.type;
    this.gateway.dispatch(t, (intents) => {
      if (!(intents & (msg.guild_id ? Intent.GuildMessages : Intent.DirectMessages))) return undefined;
      const payload: Record<string, unknown> = { ...wire, channel_type: channelType };
      if (msg.guild_id)
        payload.member = { roles: [], joined_at: msg.timestamp, nick: null, deaf: false, mute: false, flags: 0 };
      // Without the privileged MESSAGE_CONTENT intent Discord blanks guild message bodies,
      // except the app's own messages and messages that mention it.
      const visible = !msg.guild_id || intents & Intent.MessageContent || msg.author.id === this.bot.id || botMentioned;
      if (!visible) Object.assign(payload, { content: '', embeds: [], attachments: [], components: [] });
      return payload;
    });
  }
}

/** Starts an emulator on 127.0.0.1 at a free port. */
export async function startDiscordEmulator(opts: DiscordEmulatorOptions = {}): Promise<DiscordEmulator> {
  const token = opts.token ?? 'emulated-discord-token';
  const bot = makeUser(opts.botId ?? '1100000000000000001', opts.botName ?? 'boxbot', true);
  const world = new DiscordWorld(bot);
  let emu: DiscordEmulator | undefined;
  const gateway = new EmulatedGateway({
    token,
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 41_250,
    enabledPrivilegedIntents: opts.enabledPrivilegedIntents ?? PRIVILEGED_INTENTS,
    resumeUrl: () => `${emu!.gatewayUrl}-resume`,
    world: {
      readyData: (session) => ({
        v: 10,
        user: { ...bot, verified: true, mfa_enabled: false, flags: 0, email: null },
        guilds: [...world.guilds.keys()].map((id) => ({ id, unavailable: true })),
        session_id: session.id,
        session_type: 'normal',
        resume_gateway_url: session.resumeUrl,
        shard: [0, 1],
        application: { id: bot.id, flags: 0 },
        private_channels: [],
        relationships: [],
        presences: [],
        guild_join_requests: [],
        geo_ordered_rtc_regions: [],
        _trace: ['["boxbot-emulator",{"micros":0}]'],
      }),
      guildCreates: () => [...world.guilds.values()].map((g) => guildCreate(world, g)),
    },
  });
  const interactions = new Interactions(world, {
    botMessage: (m, kind) => emu!.botMessage(m, kind),
    dispatch: (payload) => gateway.dispatch('INTERACTION_CREATE', () => payload),
  });
  const cdn = new EmulatedCdn(() => emu!.restApi.replace(/\/api$/, ''));
  const rest = createRestHandler({
    token,
    world,
    interactions,
    gatewayUrl: () => emu!.gatewayUrl,
    takeFault: (route) => emu!.takeFault(route),
    botMessage: (m, kind) => emu!.botMessage(m, kind),
    typing: (channelId) => emu!.typing.push(channelId),
    guild: (id) => {
      const g = world.guilds.get(id);
      return g ? guildCreate(world, g) : undefined;
    },
    record: (entry) => emu!.requests.push(entry),
  });
  const server = createServer((req, res) =>
    req.method === 'GET' && req.url?.startsWith('/attachments/') ? cdn.serve(req, res) : rest(req, res),
  );
  server.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  emu = new DiscordEmulator(server, token, bot, world, gateway, interactions, cdn);
  return emu;
}

function guildCreate(world: DiscordWorld, g: EmuGuild): Record<string, unknown> {
  const { channels, threads } = world.guildChannels(g.id);
  const joinedAt = new Date(0).toISOString();
  return {
    id: g.id,
    name: g.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: '1',
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [
      {
        id: g.botRoleId,
        name: world.bot.username,
        permissions: '0',
        position: 1,
        color: 0,
        hoist: false,
        managed: true,
        mentionable: false,
        flags: 0,
        tags: { bot_id: world.bot.id },
      },
      {
        id: g.id,
        name: '@everyone',
        permissions: '1071698660929',
        position: 0,
        color: 0,
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
      },
    ],
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    joined_at: joinedAt,
    large: false,
    unavailable: false,
    member_count: 2,
    voice_states: [],
    members: [{ user: world.bot, roles: [], joined_at: joinedAt, deaf: false, mute: false, flags: 0 }],
    channels: channels.map((c, i) => ({
      ...c,
      position: i,
      permission_overwrites: [],
      nsfw: false,
      topic: null,
      rate_limit_per_user: 0,
    })),
    threads,
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
