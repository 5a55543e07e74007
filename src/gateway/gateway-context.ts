// What the gateway's parts share: its options, the state maps (conversations, work in progress,
// replies outside the queues), the outbound queues, the approvals desk, and the few delivery
// helpers every part uses (a reply through the outbox, a notice outside it). One is made per
// gateway; intake, dispatch, the conversation queue, the turn, replicas and resume each take it.
import type { ChannelAdapter, InboundMessage, OutboundTarget, Platform } from '../adapters/index.ts';
import { platformOf, replyTargetOf } from '../adapters/index.ts';
import type { Config } from '../config/schema.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import type { ChatCommand } from '../runner/chat-command.ts';
import type { MediaOptions } from '../runner/media/index.ts';
import { type Persist, persister, type StoreHealth } from '../runner/persist.ts';
import { type ResolvedPolicy, resolvePolicy, withModelChoice } from '../runner/policy.ts';
import type { AgentRunner, GatewayStore, OutboxEntry } from '../runner/ports.ts';
import type { ApprovalStore, RateGateStore } from '../store/index.ts';
import { createMemoryStore } from '../store/index.ts';
import { speakerFieldsOf } from './approval-text.ts';
import { type ApprovalDesk, createApprovalDesk } from './approvals.ts';
import type { ConversationState } from './commands/index.ts';
import { type ClusterOptions, type ConversationOwner, createConversationOwner } from './conversation-owner.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { OutboundQueue } from './outbound-queue.ts';
import { type Delivery, deliverEntry, outboxEntryOf } from './reply.ts';
import { Semaphore } from './semaphore.ts';

/** How a gateway is put together. */
export interface GatewayOptions {
  config: Config;
  adapters: ChannelAdapter[];
  agent: AgentRunner;
  store: GatewayStore;
  log?: Logger;
  metrics?: Metrics;
  /** Agent runs at work at once across conversations (default 16); waits on a model or an approver do not count. */
  concurrency?: number;
  /** Tell users who are not in allowFrom that they are not (default true; false = silence). */
  replyToStrangers?: boolean;
  /** How often unfinished outbox entries nobody is working on are delivered again (default 30 s). */
  redriveMs?: number;
  /**
   * The media step (download, caps, sniffing, the workspace inbox, transcription); without it a
   * message's files are not fetched.
   */
  media?: MediaOptions;
  /** Outbound queue tuning (tests shorten the backoff); also the store-write retry's backoff. */
  outbound?: { backoffMs?: number; maxBackoffMs?: number; concurrency?: number };
  /** The approvals journal (default: in memory, so questions do not survive a restart). */
  approvals?: ApprovalStore;
  /** The clock of approval deadlines (tests). */
  now?: () => number;
  /** More chat commands (memory's /memory and /forget), registered after the gateway's own and answered alike. */
  chatCommands?: readonly ChatCommand[];
  /**
   * Replicas on one database: conversations are owned through leases, and a replica answers only
   * the conversations it owns (README, "Running more than one"). Absent: this process owns all.
   */
  cluster?: ClusterOptions;
  /** Send pauses shared by the replicas (a 429 seen by one holds every replica's sends to that bot). */
  rateGates?: RateGateStore;
  /**
   * Adapters `start()` and `stop()` leave to the caller (the leader starts the single connections:
   * long polling, a gateway websocket, Socket Mode, and stops them); they still send for every replica.
   */
  deferStart?: (adapter: ChannelAdapter) => boolean;
}

