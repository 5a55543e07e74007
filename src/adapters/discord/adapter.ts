// The Discord channel: discord.js keeps the gateway connection (heartbeats, resume, caches of
// guilds, channels and threads); MESSAGE_CREATE dispatches are normalized into the sink in
// order per channel; replies, edits, typing and files (a message with an attachment, uploaded
// multipart) go out through the adapter's own REST calls.
import { type Client, Events } from 'discord.js';
import { createKeyedLock } from '../../keyed-lock.ts';
import { type Logger, silentLogger } from '../../log.ts';
import { AdapterApiError, AdapterNetworkError, alreadyStarted } from '../errors.ts';
import { type MarkupStyle, withMarkupFallback } from '../markup-fallback.ts';
import type { AdapterCapabilities, ChannelAdapter, InboundSink, OutboundTarget, SentMessage } from '../types.ts';
import { type DiscordRestOptions, discordRequest } from './api.ts';
import { createDiscordClient, loginError } from './client.ts';
import { fetchDiscordFile } from './files.ts';
import { toDiscordMarkdown } from './format.ts';
import { type DiscordMessage, parseMessageCreate, THREAD_CHANNEL_TYPES, toInboundMessage } from './normalize.ts';

/** Options of createDiscordAdapter. */
export interface DiscordAdapterOptions {
  /** The bot token (from DISCORD_BOT_TOKEN; never logged). */
  token: string;
  /** REST root (`discord.restApi`), default `https://discord.com/api`; the gateway URL comes from its /gateway/bot. */
  restApi?: string;
  logger?: Logger;
  /** Deliver messages of other bots too (default false; the bot's own are always ignored). */
  allowBots?: boolean;
  /** Per REST request (default 15 s). */
  requestTimeoutMs?: number;
  /** How long start() waits for READY and the guilds (default 30 s). */
  readyTimeoutMs?: number;
}

/** What Discord can do: edits, typing (one POST lasts ~10 s, renewed every 8 s), threads, 2,000 characters. */
export const DISCORD_CAPABILITIES: AdapterCapabilities = Object.freeze({
  edit: true,
  typing: true,
  threads: true,
  maxTextLength: 2000,
  editIntervalMs: 500,
  typingIntervalMs: 8000,
});

const MAX_CONTENT = DISCORD_CAPABILITIES.maxTextLength;

/**
 * Creates the Discord adapter.
 * @example
 *   const discord = createDiscordAdapter({ token: secrets.DISCORD_BOT_TOKEN!, logger });
 *   await discord.start(async (m) => gateway.accept(m));
 */
