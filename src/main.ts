// The only place that wires everything together: config and secrets → store, agent runtime,
// channel adapters, gateway, HTTP server (and the scheduler). `boxbot start` calls startBoxbot.
// Example: const app = await startBoxbot({ configFile: 'boxbot.config.json' }); ...; await app.stop();
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { createDiscordAdapter } from './adapters/discord/index.ts';
import type { AdapterState, ChannelAdapter } from './adapters/index.ts';
import { decodeConversationKey, platformOf, targetOf } from './adapters/index.ts';
import type { createSlackAdapter } from './adapters/slack/index.ts';
import type { createTelegramAdapter } from './adapters/telegram/index.ts';
import { createWebAdapter, type WebAdapter, type WebFileRetention, webIdentityOf } from './adapters/web/index.ts';
import { type AgentRuntime, createAgentRuntime } from './agent/index.ts';
import { createMcpHub } from './agent/mcp/index.ts';
import { createTranscriber } from './agent/providers/index.ts';
import { offerableToolNames } from './agent/tools/web-search-grant.ts';
import { channelEnabled, channelProblems } from './config/channels.ts';
import {
  configuredKeyNames,
  readSecrets,
  readVariable,
  SECRET_VARIABLES,
  type Secrets,
  secretValues,
} from './config/env.ts';
import { anyRecorded, historyPolicy } from './config/history.ts';
import { ConfigError, type LoadedConfig, loadConfig } from './config/load.ts';
import { mcpConnection, mcpEntries } from './config/mcp.ts';
import type { HttpOverride } from './config/overrides.ts';
import { publicBaseUrl } from './config/public-url.ts';
import { databaseUrl } from './config/store-url.ts';
import { errorMessage } from './core/errors.ts';
import { createLogger, type Logger, registerSecrets } from './core/log.ts';
import { isLoopback } from './core/loopback.ts';
import { createStopSteps, type StopPart, type StopSteps, stopInStages } from './core/stop-steps.ts';
import { createAdminApi } from './gateway/admin-api.ts';
import { createAdminAuth, storedCsrfKey } from './gateway/admin-auth.ts';
import { type ChannelRecorder, createChannelRecorder, recordingAdapter } from './gateway/channel-recorder.ts';
import { createGateway, type Gateway } from './gateway/gateway.ts';
import { type HttpServer, startHttpServer } from './gateway/http-server.ts';
import { createLeadership, type Leadership } from './gateway/leadership.ts';
import { createMetrics, sumGauge } from './gateway/metrics.ts';
import { checkSharedWorkspaces } from './gateway/shared-workspaces.ts';
import { webCommand } from './gateway/web-command.ts';
import { createDailySpend } from './runner/daily-spend.ts';
import { createAgentRunner, memoryCommands, workspaceOf } from './runner/index.ts';
import type { MediaOptions } from './runner/media/index.ts';
import {
  configuredTargetCheck,
  createScheduler,
  createScheduleTool,
  createWebhookJournal,
  createWebhookTrigger,
  hookUrl,
  jobsApi,
  type Scheduler,
  type SchedulerOptions,
} from './scheduler/index.ts';
import { type JsonValue, openStore, type Store, startArchiveSweep, startChannelLogSweep } from './store/index.ts';

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
  /** Test hook: the sandbox worker's module (the tests' compiled copy of src/, not its TypeScript through tsx). */
  sandboxWorkerFile?: string;
  /** Test hook: the document parser child's entry file (the same compiled copy, for the same reason). */
  parserFile?: string;
  /** Test hook: the job worker thread's module (the same compiled copy: each job run skips tsx's start). */
  jobWorkerFile?: string;
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
  /** The config it runs on, and where its data lives (`loaded.dataDir`). */
  loaded: LoadedConfig;
  /**
   * Stops every part, side by side where order does not matter, the store last; `steps` names the parts under way
   * (for a caller's deadline: `stopWithin`). Runs left unfinished run again at the next start.
   */
  stop(steps?: StopSteps): Promise<void>;
}

