// The gateway transport: the discord.js Client the adapter runs on, with the intents it needs,
// DM partials, REST pointed at `restApi` with rate limits rejected (not waited out), small
// caches, a guard so a dispatch discord.js cannot handle is logged and dropped, not fatal, and
// the gateway session kept where the adapter says (session.ts) instead of in memory only.
import { Client, DiscordAPIError, GatewayIntentBits, HTTPError, Options, Partials, RateLimitError } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { AdapterApiError, AdapterError, AdapterNetworkError } from '../errors.ts';
import type { GatewaySession } from './session.ts';

/** Where the gateway session lives: @discordjs/ws's retrieveSessionInfo/updateSessionInfo hooks. */
export interface SessionHooks {
  retrieve(shardId: number): GatewaySession | null;
  update(shardId: number, info: GatewaySession | null): void;
}

/**
 * Gateway intents: guild metadata (channels, threads), guild and DM messages, and message
 * content. MessageContent is privileged: it must be switched on in the Developer Portal
 * (Bot → Privileged Gateway Intents) or Discord refuses the login with close code 4014.
 */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
] as const;

/** Creates the Client (not logged in). */
export function createDiscordClient(opts: {
  restApi: string;
  timeoutMs: number;
  logger: Logger;
  session?: SessionHooks;
}): Client {
  const client = new Client({
    intents: [...DISCORD_INTENTS],
    // DM channels are not in any cache until their first message; without this partial
    // discord.js would ignore DMs.
    partials: [Partials.Channel],
    rest: { api: opts.restApi, rejectOnRateLimit: () => true, retries: 0, timeout: opts.timeoutMs },
    // The adapter reads raw payloads; keeping 200 messages per channel would only cost memory.
    makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    allowedMentions: { parse: [], repliedUser: true },
    failIfNotExists: false,
  });
  guardPacketHandling(client, opts.logger);
  if (opts.session) keepSession(client, opts.session, opts.logger);
  return client;
}

type WsManager = { options: Record<string, unknown>; destroy(o: { code: number; reason: string }): Promise<void> };

/**
 * discord.js builds @discordjs/ws's manager at login with session hooks that read and write a
 * field of its shard objects; the hooks are pointed at `hooks` (keeping discord.js's field in
 * step: it reads it to tell a resume from an identify). The manager exists from the moment
 * discord.js attaches its events to it, before it connects.
 */
function keepSession(client: Client, hooks: SessionHooks, log: Logger): void {
  const ws = client.ws as unknown as { attachEvents?: () => void; _ws?: WsManager };
  const original = ws.attachEvents;
  if (typeof original !== 'function') {
    log.warn('discord.js has no WebSocketManager.attachEvents; the gateway session is kept in memory only');
    return;
  }
  ws.attachEvents = function attach(this: { _ws?: WsManager }): void {
    const options = this._ws?.options;
    const update = options?.updateSessionInfo;
    if (options && typeof update === 'function') {
      options.retrieveSessionInfo = (shardId: number) => hooks.retrieve(shardId);
      options.updateSessionInfo = (shardId: number, info: GatewaySession | null) => {
        update.call(options, shardId, info);
        hooks.update(shardId, info);
      };
      // discord.js's own field, which its Hello handler reads.
      const shards = (client.ws as unknown as { shards: Map<number, { sessionInfo: unknown }> }).shards;
      const put = shards.set.bind(shards);
      shards.set = (id, shard) => {
        shard.sessionInfo = hooks.retrieve(id);
        return put(id, shard);
      };
    } else log.warn('discord.js has no session hooks; the gateway session is kept in memory only');
    original.call(this);
  };
}

/**
 * The sockets of a client's shards, to end after destroying it (destroying forgets them):
 * @discordjs/ws takes its error handler off a socket it gives up on before the handshake, so that
 * socket's later failure (a reset from a gateway that never answered) would be an uncaught error
 * ending the process. Call before destroy; call what it returns after.
 */
export function socketsToDrop(client: Client): () => void {
  const manager = (client.ws as unknown as { _ws?: { strategy?: { shards?: Map<unknown, unknown> } } })._ws;
  const sockets: { on: (event: string, fn: () => void) => void; terminate: () => void }[] = [];
  for (const shard of manager?.strategy?.shards?.values() ?? []) {
    const socket = (shard as { connection?: { on?: unknown; terminate?: unknown } }).connection;
    if (socket && typeof socket.on === 'function' && typeof socket.terminate === 'function')
      sockets.push(socket as (typeof sockets)[number]);
  }
  return () => {
    for (const socket of sockets) {
      socket.on('error', () => undefined);
      socket.terminate();
    }
  };
}

/**
 * Closes the gateway connection so the session stays resumable (a close with 1000 ends it on
 * Discord's side): the next start RESUMEs and Discord replays what was posted meanwhile.
 */
export async function closeResumable(client: Client): Promise<void> {
  const manager = (client.ws as unknown as { _ws?: WsManager })._ws;
  await manager?.destroy({ code: 4200, reason: 'restarting; the session stays resumable' }).catch(() => undefined);
}

/**
 * discord.js throws from its packet handlers on some malformed dispatches (a MESSAGE_CREATE
 * with `d: null`), which ends as an unhandled rejection. Its per-packet entry point is wrapped
 * so such a packet is logged and dropped; the connection carries on.
 */
function guardPacketHandling(client: Client, log: Logger): void {
  const ws = client.ws as unknown as { handlePacket?: (packet: unknown, shard: unknown) => boolean };
  const original = ws.handlePacket;
  if (typeof original !== 'function') {
    log.warn('discord.js has no WebSocketManager.handlePacket; malformed dispatches are not guarded');
    return;
  }
  ws.handlePacket = function guarded(this: unknown, packet: unknown, shard: unknown): boolean {
    try {
      return original.call(this, packet, shard);
    } catch (e) {
      const t = typeof packet === 'object' && packet !== null ? (packet as { t?: unknown }).t : undefined;
      log.warn({ event: t, err: errorMessage(e) }, 'dropped a dispatch discord.js could not handle');
      return true;
    }
  };
}

/** Maps a login/connect failure from discord.js to an AdapterError naming what to fix. */
export function loginError(e: unknown): AdapterError {
  if (e instanceof AdapterError) return e;
  if (e instanceof RateLimitError)
    return new AdapterApiError('discord', 429, `rate limited on ${e.route}`, Math.max(0, Math.ceil(e.retryAfter)));
  if (e instanceof DiscordAPIError) return new AdapterApiError('discord', e.status, e.message);
  if (e instanceof HTTPError) return new AdapterApiError('discord', e.status, e.message);
  const message = errorMessage(e);
  const code = (e as { code?: unknown } | undefined)?.code;
  if (code === 'TokenInvalid' || /Authentication failed/i.test(message)) {
    return new AdapterApiError('discord', 401, 'the bot token was refused; check DISCORD_BOT_TOKEN');
  }
  if (/disallowed intents/i.test(message)) {
    return new AdapterError(
      'discord',
      'disallowed-intents',
      'Discord refused the privileged Message Content intent: switch it on in the Developer Portal (Bot → Privileged ' +
        'Gateway Intents)',
    );
  }
  if (/invalid intents|sharding|invalid shard|api version/i.test(message))
    return new AdapterError('discord', 'gateway-refused', message);
  return new AdapterNetworkError('discord', message);
}