/** The gateway's shared state and helpers. */
export interface GatewayContext {
  opts: GatewayOptions;
  log: Logger;
  metrics: Metrics;
  adapters: Map<Platform, ChannelAdapter>;
  queues: Map<string, OutboundQueue>;
  /** Per conversation with work queued or running, its run state. */
  conversations: Map<string, ConversationState>;
  /** Run slots across conversations (`concurrency`). */
  runs: Semaphore;
  /** Work `idle()` and `stop()` wait for. */
  inflight: Set<Promise<unknown>>;
  /**
   * Inbound ids and outbox entries queued or being worked on: the one guard against answering a
   * message or delivering an entry twice when its id arrives by two paths (a live delivery, the
   * resume at start, the periodic re-drive of the outbox).
   */
  active: Set<string>;
  /** Per conversation, how many of its messages are being answered outside its run queue (commands, refusals). */
  outside: Map<string, number>;
  /** Replicas: which conversations this one owns (absent: it owns all). */
  owner: ConversationOwner | undefined;
  /** Aborted as the gateway stops. */
  stopped: AbortController;
  stopping(): boolean;
  storeHealth: StoreHealth;
  /** Store writes retried until they succeed (a full disk is waited out). */
  persist: Persist;
  desk: ApprovalDesk;
  /** Keeps `p` in `inflight` until it settles. */
  track<T>(p: Promise<T>): Promise<T>;
  /** Work not awaited here (stop waits for it): a failure is logged as `what`. */
  background(p: Promise<unknown>, what: string, level?: 'warn' | 'error'): void;
  queueOf(platform: Platform): OutboundQueue;
  targetOf(msg: InboundMessage): OutboundTarget;
  /** The conversation's run state, made if it has none. */
  stateOf(key: string): ConversationState;
  /**
   * How answers go out on `platform`. `owned`: answers of a conversation's own turn or its re-drive,
   * which with replicas go only while this replica owns the conversation (each platform call asks).
   */
  deliveryOf(platform: Platform, owned?: boolean): Delivery;
  /** Writes an entry to the outbox and delivers it at once (not behind the conversation's queue). */
  /** Writes `entry` to the outbox, runs `queued` (it is durable, nothing is sent yet), then delivers it. */
  deliverNow(platform: Platform, entry: OutboxEntry, answers?: string, queued?: () => Promise<void>): Promise<string[]>;
  /** A short reply outside the agent (commands, refusals); delivered once through the outbox. */
  replyNow(msg: InboundMessage, text: string): Promise<void>;
  /** A notice outside the outbox that an answer may replace; resolves with its id (undefined: not sent). */
  sendNotice(platform: Platform, target: OutboundTarget, text: string): Promise<string | undefined>;
  /** A notice outside the outbox (best effort, never journaled): for when the store itself fails. */
  notify(platform: Platform, target: OutboundTarget, text: string): void;
  /** A message runs again whose preview may stand unjournaled in the chat: logged and counted. */
  lostPreview(msg: InboundMessage): void;
  /** The policy with the model chosen by `/model` (for commands; a run applies it as it loads the history). */
  withChosenModel(key: string, policy: ResolvedPolicy): Promise<ResolvedPolicy>;
}

