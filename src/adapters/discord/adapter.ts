// The Discord channel: discord.js keeps the gateway connection (heartbeats, resume, caches of
// guilds, channels and threads); MESSAGE_CREATE dispatches are normalized into the sink in
// order per channel; replies, edits, typing and files (a message with an attachment, uploaded
// multipart) go out through the adapter's own REST calls.
// Slash commands and button presses arrive as INTERACTION_CREATE, are answered at once
// (deferred) and then reach the sink like messages; a command's answer fills in its deferral.
// With `state`, the gateway session outlives the process (session.ts): a restart RESUMEs and
// Discord replays what was missed; a new session catches the known channels up from their
// history. Every message and upload carries a nonce from the caller's idempotency key.
import { type Client, Events } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import { createKeyedLock } from '../../core/keyed-lock.ts';
import { type Logger, silentLogger } from '../../core/log.ts';
import type { ChannelHistoryReader, ChannelObserver } from '../channel-event.ts';
import { AdapterApiError, AdapterError, AdapterNetworkError, alreadyStarted } from '../errors.ts';
import { type MarkupStyle, withMarkupFallback } from '../markup-fallback.ts';
import type {
  AdapterCapabilities,
  AdapterState,
  ChannelAdapter,
  InboundSink,
  OutboundTarget,
  SendOptions,
  SentMessage,
} from '../types.ts';
import { type DiscordRestOptions, discordRequest } from './api.ts';
import { readChannelAfter, readGuildHistory } from './channel-history.ts';
import { closeResumable, createDiscordClient, loginError, socketsToDrop } from './client.ts';
import { fetchDiscordFile } from './files.ts';
import { toDiscordMarkdown } from './format.ts';
import { InteractionReplies, isInteractionReplyKey } from './interaction-replies.ts';
import { commandsBody, componentsOf, decodeHandle, type InteractionRef, parseInteraction } from './interactions.ts';
import { nonceFields } from './nonce.ts';
import { type DiscordMessage, parseMessageCreate, THREAD_CHANNEL_TYPES, toInboundMessage } from './normalize.ts';
import { discordDeleteEvent, discordMessageEvent, discordUpdateEvent } from './observe.ts';
import { type ChannelSeen, SessionKeeper } from './session.ts';

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
  /**
   * Where the gateway session and each channel's last seen message are kept (the store's kv).
   * Without it a restart starts a new session and what was posted meanwhile is not read.
   */
  state?: AdapterState;
  /** Told of every guild message, edit and deletion the bot sees (the channel log's recorder). */
  observe?: ChannelObserver;
}

