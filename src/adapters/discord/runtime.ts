// What the Discord adapter's parts share for one adapter instance: its options, REST settings,
// the connection of the current run, per-channel inbound order and the saved session. The parts
// (connection.ts, intake.ts, slash-commands.ts, backfill.ts, outbound.ts) each take this object;
// adapter.ts makes it and wires them.
import type { Client } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import { createKeyedLock } from '../../core/keyed-lock.ts';
import { type Logger, silentLogger } from '../../core/log.ts';
import type { ChannelObserver } from '../channel-event.ts';
import type { AdapterCapabilities, AdapterState, InboundSink } from '../types.ts';
import type { DiscordRestOptions } from './api.ts';
import { InteractionReplies } from './interaction-replies.ts';
import { SessionKeeper } from './session.ts';

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
   * How long stop() waits for the gateway to answer its close (default 5 s); then the socket is ended, so a
   * gateway that never answers does not hold the stop for the WebSocket library's 30 s.
   */
  closeTimeoutMs?: number;
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

/** The longest message content Discord takes. */
export const MAX_CONTENT = DISCORD_CAPABILITIES.maxTextLength;

/** Mentions in the bot's messages never ping anyone (a reply still notes whom it answers). */
export const noPings = { parse: [] as string[], replied_user: true };

/** The state of one Discord adapter, shared by its parts. */
export interface DiscordRuntime {
  readonly options: DiscordAdapterOptions;
  readonly log: Logger;
  readonly rest: DiscordRestOptions;
  /** The connection of the current run (undefined when stopped). */
  client: Client | undefined;
  sink: InboundSink | undefined;
  self: { id: string; name: string } | undefined;
  /** Slash commands waiting for their first answer. */
  readonly replies: InteractionReplies;
  readonly keeper: SessionKeeper;
  /** Ends the background reads (catch-up) of one run. */
  running: AbortController;
  /** Resolves once discord.js has its caches (READY and the guilds) or the session resumed. */
  settled: Promise<void>;
  /** Runs `job` after the jobs queued before it for the same channel. */
  enqueue(channelId: string, job: () => Promise<void>): void;
}

/** The shared state of a new adapter. */
export function createDiscordRuntime(options: DiscordAdapterOptions): DiscordRuntime {
  const log = (options.logger ?? silentLogger).child({ scope: 'adapter:discord' });
  // Inbound order is kept per channel: a lookup for one channel never delays another.
  const chains = createKeyedLock();
  return {
    options,
    log,
    rest: {
      restApi: options.restApi ?? 'https://discord.com/api',
      token: options.token,
      timeoutMs: options.requestTimeoutMs ?? 15_000,
    },
    client: undefined,
    sink: undefined,
    self: undefined,
    replies: new InteractionReplies(),
    keeper: new SessionKeeper(options.state, log),
    running: new AbortController(),
    settled: Promise.resolve(),
    enqueue(channelId, job) {
      void chains.run(channelId, job).catch((e: unknown) => {
        log.error({ err: errorMessage(e) }, 'delivering a Discord message failed');
      });
    },
  };
}

/** The bot's id: from READY, or (a resumed session has no READY) from GET /users/@me at start. */
export const botIdOf = (rt: DiscordRuntime, c: Client): string | undefined => c.user?.id ?? rt.self?.id;
