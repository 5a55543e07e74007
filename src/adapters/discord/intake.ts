// Inbound messages: a MESSAGE_CREATE (live or read back from history) is normalized and handed to
// the sink in its channel's order, with the thread's parent and the bot's role looked up first;
// guild messages, edits and deletions are told to the channel log's observer too. A message the
// sink did not take keeps its channel's mark before it (a later run reads it again).
import type { Client } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import { type DiscordMessage, parseMessageCreate, THREAD_CHANNEL_TYPES, toInboundMessage } from './normalize.ts';
import { discordDeleteEvent, discordMessageEvent, discordUpdateEvent } from './observe.ts';
import { botIdOf, type DiscordRuntime } from './runtime.ts';

/** The intake of one adapter (createIntake). */
export interface DiscordIntake {
  /** Whether the bot does not answer `m` (its own, or another bot's without allowBots). */
  skipped(m: DiscordMessage, botId: string): boolean;
  /** Tells the channel log of a message the bot does not answer. */
  observeOnly(c: Client, botId: string, m: DiscordMessage): Promise<void>;
  /** Normalizes one message and hands it to the sink; false when the adapter stopped meanwhile. */
  deliver(c: Client, botId: string, m: DiscordMessage, receivedAt: Date): Promise<boolean>;
  /** A live MESSAGE_CREATE dispatch, with its sequence number. */
  onMessageCreate(c: Client, d: unknown, seq: unknown): void;
  /** An edit or deletion in a guild channel, told to the observer in its channel's order. */
  observeChange(c: Client, t: 'MESSAGE_UPDATE' | 'MESSAGE_DELETE', d: unknown): void;
}

/** The message intake of the adapter whose state is `rt`. */
export function createIntake(rt: DiscordRuntime): DiscordIntake {
  const { log, options } = rt;

  // The parent of a thread, from discord.js's channel cache (filled by GUILD_CREATE and
  // THREAD_CREATE), else GET /channels/:id.
  async function threadParent(
    c: Client,
    m: Pick<DiscordMessage, 'channelId' | 'channelType'>,
  ): Promise<string | undefined> {
    const cached = c.channels.cache.get(m.channelId);
    if (cached && !cached.isThread()) return undefined;
    // A thread discord.js made up from the message alone (partials) has no parent yet.
    if (cached?.isThread() && cached.parentId) return cached.parentId;
    if (!cached && m.channelType !== undefined && !THREAD_CHANNEL_TYPES.has(m.channelType)) return undefined;
    try {
      const fetched = await c.channels.fetch(m.channelId, { force: true });
      return fetched?.isThread() ? (fetched.parentId ?? undefined) : undefined;
    } catch (e) {
      log.warn(
        { channelId: m.channelId, err: errorMessage(e) },
        'could not look up a channel; treating it as a plain channel',
      );
      return undefined;
    }
  }

  const skipped = (m: DiscordMessage, botId: string): boolean =>
    m.author.id === botId || ((m.author.bot || !!m.webhookId) && !options.allowBots);

  /** Another bot's message (never answered without allowBots) still goes to the channel log. */
  async function observeOnly(c: Client, botId: string, m: DiscordMessage): Promise<void> {
    if (!options.observe || !m.guildId || m.author.id === botId) return;
    const threadParentId = await threadParent(c, m);
    const place = { guildId: m.guildId, channelId: m.channelId, ...(threadParentId ? { threadParentId } : {}) };
    const event = discordMessageEvent(m, place, botId);
    if (event) options.observe(event);
  }

  async function deliver(c: Client, botId: string, m: DiscordMessage, receivedAt: Date): Promise<boolean> {
    // A resumed session had no READY, so no GUILD_CREATE: the guild (its roles) is read once.
    if (m.guildId && !c.guilds.cache.has(m.guildId))
      await c.guilds.fetch(m.guildId).catch((e: unknown) => {
        log.warn({ guildId: m.guildId, err: errorMessage(e) }, 'could not read a guild; its bot role is not known');
      });
    const threadParentId = m.guildId ? await threadParent(c, m) : undefined;
    if (options.observe && m.guildId) {
      const event = discordMessageEvent(
        m,
        { guildId: m.guildId, channelId: m.channelId, ...(threadParentId ? { threadParentId } : {}) },
        botId,
      );
      if (event) options.observe(event);
    }
    const botRole = m.guildId ? c.guilds.cache.get(m.guildId)?.roles.botRoleFor(botId)?.id : undefined;
    const result = toInboundMessage(m, {
      botId,
      ...(threadParentId ? { threadParentId } : {}),
      ...(botRole ? { botRoleIds: [botRole] } : {}),
      ...(options.allowBots ? { allowBots: true } : {}),
      receivedAt,
    });
    if (result.kind !== 'message') {
      if (result.kind === 'ignored' && result.reason === 'no-content')
        log.debug('skipped a message without content (is the Message Content intent on?)');
      return true;
    }
    if (rt.client !== c || !rt.sink) return false; // stopped meanwhile
    try {
      await rt.sink(result.message);
    } catch (e) {
      rt.keeper.freeze(m.channelId);
      throw e;
    }
    rt.keeper.accepted({ channelId: m.channelId, ...(m.guildId ? { guildId: m.guildId } : {}), messageId: m.id });
    return true;
  }

  function onMessageCreate(c: Client, d: unknown, seq: unknown): void {
    const parsed = parseMessageCreate(d);
    if (typeof parsed === 'string') {
      log.warn({ reason: parsed }, 'dropped a malformed MESSAGE_CREATE');
      return;
    }
    const botId = botIdOf(rt, c);
    if (!botId) return;
    if (skipped(parsed, botId)) {
      rt.enqueue(parsed.channelId, () => observeOnly(c, botId, parsed));
      return;
    }
    const receivedAt = new Date();
    // The session's saved sequence stays before this dispatch until the sink took it.
    const release = rt.keeper.hold(seq as number);
    rt.enqueue(parsed.channelId, async () => {
      if (await deliver(c, botId, parsed, receivedAt)) release();
    });
  }

  function observeChange(c: Client, t: 'MESSAGE_UPDATE' | 'MESSAGE_DELETE', d: unknown): void {
    const observe = options.observe;
    const { channel_id: channelId, guild_id: guildId } = (d ?? {}) as { channel_id?: unknown; guild_id?: unknown };
    if (!observe || typeof channelId !== 'string' || typeof guildId !== 'string') return;
    rt.enqueue(channelId, async () => {
      const threadParentId = await threadParent(c, { channelId });
      const place = { guildId, channelId, ...(threadParentId ? { threadParentId } : {}) };
      const botId = botIdOf(rt, c);
      const event =
        t === 'MESSAGE_DELETE' ? discordDeleteEvent(d, place) : botId ? discordUpdateEvent(d, place, botId) : undefined;
      if (event) observe(event);
    });
  }

  return { skipped, observeOnly, deliver, onMessageCreate, observeChange };
}