// Stop stages: jobs end while the gateway still posts their answers; then intake and runs; then what runs used;
// then the spending not yet written; the store last.
const JOBS = 0;
const INTAKE = 1;
const SERVICES = 2;
const LEDGER = 3;
const STORE = 4;

/** The chat platforms' adapter factories, each loaded only when its channel is on. */
export interface PlatformFactories {
  telegram?: typeof createTelegramAdapter;
  discord?: typeof createDiscordAdapter;
  slack?: typeof createSlackAdapter;
}

/**
 * Loads the adapter factories of the channels the config and secrets turn on, and only those: each
 * platform's SDK (discord.js, Bolt, grammY) takes a noticeable part of a start to load, and most
 * gateways run one or two channels.
 */
export async function platformFactories(loaded: LoadedConfig, secrets: Secrets): Promise<PlatformFactories> {
  const on = (p: 'telegram' | 'discord' | 'slack') => channelEnabled(loaded.config, secrets, p);
  const [telegram, discord, slack] = await Promise.all([
    on('telegram') ? import('./adapters/telegram/index.ts') : undefined,
    on('discord') ? import('./adapters/discord/index.ts') : undefined,
    on('slack') ? import('./adapters/slack/index.ts') : undefined,
  ]);
  return {
    ...(telegram ? { telegram: telegram.createTelegramAdapter } : {}),
    ...(discord ? { discord: discord.createDiscordAdapter } : {}),
    ...(slack ? { slack: slack.createSlackAdapter } : {}),
  };
}

/** The factory of a channel that is on: platformFactories loaded it. */
function factory<K extends keyof PlatformFactories>(f: PlatformFactories, k: K): NonNullable<PlatformFactories[K]> {
  const made = f[k];
  if (!made) throw new Error(`the ${k} adapter was not loaded (platformFactories first)`);
  return made;
}

/**
 * Which channels the config and secrets turn on; a ConfigError names every missing key or variable.
 * `factories` holds the platforms' adapter factories (platformFactories) for the channels that are on.
 */