export function createDiscordAdapter(options: DiscordAdapterOptions): ChannelAdapter {
  const log = (options.logger ?? silentLogger).child({ scope: 'adapter:discord' });
  const rest: DiscordRestOptions = {
    restApi: options.restApi ?? 'https://discord.com/api',
    token: options.token,
    timeoutMs: options.requestTimeoutMs ?? 15_000,
  };
  let client: Client | undefined;
  let sink: InboundSink | undefined;
  let self: { id: string; name: string } | undefined;
  // Inbound order is kept per channel: a lookup for one channel never delays another.
  const chains = createKeyedLock();

  function enqueue(channelId: string, job: () => Promise<void>): void {
    void chains.run(channelId, job).catch((e: unknown) => {
      log.error({ err: e instanceof Error ? e.message : String(e) }, 'delivering a Discord message failed');
    });
  }

  // The parent of a thread, from discord.js's channel cache (filled by GUILD_CREATE and
  // THREAD_CREATE), else GET /channels/:id.
  async function threadParent(c: Client, m: DiscordMessage): Promise<string | undefined> {
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
        { channelId: m.channelId, err: e instanceof Error ? e.message : String(e) },
        'could not look up a channel; treating it as a plain channel',
      );
      return undefined;
    }
  }

  function onDispatch(c: Client, packet: unknown): void {
    try {
      if (typeof packet !== 'object' || packet === null || (packet as { t?: unknown }).t !== 'MESSAGE_CREATE') return;
      const parsed = parseMessageCreate((packet as { d?: unknown }).d);
      if (typeof parsed === 'string') {
        log.warn({ reason: parsed }, 'dropped a malformed MESSAGE_CREATE');
        return;
      }
      const botId = c.user?.id;
      if (!botId || parsed.author.id === botId || ((parsed.author.bot || parsed.webhookId) && !options.allowBots))
        return;
      const receivedAt = new Date();
      enqueue(parsed.channelId, async () => {
        const threadParentId = parsed.guildId ? await threadParent(c, parsed) : undefined;
        const botRole = parsed.guildId ? c.guilds.cache.get(parsed.guildId)?.roles.botRoleFor(botId)?.id : undefined;
        const result = toInboundMessage(parsed, {
          botId,
          ...(threadParentId ? { threadParentId } : {}),
          ...(botRole ? { botRoleIds: [botRole] } : {}),
          ...(options.allowBots ? { allowBots: true } : {}),
          receivedAt,
        });
        if (result.kind !== 'message') {
          if (result.kind === 'ignored' && result.reason === 'no-content')
            log.debug('skipped a message without content (is the Message Content intent on?)');
          return;
        }
        if (client !== c || !sink) return; // stopped meanwhile
        await sink(result.message);
      });
    } catch (e) {
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'dropped a dispatch the adapter could not read');
    }
  }

  async function start(next: InboundSink): Promise<void> {
    if (client) throw alreadyStarted('discord'); // connected or connecting
    const c = createDiscordClient({ restApi: rest.restApi, timeoutMs: rest.timeoutMs, logger: log });
    client = c;
    sink = next;
    c.on(Events.Raw, (packet: unknown) => onDispatch(c, packet));
    c.on(Events.Error, (e) => log.error({ err: e.message }, 'discord.js error'));
    c.on(Events.ShardError, (e) => log.warn({ err: e.message }, 'gateway connection error'));
    c.on(Events.ShardReconnecting, () => log.info('gateway connection lost; reconnecting'));
    c.on(Events.ShardResume, (_id, replayed) => log.info({ replayed }, 'gateway session resumed'));
    c.on(Events.ShardDisconnect, (ev) => log.error({ code: ev.code }, 'gateway closed the connection for good'));
    let timer: NodeJS.Timeout | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      c.once(Events.ClientReady, () => resolve());
      const ms = options.readyTimeoutMs ?? 30_000;
      timer = setTimeout(
        () => reject(new AdapterNetworkError('discord', `the gateway was not ready after ${ms} ms`)),
        ms,
      );
    });
    try {
      await Promise.all([c.login(options.token), ready]);
    } catch (e) {
      client = undefined;
      sink = undefined;
      await c.destroy().catch(() => undefined);
      throw loginError(e);
    } finally {
      clearTimeout(timer);
    }
    self = { id: c.user!.id, name: c.user!.username };
    log.info({ bot: self.name, guilds: c.guilds.cache.size }, 'connected to Discord');
  }

  async function stop(): Promise<void> {
    const c = client;
    client = undefined;
    sink = undefined;
    if (c) await c.destroy();
  }

  // A markdown send/edit the API refuses with 400 is retried once with the text as is. Rendering
  // that would push a fitting text over the limit is skipped (the text goes as is).
  const markdown: MarkupStyle = {
    render: (text) => {
      const content = toDiscordMarkdown(text);
      return [...content].length > MAX_CONTENT && [...text].length <= MAX_CONTENT ? text : content;
    },
    refused: (e) => e.status === 400,
    log,
  };

  const channelOf = (target: OutboundTarget): string => target.threadId ?? target.chatId;
  const noPings = { parse: [] as string[], replied_user: true };

  return {
    platform: 'discord',
    capabilities: DISCORD_CAPABILITIES,
    start,
    stop,
    async send(target, text, opts): Promise<SentMessage> {
      const reply = target.replyToMessageId
        ? { message_reference: { message_id: target.replyToMessageId, fail_if_not_exists: false } }
        : {};
      const sent = await withMarkupFallback(markdown, text, opts, (content) =>
        discordRequest<{ id?: unknown }>(rest, 'POST', `/channels/${channelOf(target)}/messages`, {
          content,
          allowed_mentions: noPings,
          ...reply,
        }),
      );
      if (typeof sent?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'message create answered without a message id');
      return { messageId: sent.id };
    },
    async sendFile(target, file): Promise<SentMessage> {
      const reply = target.replyToMessageId
        ? { message_reference: { message_id: target.replyToMessageId, fail_if_not_exists: false } }
        : {};
      // The caption is the message's text, sent as is (its own limit); the file is attachment 0.
      const caption = file.caption ? [...file.caption].slice(0, MAX_CONTENT).join('') : undefined;
      const form = new FormData();
      form.append(
        'payload_json',
        JSON.stringify({
          ...(caption ? { content: caption } : {}),
          attachments: [{ id: 0, filename: file.name }],
          allowed_mentions: noPings,
          ...reply,
        }),
      );
      form.append('files[0]', new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.name);
      const sent = await discordRequest<{ id?: unknown }>(
        rest,
        'POST',
        `/channels/${channelOf(target)}/messages`,
        form,
      );
      if (typeof sent?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'message create answered without a message id');
      return { messageId: sent.id };
    },
    async edit(target, messageId, text, opts): Promise<void> {
      await withMarkupFallback(markdown, text, opts, (content) =>
        discordRequest(rest, 'PATCH', `/channels/${channelOf(target)}/messages/${messageId}`, {
          content,
          allowed_mentions: noPings,
        }),
      );
    },
    async typing(target): Promise<void> {
      await discordRequest(rest, 'POST', `/channels/${channelOf(target)}/typing`);
    },
    routes: () => [],
    identity: () => self,
    fetchAttachment: fetchDiscordFile,
  };
}