/** What Discord can do: edits, typing (one POST lasts ~10 s, renewed every 8 s), threads, 2,000 characters. */
export const DISCORD_CAPABILITIES: AdapterCapabilities = Object.freeze({
  edit: true,
  typing: true,
  threads: true,
  maxTextLength: 2000,
  editIntervalMs: 500,
  typingIntervalMs: 8000,
  // Every upload carries an enforced nonce: a resend after a crash returns the message already posted.
  fileResend: 'deduplicated',
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
  const replies = new InteractionReplies();
  // A resumed session may replay an interaction; it is answered and delivered once.
  const seenInteractions = new Set<string>();
  const keeper = new SessionKeeper(options.state, log);
  // Ends the background reads (catch-up) of one run.
  let running = new AbortController();
  // Resolves once discord.js has its caches (READY and the guilds) or the session resumed.
  let settled: Promise<void> = Promise.resolve();

  function enqueue(channelId: string, job: () => Promise<void>): void {
    void chains.run(channelId, job).catch((e: unknown) => {
      log.error({ err: errorMessage(e) }, 'delivering a Discord message failed');
    });
  }

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

  // Discord wants an answer within 3 s and never redelivers an interaction, so it is answered
  // before the sink runs: a command with a deferred response, a press with a deferred update.
  // A command the sink refused is told so (to its user only); nothing else can be done.
  function onInteraction(c: Client, d: unknown, seq: unknown): void {
    const parsed = parseInteraction(d);
    if (typeof parsed === 'string') {
      log.warn({ reason: parsed }, 'dropped a malformed INTERACTION_CREATE');
      return;
    }
    const { ref, result } = parsed;
    if (seenInteractions.has(ref.id)) return;
    seenInteractions.add(ref.id);
    if (seenInteractions.size > 5000) seenInteractions.delete(seenInteractions.values().next().value!);
    const channelId = result.kind === 'message' ? (result.message.threadId ?? result.message.chatId) : undefined;
    const answered = callback(ref, ref.kind === 'command' ? 5 : 6).then(
      () => true,
      (e: unknown) => {
        log.warn({ err: errorMessage(e) }, 'could not answer a Discord interaction');
        return false;
      },
    );
    if (result.kind !== 'message' || channelId === undefined) {
      if (result.kind === 'malformed') log.warn({ reason: result.reason }, 'dropped a malformed interaction');
      return;
    }
    const replyKey = result.message.messageId;
    if (ref.kind === 'command' && replyKey) replies.deferred(replyKey, ref);
    const release = keeper.hold(seq as number);
    enqueue(channelId, async () => {
      if (!(await answered) && replyKey) replies.drop(replyKey);
      if (client !== c || !sink) return; // stopped meanwhile
      try {
        await sink(result.message);
      } catch (e) {
        if (ref.kind !== 'command') throw e;
        if (replyKey) replies.drop(replyKey);
        await followUp(ref, 'boxbot could not take that now; try again.', true).catch(() => undefined);
        throw e;
      }
      release();
    });
  }

  const callback = (ref: InteractionRef, type: number): Promise<unknown> =>
    discordRequest(rest, 'POST', `/interactions/${ref.id}/${ref.token}/callback`, { type });
  const followUp = (ref: { applicationId: string; token: string }, content: string, ephemeral: boolean) =>
    discordRequest<{ id?: unknown }>(rest, 'POST', `/webhooks/${ref.applicationId}/${ref.token}`, {
      content,
      allowed_mentions: noPings,
      ...(ephemeral ? { flags: 64 } : {}),
    });

  // The bot's id: from READY, or (a resumed session has no READY) from GET /users/@me at start.
  const botIdOf = (c: Client): string | undefined => c.user?.id ?? self?.id;
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

  /**
   * Normalizes one message and hands it to the sink; false when the adapter stopped meanwhile.
   * A message the sink did not take keeps its channel's mark before it (a later run reads it again).
   */
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
    if (client !== c || !sink) return false; // stopped meanwhile
    try {
      await sink(result.message);
    } catch (e) {
      keeper.freeze(m.channelId);
      throw e;
    }
    keeper.accepted({ channelId: m.channelId, ...(m.guildId ? { guildId: m.guildId } : {}), messageId: m.id });
    return true;
  }

  /**
   * A new session (not a resumed one) misses what was posted while there was none: each channel
   * the bot has seen messages in is read from its last seen message on, through the same path
   * as live messages (the gateway's dedupe drops what arrives both ways). Each read runs in its
   * channel's queue, so live messages of that channel wait behind it and keep their order.
   */
  function catchUp(c: Client, botId: string): void {
    const signal = running.signal;
    for (const seen of keeper.tracked()) enqueue(seen.channelId, () => catchUpChannel(c, botId, seen, signal));
  }

  async function catchUpChannel(c: Client, botId: string, seen: ChannelSeen, signal: AbortSignal): Promise<void> {
    await settled;
    let delivered = 0;
    try {
      for await (const raw of readChannelAfter(rest, seen.channelId, seen.messageId, { signal })) {
        // History messages carry no guild id; the mark kept it.
        const parsed = parseMessageCreate(seen.guildId ? { ...raw, guild_id: seen.guildId } : raw);
        if (typeof parsed === 'string') {
          log.warn({ reason: parsed }, 'skipped a malformed message in channel history');
          continue;
        }
        if (skipped(parsed, botId)) {
          await observeOnly(c, botId, parsed);
          continue;
        }
        if (!(await deliver(c, botId, parsed, new Date()))) return;
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

  /** An edit or deletion in a guild channel, told to the observer in its channel's order. */
  function observeChange(c: Client, t: 'MESSAGE_UPDATE' | 'MESSAGE_DELETE', d: unknown): void {
    const observe = options.observe;
    const { channel_id: channelId, guild_id: guildId } = (d ?? {}) as { channel_id?: unknown; guild_id?: unknown };
    if (!observe || typeof channelId !== 'string' || typeof guildId !== 'string') return;
    enqueue(channelId, async () => {
      const threadParentId = await threadParent(c, { channelId });
      const place = { guildId, channelId, ...(threadParentId ? { threadParentId } : {}) };
      const botId = botIdOf(c);
      const event =
        t === 'MESSAGE_DELETE' ? discordDeleteEvent(d, place) : botId ? discordUpdateEvent(d, place, botId) : undefined;
      if (event) observe(event);
    });
  }

  function onDispatch(c: Client, packet: unknown): void {
    try {
      if (typeof packet !== 'object' || packet === null) return;
      const { t, s, d } = packet as { t?: unknown; s?: unknown; d?: unknown };
      if (t === 'READY') {
        const botId = (d as { user?: { id?: unknown } } | null)?.user?.id;
        if (typeof botId === 'string') catchUp(c, botId);
        return;
      }
      if (t === 'INTERACTION_CREATE') {
        onInteraction(c, d, s);
        return;
      }
      if (t === 'MESSAGE_UPDATE' || t === 'MESSAGE_DELETE') {
        observeChange(c, t, d);
        return;
      }
      if (t !== 'MESSAGE_CREATE') return;
      const parsed = parseMessageCreate(d);
      if (typeof parsed === 'string') {
        log.warn({ reason: parsed }, 'dropped a malformed MESSAGE_CREATE');
        return;
      }
      const botId = botIdOf(c);
      if (!botId) return;
      if (skipped(parsed, botId)) {
        enqueue(parsed.channelId, () => observeOnly(c, botId, parsed));
        return;
      }
      const receivedAt = new Date();
      // The session's saved sequence stays before this dispatch until the sink took it.
      const release = keeper.hold(s as number);
      enqueue(parsed.channelId, async () => {
        if (await deliver(c, botId, parsed, receivedAt)) release();
      });
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'dropped a dispatch the adapter could not read');
    }
  }

  let starting = false;

  async function start(next: InboundSink): Promise<void> {
    if (client || starting) throw alreadyStarted('discord'); // connected or connecting
    starting = true;
    try {
      await keeper.load();
      const saved = keeper.retrieve() !== null;
      try {
        await connect(next);
      } catch (e) {
        // A saved session whose resume URL cannot be reached (or that never resumes) is dropped
        // once: a new session, and the catch-up, instead of failing every start on it.
        if (!saved || (e instanceof AdapterApiError && e.status === 401)) throw e;
        log.warn({ err: errorMessage(e) }, 'could not resume the saved Discord session; starting a new one');
        keeper.forget();
        await connect(next);
      }
    } catch (e) {
      await keeper.close();
      throw e;
    } finally {
      starting = false;
    }
  }

  async function connect(next: InboundSink): Promise<void> {
    const c = createDiscordClient({
      restApi: rest.restApi,
      timeoutMs: rest.timeoutMs,
      logger: log,
      ...(options.state ? { session: { retrieve: () => keeper.retrieve(), update: (_, s) => keeper.update(s) } } : {}),
    });
    client = c;
    sink = next;
    running = new AbortController();
    c.on(Events.Raw, (packet: unknown) => onDispatch(c, packet));
    c.on(Events.Error, (e) => log.error({ err: e.message }, 'discord.js error'));
    c.on(Events.ShardError, (e) => log.warn({ err: e.message }, 'gateway connection error'));
    c.on(Events.ShardReconnecting, () => log.info('gateway connection lost; reconnecting'));
    c.on(Events.ShardResume, (_id, replayed) => log.info({ replayed }, 'gateway session resumed'));
    c.on(Events.ShardDisconnect, (ev) => log.error({ code: ev.code }, 'gateway closed the connection for good'));
    let timer: NodeJS.Timeout | undefined;
    // A resumed session gets no READY (discord.js stays without its user and guilds): RESUMED
    // ends the start too.
    const ready = new Promise<void>((resolve, reject) => {
      c.once(Events.ClientReady, () => resolve());
      c.once(Events.ShardResume, () => resolve());
      const ms = options.readyTimeoutMs ?? 30_000;
      timer = setTimeout(
        () => reject(new AdapterNetworkError('discord', `the gateway was not ready after ${ms} ms`)),
        ms,
      );
    });
    settled = ready.catch(() => undefined);
    try {
      // A saved session is resumed without READY: the bot's id must be known before the replay.
      if (keeper.retrieve()) self = await whoAmI();
      await Promise.all([c.login(options.token), ready]);
    } catch (e) {
      client = undefined;
      sink = undefined;
      running.abort();
      const drop = socketsToDrop(c);
      await c.destroy().catch(() => undefined);
      drop();
      throw loginError(e);
    } finally {
      clearTimeout(timer);
    }
    if (c.user) self = { id: c.user.id, name: c.user.username };
    log.info({ bot: self?.name, guilds: c.guilds.cache.size, resumed: !c.user }, 'connected to Discord');
  }

  async function whoAmI(): Promise<{ id: string; name: string }> {
    const me = await discordRequest<{ id?: unknown; username?: unknown }>(rest, 'GET', '/users/@me').catch(
      (e: unknown) => {
        if (e instanceof AdapterApiError && e.status === 401)
          throw new AdapterApiError('discord', 401, 'the bot token was refused; check DISCORD_BOT_TOKEN');
        throw e;
      },
    );
    if (typeof me?.id !== 'string' || typeof me.username !== 'string')
      throw new AdapterApiError('discord', 502, 'GET /users/@me answered without an id');
    return { id: me.id, name: me.username };
  }

  async function stop(): Promise<void> {
    const c = client;
    client = undefined;
    sink = undefined;
    running.abort();
    if (!c) return;
    if (options.state) {
      // Saved before the connection closes (closing ends discord.js's copy), and left resumable.
      await keeper.close();
      await closeResumable(c);
    }
    await c.destroy();
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

  /**
   * POST a message with the nonce of its idempotency key. A repeated nonce gets back the message
   * the first send made, which may show other text by now (a preview sent again under its key
   * after a restart): it is edited to show this one, as a send promises.
   */
  async function createMessage(
    channel: string,
    body: { content: string; components?: unknown; [field: string]: unknown },
    opts: SendOptions | undefined,
  ): Promise<{ id?: unknown }> {
    const key = opts?.idempotencyKey;
    const path = `/channels/${channel}/messages`;
    const sent = await discordRequest<{ id?: unknown; content?: unknown }>(rest, 'POST', path, {
      ...body,
      ...nonceFields(key),
    });
    if (key && typeof sent?.id === 'string' && typeof sent.content === 'string' && sent.content !== body.content)
      await discordRequest(rest, 'PATCH', `${path}/${sent.id}`, {
        content: body.content,
        allowed_mentions: noPings,
        ...(body.components ? { components: body.components } : {}),
      });
    return sent;
  }
  const noPings = { parse: [] as string[], replied_user: true };

  /** A guild channel's history for the channel log (channel-history.ts), as this bot. */
  const readHistory: ChannelHistoryReader = (channel, from, observe, signal, pace) =>
    readGuildHistory(rest, self?.id ?? (client ? botIdOf(client) : undefined), channel, from, observe, {
      ...(signal ? { signal } : {}),
      ...(pace ? { pace } : {}),
    });

  return {
    platform: 'discord',
    readHistory,
    capabilities: DISCORD_CAPABILITIES,
    start,
    stop,
    async send(target, text, opts): Promise<SentMessage> {
      // The first answer to a slash command fills in its deferred response (interaction-replies.ts).
      // Taken only once it worked: a failed attempt retried by the gateway fills it in then.
      const hook = replies.waiting(target.replyToMessageId);
      const reply =
        target.replyToMessageId && !isInteractionReplyKey(target.replyToMessageId)
          ? { message_reference: { message_id: target.replyToMessageId, fail_if_not_exists: false } }
          : {};
      const components = opts?.buttons?.length ? { components: componentsOf(opts.buttons) } : {};
      const sent = await withMarkupFallback(markdown, text, opts, (content) =>
        hook
          ? discordRequest<{ id?: unknown }>(
              rest,
              'PATCH',
              `/webhooks/${hook.applicationId}/${hook.token}/messages/@original`,
              {
                content,
                allowed_mentions: noPings,
                ...components,
              },
            )
          : createMessage(channelOf(target), { content, allowed_mentions: noPings, ...reply, ...components }, opts),
      );
      if (typeof sent?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'message create answered without a message id');
      if (hook) replies.answered(target.replyToMessageId!, sent.id, hook);
      return { messageId: sent.id };
    },
    async sendFile(target, file, opts): Promise<SentMessage> {
      // A slash command's reply key is no message to reference; the file goes to its channel.
      const reply =
        target.replyToMessageId && !isInteractionReplyKey(target.replyToMessageId)
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
          ...nonceFields(opts?.idempotencyKey),
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
      // Absent buttons are left as they are (Discord keeps components an edit does not name).
      const components = opts?.buttons ? { components: componentsOf(opts.buttons) } : {};
      const hook = replies.forMessage(messageId);
      const path = hook
        ? `/webhooks/${hook.applicationId}/${hook.token}/messages/${messageId}`
        : `/channels/${channelOf(target)}/messages/${messageId}`;
      await withMarkupFallback(markdown, text, opts, (content) =>
        discordRequest(rest, 'PATCH', path, { content, allowed_mentions: noPings, ...components }),
      );
    },
    async sendPrivate(to, text): Promise<void> {
      const dm = await discordRequest<{ id?: unknown }>(rest, 'POST', '/users/@me/channels', {
        recipient_id: to.userId,
      });
      if (typeof dm?.id !== 'string')
        throw new AdapterApiError('discord', 502, 'POST /users/@me/channels answered without an id');
      await discordRequest(rest, 'POST', `/channels/${dm.id}/messages`, { content: text, allowed_mentions: noPings });
    },
    async typing(target): Promise<void> {
      await discordRequest(rest, 'POST', `/channels/${channelOf(target)}/typing`);
    },
    routes: () => [],
    identity: () => self,
    async setCommands(commands) {
      // The application id comes with READY; before start, from the API.
      const applicationId =
        client?.application?.id ?? (await discordRequest<{ id?: unknown }>(rest, 'GET', '/applications/@me'))?.id;
      if (typeof applicationId !== 'string')
        throw new AdapterApiError('discord', 502, 'GET /applications/@me answered without an id');
      await discordRequest(rest, 'PUT', `/applications/${applicationId}/commands`, commandsBody(commands));
    },
    async answerPress(press, text) {
      const hook = decodeHandle(press.action?.handle);
      if (!hook) throw new AdapterError('discord', 'not-a-press', 'answerPress needs a button press');
      await followUp(hook, text.slice(0, MAX_CONTENT), true);
    },
    fetchAttachment: fetchDiscordFile,
  };
}