export function channelAdapters(
  loaded: LoadedConfig,
  secrets: Secrets,
  store: Store,
  log: Logger,
  recorder?: ChannelRecorder,
  factories: PlatformFactories = {},
): { adapters: ChannelAdapter[]; web?: WebAdapter } {
  const problems = channelProblems(loaded.config, secrets);
  if (problems.length) throw new ConfigError(problems.map((p) => p.message).join('; '));
  const makeTelegram = (o: Parameters<typeof createTelegramAdapter>[0]) => factory(factories, 'telegram')(o);
  const makeDiscord = (o: Parameters<typeof createDiscordAdapter>[0]) => factory(factories, 'discord')(o);
  const makeSlack = (o: Parameters<typeof createSlackAdapter>[0]) => factory(factories, 'slack')(o);
  const ch = loaded.config.channels;
  const adapters: ChannelAdapter[] = [];
  // Recorded channels (history.record): what the adapters see there, and the bot's own posts.
  const observe = recorder ? { observe: recorder.observe } : {};
  const recording = (a: ChannelAdapter): ChannelAdapter => (recorder ? recordingAdapter(a, recorder) : a);
  const state: AdapterState = {
    get: (k) => store.kv.get(k),
    set: (k, v) => store.kv.set(k, v as JsonValue),
  };
  const tg = ch.telegram;
  // channelProblems has made sure each enabled channel has its tokens and settings.
  if (channelEnabled(loaded.config, secrets, 'telegram')) {
    const webhook = tg?.mode === 'webhook';
    adapters.push(
      recording(
        makeTelegram({
          token: secrets.TELEGRAM_BOT_TOKEN!,
          state,
          logger: log,
          ...observe,
          ...(tg?.apiRoot ? { apiRoot: tg.apiRoot } : {}),
          ...(webhook
            ? { mode: 'webhook' as const, webhook: { url: tg!.webhookUrl!, secret: secrets.TELEGRAM_WEBHOOK_SECRET! } }
            : {}),
        }),
      ),
    );
  }
  const dc = ch.discord;
  if (channelEnabled(loaded.config, secrets, 'discord')) {
    adapters.push(
      recording(
        makeDiscord({
          token: secrets.DISCORD_BOT_TOKEN!,
          state,
          logger: log,
          ...observe,
          ...(dc?.restApi ? { restApi: dc.restApi } : {}),
        }),
      ),
    );
  }
  const sl = ch.slack;
  if (channelEnabled(loaded.config, secrets, 'slack')) {
    adapters.push(
      recording(
        makeSlack({
          mode: sl?.mode ?? 'socket',
          botToken: secrets.SLACK_BOT_TOKEN!,
          logger: log,
          ...observe,
          ...(secrets.SLACK_APP_TOKEN ? { appToken: secrets.SLACK_APP_TOKEN } : {}),
          ...(secrets.SLACK_SIGNING_SECRET ? { signingSecret: secrets.SLACK_SIGNING_SECRET } : {}),
          ...(sl?.apiUrl ? { apiUrl: sl.apiUrl } : {}),
        }),
      ),
    );
  }
  let web: WebAdapter | undefined;
  if (channelEnabled(loaded.config, secrets, 'web')) {
    const exposed = !isLoopback(loaded.config.http.host);
    // Unset, the web chat takes what the media step would take in one message: a larger upload
    // could only be refused later, and a smaller fixed cap would refuse what media.* allows.
    const maxUploadMb = ch.web?.maxUploadMb ?? loaded.config.media.maxMessageMb;
    web = createWebAdapter({
      logger: log,
      conversations: store.conversations,
      filesDir: join(loaded.dataDir, 'web-files'),
      display: store.webDisplay,
      legacyDisplayDir: join(loaded.dataDir, 'web-display'),
      maxUploadBytes: Math.round(maxUploadMb * 1024 * 1024),
      fileRetention: webFileRetention(ch.web?.files),
      sessions: store.webSessions,
      ...(ch.web?.sessionDays ? { sessionDays: ch.web.sessionDays } : {}),
      secureCookies: loaded.config.http.publicUrl?.startsWith('https:') ?? false,
      ...(exposed ? { accessToken: secrets.BOXBOT_ADMIN_TOKEN, anyHost: true } : {}),
    });
    adapters.push(web);
  }
  return { adapters, ...(web ? { web } : {}) };
}

/** The web chat's file retention and quota from `channels.web.files` (unset keys keep their defaults). */
function webFileRetention(
  f: NonNullable<LoadedConfig['config']['channels']['web']>['files'],
): Partial<WebFileRetention> {
  return {
    ...(f?.unsentUploadHours ? { unsentUploadMs: f.unsentUploadHours * 3600_000 } : {}),
    ...(f?.keepDays ? { keepMs: f.keepDays * 24 * 3600_000 } : {}),
    ...(f?.quotaMb ? { ownerQuotaBytes: Math.round(f.quotaMb * 1024 * 1024) } : {}),
  };
}

/** The gateway's media step from `media.*`: caps, the workspaces, and the transcriber when one is configured. */
function mediaOptions(
  loaded: LoadedConfig,
  secrets: Secrets,
  workspacesDir: string,
  log: Logger,
  fetchFn?: typeof fetch,
): MediaOptions {
  const m = loaded.config.media;
  const MB = 1024 * 1024;
  const { maxChars, maxParallel, ...caps } = m.extract;
  const base: MediaOptions = {
    maxFileBytes: Math.round(m.maxFileMb * MB),
    maxMessageBytes: Math.round(m.maxMessageMb * MB),
    workspaceOf: (key) => workspaceOf(workspacesDir, key),
    maxTextChars: maxChars,
    // The parser prints at most maxChars of text as JSON: 6 bytes a character covers any escaping.
    parseLimits: { ...caps, maxOutputBytes: maxChars * 6 + 4096 },
    maxParallelParses: maxParallel,
  };
  const spec = m.transcription.model;
  if (!spec) return base;
  try {
    const ctx = { config: loaded.config, secrets, ...(fetchFn ? { fetch: fetchFn } : {}) };
    return { ...base, transcribe: createTranscriber(spec, ctx, m.transcription.language) };
  } catch (e) {
    // A broken transcription setting must not keep the chat down: voice notes say what is wrong.
    log.warn({ model: spec, err: errorMessage(e) }, 'voice notes will not be transcribed');
    const why = errorMessage(e);
    return { ...base, transcriptionHint: `I cannot listen to voice notes: media.transcription.model failed (${why}).` };
  }
}