/** The shared state and helpers of a gateway made with `opts`. */
export function createGatewayContext(opts: GatewayOptions): GatewayContext {
  const log = opts.log ?? silentLogger;
  const metrics = opts.metrics ?? createMetrics();
  metrics.countOutboxWith(async () => (await opts.store.pendingOutbox()).length);
  const adapters = new Map(opts.adapters.map((a) => [a.platform, a]));
  const queues = new Map<string, OutboundQueue>();
  for (const a of opts.adapters) {
    queues.set(
      a.platform,
      new OutboundQueue(a, {
        ...opts.outbound,
        log: log.child({ scope: `outbound:${a.platform}` }),
        onRateLimited: () => metrics.rateLimited.inc({ platform: a.platform }),
        ...(opts.rateGates ? { gate: opts.rateGates } : {}),
      }),
    );
  }
  const conversations = new Map<string, ConversationState>();
  const inflight = new Set<Promise<unknown>>();
  const active = new Set<string>();
  const owner = opts.cluster ? createConversationOwner(opts.cluster, log.child({ scope: 'cluster' })) : undefined;
  const stopped = new AbortController();
  const storeHealth: StoreHealth = { failing: 0 };
  const persist = persister({
    log,
    health: storeHealth,
    stopping: stopped.signal,
    backoffMs: opts.outbound?.backoffMs ?? 500,
    maxBackoffMs: opts.outbound?.maxBackoffMs ?? 30_000,
  });
  const queueOf = (platform: Platform): OutboundQueue => {
    const q = queues.get(platform);
    if (!q) throw new Error(`no adapter for platform ${platform}`);
    return q;
  };
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p)).catch(() => undefined);
    return p;
  };
  const targetOf = (msg: InboundMessage): OutboundTarget => replyTargetOf(msg);
  // Replicas: what an owned conversation's answer asks before each platform call and writes under.
  const fencing = owner && {
    owns: (key: string) => owner.owns(key),
    fenceOf: (key: string) => owner.fenceOf(key),
  };
  const deliveryOf = (platform: Platform, owned = false): Delivery => ({
    queue: queueOf(platform),
    store: opts.store,
    log,
    persist,
    uncertain: (kind) => metrics.uncertain.inc({ platform, kind }),
    ...(owned && fencing ? fencing : {}),
  });
  const deliverNow = async (
    platform: Platform,
    entry: OutboxEntry,
    answers?: string,
    queued?: () => Promise<void>,
  ): Promise<string[]> => {
    active.add(entry.id); // the re-drive leaves it alone meanwhile
    try {
      await persist('outbox', () => opts.store.putOutbox(entry));
      await queued?.();
      return await deliverEntry(deliveryOf(platform), entry, answers);
    } finally {
      active.delete(entry.id);
    }
  };
  const maxText = (platform: Platform) => adapters.get(platform)!.capabilities.maxTextLength;

  const desk = createApprovalDesk({
    store: opts.approvals ?? createMemoryStore().approvals,
    queueOf: (platform) => queueOf(platform),
    hasButtons: (platform) => !!adapters.get(platform)?.answerPress,
    maxTextLength: (platform) => adapters.get(platform)?.capabilities.maxTextLength ?? 4000,
    log: log.child({ scope: 'approvals' }),
    ...(opts.now ? { now: opts.now } : {}),
    // A press may reach a replica that does not own the conversation (a leader's long polling).
    ...(owner ? { pollMs: owner.sweepMs } : {}),
    // Who may decide is read from the config in force here, not from when the question was asked.
    rulesFor: (r) =>
      resolvePolicy(opts.config, {
        platform: platformOf(r.conversationKey),
        chatId: r.target.chatId,
        ...(r.target.threadId ? { threadId: r.target.threadId } : {}),
        ...speakerFieldsOf(r.requesterId, platformOf(r.conversationKey)),
      }).approvals,
  });

  return {
    opts,
    log,
    metrics,
    adapters,
    queues,
    conversations,
    runs: new Semaphore(opts.concurrency ?? 16),
    inflight,
    active,
    outside: new Map(),
    owner,
    stopped,
    stopping: () => stopped.signal.aborted,
    storeHealth,
    persist,
    desk,
    track,
    background: (p, what, level = 'error') =>
      void track(p).catch((e: unknown) => log[level]({ err: errorMessage(e) }, what)),
    queueOf,
    targetOf,
    stateOf(key) {
      let s = conversations.get(key);
      if (!s) conversations.set(key, (s = { tail: Promise.resolve(), queued: 0 }));
      return s;
    },
    deliveryOf,
    deliverNow,
    async replyNow(msg, text) {
      const adapter = adapters.get(msg.platform)!;
      const entry = outboxEntryOf(`${msg.id}:reply`, targetOf(msg), text, adapter.capabilities);
      await deliverNow(msg.platform, entry, msg.id);
    },
    async sendNotice(platform, target, text) {
      const max = maxText(platform);
      try {
        return (await track(queueOf(platform).send(target, text.slice(0, max), { format: 'plain' }))).messageId;
      } catch (e) {
        log.warn({ err: errorMessage(e) }, 'notice not delivered');
        return undefined;
      }
    },
    notify(platform, target, text) {
      void track(queueOf(platform).send(target, text.slice(0, maxText(platform)), { format: 'plain' })).catch(
        (e: unknown) => log.warn({ err: errorMessage(e) }, 'notice not delivered'),
      );
    },
    lostPreview(msg) {
      // Its earlier run was sending a preview when the process stopped, before the preview's id was
      // journaled: if the platform took it, it stays in the chat beside the answer, and nothing can
      // find it again.
      log.warn(
        { conversation: msg.conversationKey, platform: msg.platform },
        'a preview was being sent when the process stopped; if the platform took it, it stays beside the answer',
      );
      metrics.uncertain.inc({ platform: msg.platform, kind: 'preview' });
    },
    async withChosenModel(key, policy) {
      return withModelChoice(policy, await opts.agent.chosenModel?.(key).catch(() => undefined));
    },
  };
}
