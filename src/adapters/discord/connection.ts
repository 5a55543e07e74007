// The gateway connection: discord.js keeps it (heartbeats, resume, caches of guilds, channels and
// threads); start waits for READY (or RESUMED of a saved session) and routes each raw dispatch to
// the intake, the interactions or the catch-up. With `state`, the session outlives the process
// (session.ts): a restart RESUMEs and Discord replays what was missed.
import { type Client, Events } from 'discord.js';
import { errorMessage } from '../../core/errors.ts';
import { AdapterApiError, AdapterNetworkError, alreadyStarted } from '../errors.ts';
import type { InboundSink } from '../types.ts';
import { discordRequest } from './api.ts';
import type { DiscordBackfill } from './backfill.ts';
import { closeResumable, createDiscordClient, loginError, socketsToDrop } from './client.ts';
import type { DiscordIntake } from './intake.ts';
import type { DiscordRuntime } from './runtime.ts';
import type { DiscordSlashCommands } from './slash-commands.ts';

/** Where the connection sends what arrives. */
export interface DispatchRoutes {
  intake: DiscordIntake;
  slash: DiscordSlashCommands;
  backfill: DiscordBackfill;
}

/** The connection of the adapter whose state is `rt`: its start and stop. */
export function createConnection(
  rt: DiscordRuntime,
  routes: DispatchRoutes,
): { start(next: InboundSink): Promise<void>; stop(): Promise<void> } {
  const { log, options, keeper, rest } = rt;

  function onDispatch(c: Client, packet: unknown): void {
    try {
      if (typeof packet !== 'object' || packet === null) return;
      const { t, s, d } = packet as { t?: unknown; s?: unknown; d?: unknown };
      if (t === 'READY') {
        const botId = (d as { user?: { id?: unknown } } | null)?.user?.id;
        if (typeof botId === 'string') routes.backfill.catchUp(c, botId);
      } else if (t === 'INTERACTION_CREATE') routes.slash.onInteraction(c, d, s);
      else if (t === 'MESSAGE_UPDATE' || t === 'MESSAGE_DELETE') routes.intake.observeChange(c, t, d);
      else if (t === 'MESSAGE_CREATE') routes.intake.onMessageCreate(c, d, s);
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'dropped a dispatch the adapter could not read');
    }
  }

  let starting = false;

  async function start(next: InboundSink): Promise<void> {
    if (rt.client || starting) throw alreadyStarted('discord'); // connected or connecting
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
    rt.client = c;
    rt.sink = next;
    rt.running = new AbortController();
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
    rt.settled = ready.catch(() => undefined);
    try {
      // A saved session is resumed without READY: the bot's id must be known before the replay.
      if (keeper.retrieve()) rt.self = await whoAmI();
      await Promise.all([c.login(options.token), ready]);
    } catch (e) {
      rt.client = undefined;
      rt.sink = undefined;
      rt.running.abort();
      const drop = socketsToDrop(c);
      await c.destroy().catch(() => undefined);
      drop();
      throw loginError(e);
    } finally {
      clearTimeout(timer);
    }
    if (c.user) rt.self = { id: c.user.id, name: c.user.username };
    log.info({ bot: rt.self?.name, guilds: c.guilds.cache.size, resumed: !c.user }, 'connected to Discord');
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
    const c = rt.client;
    rt.client = undefined;
    rt.sink = undefined;
    rt.running.abort();
    if (!c) return;
    // The sockets are ended if the gateway does not answer the close in time (ending one answers the wait for it);
    // a session left that way stays resumable.
    const cut = setTimeout(socketsToDrop(c), options.closeTimeoutMs ?? 5000);
    try {
      if (options.state) {
        // Saved before the connection closes (closing ends discord.js's copy), and left resumable.
        await keeper.close();
        await closeResumable(c);
      }
      await c.destroy();
    } finally {
      clearTimeout(cut);
    }
  }

  return { start, stop };
}