/** One day in milliseconds (retention settings are in days). */
const DAY_MS = 24 * 3600_000;

/**
 * What keeps the store tidy on every replica: the archive sweep, the channel recorder for channels
 * with `history.record` (webhooks land anywhere) and the channel log's retention sweep.
 */
function startStoreUpkeep(
  loaded: LoadedConfig,
  store: Store,
  log: Logger,
): { recorder: ChannelRecorder | undefined; stopSweeps: () => Promise<void> } {
  const retention = loaded.config.store?.retention;
  const stopArchiveSweep = startArchiveSweep(store.conversations, {
    log: log.child({ scope: 'store' }),
    ...(retention?.archiveDays ? { keepMs: retention.archiveDays * DAY_MS } : {}),
  });
  // Recorded channels (history.record) and their retention, on every replica (webhooks land anywhere).
  const recorder = anyRecorded(loaded.config)
    ? createChannelRecorder({
        config: loaded.config,
        channelLog: store.channelLog,
        log: log.child({ scope: 'recorder' }),
      })
    : undefined;
  const stopChannelLogSweep = startChannelLogSweep(store.channelLog, {
    daysOf: (channel) => {
      const { platform, chatId } = decodeConversationKey(channel);
      return historyPolicy(loaded.config, platform, chatId).days;
    },
    log: log.child({ scope: 'store' }),
  });
  return {
    recorder,
    stopSweeps: async () => {
      await stopArchiveSweep();
      await stopChannelLogSweep();
    },
  };
}

/**
 * The config and secrets `start` runs on, the secrets registered for redaction. A listener other
 * machines can reach without an admin token is refused before anything starts (a usage error, exit
 * 2; the HTTP server checks again).
 */
function configForStart(o: StartOptions): { loaded: LoadedConfig; secrets: Secrets } {
  const loaded = loadConfig(o.configFile, o.cwd, {
    ...(o.http ? { http: o.http } : {}),
    ...(o.env ? { env: o.env } : {}),
  });
  const secrets = readSecrets(o.env, configuredKeyNames(loaded.config));
  registerSecrets(secretValues(secrets));
  const host = loaded.config.http.host;
  if (!isLoopback(host) && !secrets.BOXBOT_ADMIN_TOKEN)
    throw new ConfigError(
      `http.host is ${host}, which other machines can reach: set BOXBOT_ADMIN_TOKEN first, or listen on 127.0.0.1`,
    );
  return { loaded, secrets };
}

/**
 * Replicas: only the leader schedules (each leadership term gets a fresh scheduler; the replica's own one serves the
 * admin API and the schedule tool everywhere) and holds the single connections. `part` steps down at stop, naming
 * the term's scheduler and the adapters as its own parts.
 */
function leaderPart(o: {
  leases: NonNullable<Store['leases']>;
  holder: string;
  singles: ChannelAdapter[];
  handle: Gateway['handle'];
  schedulerOptions: SchedulerOptions;
  log: Logger;
}): { leadership: Leadership; part: StopPart } {
  const { log } = o;
  let term: Scheduler | undefined;
  let stepping: StopSteps | undefined; // the shutdown's steps, once stepping down is part of it
  const leadership = createLeadership({
    leases: o.leases,
    holder: o.holder,
    async onLead() {
      for (const a of o.singles) {
        await a.start(o.handle);
        log.info({ channel: a.platform, bot: a.identity()?.name }, 'channel started (this replica leads)');
      }
      term = createScheduler(o.schedulerOptions);
      await term.start();
    },
    async onFollow() {
      const steps = stepping ?? createStopSteps();
      await steps.run('scheduler (leader)', async () => term?.stop());
      term = undefined;
      await Promise.all(
        o.singles.map((a) =>
          steps
            .run(`${a.platform} adapter`, () => a.stop())
            .catch((e: unknown) => log.warn({ channel: a.platform, err: errorMessage(e) }, 'stop failed')),
        ),
      );
    },
    log: log.child({ scope: 'leader' }),
  });
  const part: StopPart = {
    stage: JOBS,
    name: 'leadership',
    stop: (inner) => {
      stepping = inner;
      return leadership.stop();
    },
  };
  return { leadership, part };
}

