// The only place that wires everything together: config and secrets → store, agent runtime,
// channel adapters, gateway, HTTP server (and the scheduler). `boxbot start` calls startBoxbot.
// Example: const app = await startBoxbot({ configFile: 'boxbot.config.json' }); ...; await app.stop();
import { join } from 'node:path';
import { createDiscordAdapter } from './adapters/discord/index.ts';
import type { AdapterState, ChannelAdapter } from './adapters/index.ts';
import { platformOf, targetOf } from './adapters/index.ts';
import { createSlackAdapter } from './adapters/slack/index.ts';
import { createTelegramAdapter } from './adapters/telegram/index.ts';
import { createWebAdapter, type WebAdapter } from './adapters/web/index.ts';
import { type AgentRuntime, createAgentRunner, createAgentRuntime } from './agent/index.ts';
import { channelEnabled } from './config/channels.ts';
import { configuredKeyNames, readSecrets, type Secrets, secretValues } from './config/env.ts';
import { ConfigError, type LoadedConfig, loadConfig } from './config/load.ts';
import type { HttpOverride } from './config/overrides.ts';
import { errorMessage } from './errors.ts';
import { createAdminApi } from './gateway/admin-api.ts';
import { createGateway, type Gateway } from './gateway/gateway.ts';
import { type HttpServer, isLoopback, startHttpServer } from './gateway/http-server.ts';
import { createMetrics } from './gateway/metrics.ts';
import { createLogger, type Logger, registerSecrets } from './log.ts';
import {
  configuredTargetCheck,
  createScheduler,
  createScheduleTool,
  jobsApi,
  type Scheduler,
} from './scheduler/index.ts';
import { createFileStore, type JsonValue, type Store } from './store/index.ts';

/** How to start. Everything is optional: the defaults run. */
export interface StartOptions {
  configFile?: string;
  /** `--host`/`--port`/`PORT`, over the config file's `http` section. */
  http?: HttpOverride;
  cwd?: string;
  /** Environment to read secrets from (default: the process's). */
  env?: NodeJS.ProcessEnv;
  log?: Logger;
  /** Test hook: a fetch for the model SDKs. */
  fetch?: typeof fetch;
  /** Sandbox worker threads. */
  workers?: number;
}

/** A running boxbot. */
export interface Boxbot {
  url: string;
  gateway: Gateway;
  store: Store;
  runtime: AgentRuntime;
  channels: string[];
  scheduler: Scheduler;
  /** The model in use, or the hint shown instead of answers. */
  model: { spec?: string; hint?: string };
  stop(): Promise<void>;
}

/** Which channels the config and secrets turn on; errors name the missing variable. */
export function channelAdapters(
  loaded: LoadedConfig,
  secrets: Secrets,
  store: Store,
  log: Logger,
): { adapters: ChannelAdapter[]; web?: WebAdapter } {
  const ch = loaded.config.channels;
  const adapters: ChannelAdapter[] = [];
  const state: AdapterState = {
    get: (k) => store.kv.get(k),
    set: (k, v) => store.kv.set(k, v as JsonValue),
  };
  const tg = ch.telegram;
  if (channelEnabled(loaded.config, secrets, 'telegram')) {
    if (!secrets.TELEGRAM_BOT_TOKEN)
      throw new ConfigError('channels.telegram is enabled but TELEGRAM_BOT_TOKEN is not set');
    const webhook = tg?.mode === 'webhook';
    if (webhook && !tg?.webhookUrl)
      throw new ConfigError(
        'channels.telegram.mode is "webhook": set channels.telegram.webhookUrl (the public URL ending in ' +
          '/webhooks/telegram)',
      );
    if (webhook && !secrets.TELEGRAM_WEBHOOK_SECRET)
      throw new ConfigError(
        'channels.telegram.mode is "webhook": set TELEGRAM_WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -)',
      );
    adapters.push(
      createTelegramAdapter({
        token: secrets.TELEGRAM_BOT_TOKEN,
        state,
        logger: log,
        ...(tg?.apiRoot ? { apiRoot: tg.apiRoot } : {}),
        ...(webhook
          ? { mode: 'webhook' as const, webhook: { url: tg!.webhookUrl!, secret: secrets.TELEGRAM_WEBHOOK_SECRET! } }
          : {}),
      }),
    );
  }
  const dc = ch.discord;
  if (channelEnabled(loaded.config, secrets, 'discord')) {
    if (!secrets.DISCORD_BOT_TOKEN)
      throw new ConfigError('channels.discord is enabled but DISCORD_BOT_TOKEN is not set');
    adapters.push(
      createDiscordAdapter({
        token: secrets.DISCORD_BOT_TOKEN,
        logger: log,
        ...(dc?.restApi ? { restApi: dc.restApi } : {}),
      }),
    );
  }
  const sl = ch.slack;
  if (channelEnabled(loaded.config, secrets, 'slack')) {
    if (!secrets.SLACK_BOT_TOKEN) throw new ConfigError('channels.slack is enabled but SLACK_BOT_TOKEN is not set');
    const mode = sl?.mode ?? 'socket';
    if (mode === 'socket' && !secrets.SLACK_APP_TOKEN)
      throw new ConfigError(
        'channels.slack.mode is "socket": set SLACK_APP_TOKEN (an xapp- token with connections:write), or use mode ' +
          '"http" with SLACK_SIGNING_SECRET',
      );
    if (mode === 'http' && !secrets.SLACK_SIGNING_SECRET)
      throw new ConfigError('channels.slack.mode is "http": set SLACK_SIGNING_SECRET so every event can be verified');
    adapters.push(
      createSlackAdapter({
        mode,
        botToken: secrets.SLACK_BOT_TOKEN,
        logger: log,
        ...(secrets.SLACK_APP_TOKEN ? { appToken: secrets.SLACK_APP_TOKEN } : {}),
        ...(secrets.SLACK_SIGNING_SECRET ? { signingSecret: secrets.SLACK_SIGNING_SECRET } : {}),
        ...(sl?.apiUrl ? { apiUrl: sl.apiUrl } : {}),
      }),
    );
  }
  let web: WebAdapter | undefined;
  if (channelEnabled(loaded.config, secrets, 'web')) {
    const exposed = !isLoopback(loaded.config.http.host);
    web = createWebAdapter({
      logger: log,
      ...(exposed ? { accessToken: secrets.BOXBOT_ADMIN_TOKEN, anyHost: true } : {}),
    });
    adapters.push(web);
  }
  return { adapters, ...(web ? { web } : {}) };
}

