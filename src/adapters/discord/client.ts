// The gateway transport: the discord.js Client the adapter runs on, with the intents it needs,
// DM partials, REST pointed at `restApi` with rate limits rejected (not waited out), small
// caches, and a guard so a dispatch discord.js cannot handle is logged and dropped, not fatal.
import { Client, DiscordAPIError, GatewayIntentBits, HTTPError, Options, Partials, RateLimitError } from 'discord.js';
import { errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { AdapterApiError, AdapterError, AdapterNetworkError } from '../errors.ts';

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
export function createDiscordClient(opts: { restApi: string; timeoutMs: number; logger: Logger }): Client {
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
  return client;
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