/** Starts the gateway on the config's defaults; resolves once every channel is up. */
export async function startBoxbot(o: StartOptions = {}): Promise<Boxbot> {
  const { loaded, secrets } = configForStart(o);
  const log = o.log ?? createLogger();
  const retention = loaded.config.store?.retention;
  const opened = await openStore(databaseUrl(loaded.config, secrets), loaded.dataDir, {
    logger: log.child({ scope: 'store' }),
    ...(retention?.failedReplyDays ? { failedOutbox: { maxAgeMs: retention.failedReplyDays * DAY_MS } } : {}),
  });
  const store = opened.store;
  log.info({ store: opened.where }, 'store open');
  if (store.leases)
    await checkSharedWorkspaces(store.kv, join(loaded.dataDir, 'workspaces')).catch(async (e: unknown) => {
      await store.close();
      throw e;
    });
  const metrics = createMetrics();
  const runtime = await createAgentRuntime({
    loaded,
    secrets,
    log,
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.workers ? { workers: o.workers } : {}),
    ...(o.sandboxWorkerFile ? { workerFile: o.sandboxWorkerFile } : {}),
  });
  const mcp = createMcpHub({
    connectionOf: (name, server) => mcpConnection(name, server, secrets),
    log: log.child({ scope: 'mcp' }),
  });
  // Tool lists are fetched in the background, so /whoami lists MCP tools before the first run.
  for (const [name, server] of mcpEntries(loaded.config)) void mcp.toolsFor({ [name]: server });
  const { recorder, stopSweeps } = startStoreUpkeep(loaded, store, log);
  const cleanups: StopPart[] = [
    { stage: SERVICES, name: 'sandbox', stop: () => runtime.close() },
    { stage: STORE, name: 'store', stop: () => store.close() },
    { stage: SERVICES, name: 'store sweeps', stop: stopSweeps },
    { stage: SERVICES, name: 'channel recorder', stop: async () => recorder?.close() },
    { stage: SERVICES, name: 'mcp', stop: () => mcp.close() },
  ];
  let stopped: Promise<void> | undefined;
  const cleanup = (steps: StopSteps = createStopSteps()): Promise<void> =>
    (stopped ??= stopInStages(cleanups, steps, (part, e) =>
      log.warn({ part, err: errorMessage(e) }, 'shutdown step failed'),
    ));
  try {
    const { adapters, web } = channelAdapters(
      loaded,
      secrets,
      store,
      log,
      recorder,
      await platformFactories(loaded, secrets),
    );
    const running = new Set(adapters.map((a) => a.platform as string));
    // The gateway is created below; deliveries only happen after start, when it exists.
    let gatewayRef: Gateway | undefined;
    // One daily-spend ledger for chats and jobs: each counts the other's charges not yet written.
    // Drained last, once the gateway and the scheduler have stopped (their writes give up then).
    const spend = createDailySpend(store.usage, { log });
    cleanups.push({ stage: LEDGER, name: 'spend ledger', stop: () => spend.flush() });
    const schedulerOptions: SchedulerOptions = {
      store,
      spend,
      loaded,
      secrets,
      deliver: (key, text, id, queued) => {
        if (!gatewayRef) throw new Error('the gateway is not running');
        return gatewayRef.post(targetOf(key), text, id, queued);
      },
      isKnownTarget: (key) => {
        const configured = configuredTargetCheck(loaded.config, secrets)(key);
        return configured === true && !running.has(platformOf(key))
          ? `no ${platformOf(key)} channel is running for ${key}`
          : configured;
      },
      log: log.child({ scope: 'scheduler' }),
      ...(o.jobWorkerFile ? { workerFile: o.jobWorkerFile } : {}),
      ...(recorder
        ? {
            // A digest reaching before recording began reads the platform's own history for the gap.
            backfill: (channel: string, from: string) =>
              recorder
                .backfill(
                  channel,
                  from,
                  adapters.find((a) => a.platform === platformOf(channel))?.readHistory,
                  gatewayRef?.pace(platformOf(channel)),
                )
                .catch((e: unknown) => log.warn({ channel, err: errorMessage(e) }, 'channel history not backfilled')),
          }
        : {}),
    };
    const scheduler = createScheduler(schedulerOptions);
    const agent = createAgentRunner({
      spend,
      secretValues: secretValues(secrets),
      builtinsFor: (ctx) => [
        createScheduleTool(scheduler, {
          ...ctx,
          admins: loaded.config.admins,
          chatJobs: loaded.config.scheduler.chatJobs,
        }),
      ],
      mcp,
      ...(loaded.config.memory.enabled ? { memory: { digestChars: loaded.config.memory.digestChars } } : {}),
      store,
      deps: runtime.deps,
      workspacesDir: join(loaded.dataDir, 'workspaces'),
      sandbox: { block: runtime.block, limits: runtime.limits },
      ...(runtime.unavailableHint
        ? { unavailableHint: `boxbot has no model to answer with: ${runtime.unavailableHint}. Then restart boxbot.` }
        : {}),
      timeoutMs: loaded.config.gateway.runTimeoutMs,
      maxTurns: loaded.config.gateway.maxTurns,
      maxFileBytes: loaded.config.media.maxFileMb * 1024 * 1024,
      metrics,
      log,
      visionModels: loaded.config.media.visionModels,
    });
    // Replicas on one database (README, "Running more than one"): conversations are shared out
    // through leases, and the single connections (long polling, a gateway websocket, Socket Mode:
    // adapters that serve no webhook route) run on the leader only.
    const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const single = (a: ChannelAdapter): boolean => a.platform !== 'web' && a.routes().length === 0;
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
      media: {
        ...mediaOptions(loaded, secrets, join(loaded.dataDir, 'workspaces'), log, o.fetch),
        ...(runtime.limits.maxDiskBytes ? { maxWorkspaceBytes: runtime.limits.maxDiskBytes } : {}),
        ...(runtime.limits.maxEntries ? { maxWorkspaceEntries: runtime.limits.maxEntries } : {}),
        ...(o.parserFile ? { parserFile: o.parserFile } : {}),
      },
      chatCommands: [
        ...memoryCommands(store.memories, loaded.config.memory.enabled),
        webCommand({
          logins: store.webSessions,
          publicUrl: () => publicBaseUrl(httpAddress()),
          sendPrivate: async (message, text) => {
            const adapter = adapters.find((a) => a.platform === message.platform);
            if (!adapter?.sendPrivate) throw new Error(`${message.platform} has no private messages`);
            await adapter.sendPrivate(message, text);
          },
          log,
        }),
      ],
      ...(store.leases ? { cluster: { leases: store.leases, holder }, deferStart: single } : {}),
      ...(store.rateGates ? { rateGates: store.rateGates } : {}),
    });
    // Webhook jobs' URLs name the port the server got (`http.port: 0` picks one).
    let http: HttpServer | undefined;
    let gatewayUp = false;
    const httpAddress = () => ({ ...loaded.config.http, port: http?.port ?? loaded.config.http.port });
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
      views: {
        config: loaded.config,
        decideApproval: (id, approve, by) => gateway.decideApproval(id, approve, by),
        secretsSet: () => ({
          ...Object.fromEntries(SECRET_VARIABLES.map((name) => [name, false])),
          ...Object.fromEntries(Object.keys(secrets).map((name) => [name, true])),
        }),
        state: async () => ({
          channels: adapters.map((a) => ({
            platform: a.platform,
            up: gatewayUp,
            ...(store.leases && single(a) ? { detail: 'connected on the leader replica only' } : {}),
          })),
          runsInFlight: sumGauge(await metrics.runsInFlight.get()),
          queueDepth: sumGauge(await metrics.queueDepth.get()),
          errors: metrics.errors.all().map((e) => ({ scope: e.labels.scope ?? '', count: e.value })),
        }),
      },
      extra: { '/jobs': jobsApi(scheduler, { hookUrl: (name) => hookUrl(httpAddress(), name) }) },
    });
    const webhooks = loaded.config.scheduler.webhooks;
    // Webhook events journaled with their claims: the ones a dead process left are run here.
    const journal = createWebhookJournal({
      jobs: store.jobs,
      deliveries: store.hookDeliveries,
      outbox: store.delivery,
      runNow: scheduler.runNow,
      ...(store.leases ? { leases: store.leases } : {}),
      holder,
      log: log.child({ scope: 'hooks' }),
    });
    cleanups.push({ stage: INTAKE, name: 'webhook journal', stop: async () => journal.stop() });
    http = await startHttpServer({
      host: loaded.config.http.host,
      port: loaded.config.http.port,
      ...(secrets.BOXBOT_ADMIN_TOKEN ? { adminToken: secrets.BOXBOT_ADMIN_TOKEN } : {}),
      metrics,
      routes: adapters.flatMap((a) => a.routes()),
      attach: web ? [(app) => web.attach(app)] : [],
      admin,
      adminAuth: createAdminAuth({
        ...(secrets.BOXBOT_ADMIN_TOKEN ? { token: secrets.BOXBOT_ADMIN_TOKEN } : {}),
        admins: loaded.config.admins,
        sessions: store.adminSessions,
        csrfKey: storedCsrfKey(store.kv),
        // A browser signed in from chat (/web) as one of the config's admins gets the dashboard too.
        identityOf: (req) => webIdentityOf(store.webSessions, req),
      }),
      dashboard: {},
      hooks: {
        maxBytes: webhooks.maxBodyKb * 1024,
        // Webhook jobs start on whichever replica the request reaches; the delivery id is claimed in the store.
        handle: createWebhookTrigger({
          jobs: store.jobs,
          deliveries: store.hookDeliveries,
          runNow: scheduler.runNow,
          journal,
          secret: (name) => secrets[name] ?? readVariable(name, o.env),
          maxBytes: webhooks.maxBodyKb * 1024,
          replayWindowMs: webhooks.replayWindowHours * 3600_000,
          log: log.child({ scope: 'hooks' }),
        }),
      },
      // The tools a run can be offered, as start's banner lists them (web_search only with a search service).
      health: () => ({
        channels: adapters.map((a) => a.platform),
        tools: offerableToolNames(
          runtime.registry.list().map((t) => t.spec.name),
          runtime.deps.hostGrants,
        ).length,
      }),
      log: log.child({ scope: 'http' }),
    });
    cleanups.push({ stage: INTAKE, name: 'http server', stop: () => http.close() });
    gatewayRef = gateway;
    await gateway.start();
    gatewayUp = true;
    cleanups.push({
      stage: INTAKE,
      name: 'gateway',
      stop: async (inner) => {
        gatewayUp = false;
        await gateway.stop(inner);
      },
    });
    journal.startSweep();
    if (store.leases) {
      const { leadership, part } = leaderPart({
        leases: store.leases,
        holder,
        singles: adapters.filter(single),
        handle: gateway.handle,
        schedulerOptions,
        log,
      });
      // `scheduler` runs what this replica is asked to run (the admin API, webhook jobs).
      // Pushed before starting: a start that fails half-way (one single connection up) still steps down, stopping it.
      cleanups.push({ stage: JOBS, name: 'scheduler', stop: () => scheduler.stop() }, part);
      await leadership.start();
    } else {
      await scheduler.start();
      cleanups.push({ stage: JOBS, name: 'scheduler', stop: () => scheduler.stop() });
    }
    const spec = runtime.unavailableHint ? undefined : (loaded.config.model ?? runtime.deps.resolveModel(undefined).id);
    return {
      url: http.url,
      gateway,
      store,
      runtime,
      scheduler,
      channels: adapters.map((a) => a.platform),
      model: spec ? { spec } : { hint: runtime.unavailableHint! },
      loaded,
      stop: cleanup,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