/** Starts the gateway on the config's defaults; resolves once every channel is up. */
export async function startBoxbot(o: StartOptions = {}): Promise<Boxbot> {
  const loaded = loadConfig(o.configFile, o.cwd, o.http ? { http: o.http } : {});
  const secrets = readSecrets(o.env, configuredKeyNames(loaded.config));
  registerSecrets(secretValues(secrets));
  const log = o.log ?? createLogger();
  const store = createFileStore(loaded.dataDir, { logger: log.child({ scope: 'store' }) });
  const metrics = createMetrics();
  const runtime = await createAgentRuntime({
    loaded,
    secrets,
    log,
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.workers ? { workers: o.workers } : {}),
  });
  const cleanups: (() => Promise<unknown>)[] = [() => runtime.close(), () => store.close()];
  const cleanup = async () => {
    for (const c of cleanups.reverse())
      await c().catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'shutdown step failed'));
  };
  try {
    const { adapters, web } = channelAdapters(loaded, secrets, store, log);
    const running = new Set(adapters.map((a) => a.platform as string));
    // The gateway is created below; deliveries only happen after start, when it exists.
    let gatewayRef: Gateway | undefined;
    const scheduler = createScheduler({
      store,
      loaded,
      secrets,
      deliver: (key, text, id) => {
        if (!gatewayRef) throw new Error('the gateway is not running');
        return gatewayRef.post(targetOf(key), text, id);
      },
      isKnownTarget: (key) => {
        const configured = configuredTargetCheck(loaded.config, secrets)(key);
        return configured === true && !running.has(platformOf(key))
          ? `no ${platformOf(key)} channel is running for ${key}`
          : configured;
      },
      log: log.child({ scope: 'scheduler' }),
    });
    const agent = createAgentRunner({
      secretValues: secretValues(secrets),
      builtinsFor: (ctx) => [createScheduleTool(scheduler, { ...ctx, admins: loaded.config.admins })],
      store,
      deps: runtime.deps,
      workspacesDir: join(loaded.dataDir, 'workspaces'),
      sandbox: { block: runtime.block, limits: runtime.limits },
      ...(runtime.unavailableHint
        ? { unavailableHint: `boxbot has no model to answer with: ${runtime.unavailableHint}. Then restart boxbot.` }
        : {}),
      timeoutMs: loaded.config.gateway.runTimeoutMs,
      maxTurns: loaded.config.gateway.maxTurns,
      metrics,
      log,
    });
    const gateway = createGateway({
      config: loaded.config,
      adapters,
      agent,
      store: store.delivery,
      approvals: store.approvals,
      log,
      metrics,
      concurrency: loaded.config.gateway.concurrency,
      replyToStrangers: loaded.config.gateway.replyToStrangers,
    });
    const admin = createAdminApi({
      store,
      tools: () => ({
        tools: runtime.registry.list().map((t) => ({
          name: t.spec.name,
          level: t.spec.permissionLevel,
          about: t.spec.about,
          source: t.source,
          version: t.spec.version,
        })),
        problems: runtime.registry.problems(),
      }),
      skills: () => ({
        skills: runtime.skills.list().map((s) => ({ name: s.name, description: s.description })),
        problems: runtime.skills.problems(),
      }),
      extra: { '/jobs': jobsApi(scheduler) },
    });
    const http: HttpServer = await startHttpServer({
      host: loaded.config.http.host,
      port: loaded.config.http.port,
      ...(secrets.BOXBOT_ADMIN_TOKEN ? { adminToken: secrets.BOXBOT_ADMIN_TOKEN } : {}),
      metrics,
      routes: adapters.flatMap((a) => a.routes()),
      attach: web ? [(app) => web.attach(app)] : [],
      admin,
      health: () => ({ channels: adapters.map((a) => a.platform), tools: runtime.registry.list().length }),
      log: log.child({ scope: 'http' }),
    });
    cleanups.push(() => http.close());
    gatewayRef = gateway;
    await gateway.start();
    cleanups.push(() => gateway.stop());
    await scheduler.start();
    cleanups.push(() => scheduler.stop());
    const spec = runtime.unavailableHint ? undefined : (loaded.config.model ?? runtime.deps.resolveModel(undefined).id);
    return {
      url: http.url,
      gateway,
      store,
      runtime,
      scheduler,
      channels: adapters.map((a) => a.platform),
      model: spec ? { spec } : { hint: runtime.unavailableHint! },
      stop: cleanup,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
