// The gateway: every adapter's messages enter through `handle` (the one sink), are deduplicated
// and admitted by policy, journaled, and queued per conversation (in order within one, in
// parallel across them up to a bound); answers leave through the outbox and one outbound
// queue per bot. At start, unfinished outbox entries are resumed and accepted-but-unanswered
// messages are run again, so a restart loses nothing and sends nothing twice. Sends and store
// writes that fail are retried until they succeed, while the conversation's later answers wait
// (an incoming message is held unacknowledged until it is saved, and its conversation's later
// messages are accepted after it; one the platform redelivers, a webhook's, is refused at once
// instead); within a conversation, runs follow the platform's own order; an entry left
// unfinished by an unexpected error is re-driven every `redriveMs`.
// Example: const gw = createGateway({ config, adapters, agent, store }); await gw.start();
import type { ChannelAdapter, InboundMessage, IntakeOptions, OutboundFile, OutboundTarget } from '../adapters/index.ts';
import { compareOrder, platformOf } from '../adapters/index.ts';
import type { Config } from '../config/schema.ts';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import { createKeyedLock } from '../core/keyed-lock.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import type { ChatCommand } from '../runner/chat-command.ts';
import { type CommandCaller, commandAllowed, isAdmin, refusedCommandText } from '../runner/command-access.ts';
import { type MediaOptions, type MediaWorkJournal, type PreparedMedia, prepareMedia } from '../runner/media/index.ts';
import { type Persist, persister, type StoreHealth } from '../runner/persist.ts';
import { type Admission, admit, type ResolvedPolicy, resolvePolicy, withModelChoice } from '../runner/policy.ts';
import type { GatewayAgentEvent, RunOutcome } from '../runner/ports.ts';
import { type AgentRunner, GatewayStoppingError, type GatewayStore, type OutboxEntry } from '../runner/ports.ts';
import type { ApprovalStore, RateGateStore } from '../store/index.ts';
import { createMemoryStore } from '../store/index.ts';
import { createApprovalDesk, parseApprovalButton } from './approvals.ts';
import {
  type ConversationState,
  createCommandRegistry,
  GATEWAY_COMMANDS,
  type GatewayCommandContext,
  type ParsedCommand,
} from './commands/index.ts';
import { type ClusterOptions, createConversationOwner } from './conversation-owner.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createOutageNotices } from './outage-notices.ts';
import { OutboundQueue } from './outbound-queue.ts';
import { type Delivery, deliverEntry, outboxEntryOf, ReplyStream } from './reply.ts';
import { Semaphore } from './semaphore.ts';
import { createUnsavedMessages } from './unsaved-messages.ts';

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

/** A running gateway. */
export interface Gateway {
  /** Reads unfinished work, starts every adapter, then resumes that work. */
  start(): Promise<void>;
  /** The sink every adapter feeds (exposed for the web chat and tests). */
  handle(message: InboundMessage, intake?: IntakeOptions): Promise<void>;
  /**
   * Delivers a text to a conversation through the normal path (scheduled jobs); resolves with the platform message ids.
   */
  post(target: OutboundTarget, text: string, id?: string): Promise<string[]>;
  /** Resolves when every queued run and delivery has finished. */
  idle(): Promise<void>;
  stop(): Promise<void>;
  readonly metrics: Metrics;
  adapter(platform: string): ChannelAdapter | undefined;
}

const UNSAVED_MESSAGE = 'Sorry, I could not save your message (server storage failed); I will answer it once I can.';
// How long a conversation's storage-failure notice stands for its outage when no answer here
// takes it over (the message was saved by another replica), and how long a refused message keeps
// its conversation's later ones out (a platform that stopped redelivering it must not block it).
const NOTICE_MEMORY_MS = 10 * 60_000;
const UNSAVED_MEMORY_MS = 2 * 60_000;
// Said once per message, when a store write its answer needs fails (the history, the outbox):
// the answer is late, not lost, and "shortly" would be a promise the server cannot keep.
const LATE_ANSWER = 'Your answer is delayed: it could not be saved (server storage failed); it follows once it can be.';

const STRANGER_REPLY = (msg: InboundMessage) =>
  `Sorry, I am not set up to talk with you here. An admin can allow your ${msg.platform} user id ${msg.userId} ` +
  `(allowFrom in boxbot.config.json).`;

/** Hands a tool's start or end to an adapter that shows them; a failure there never touches the run. */
function showActivity(adapter: ChannelAdapter, target: OutboundTarget, e: GatewayAgentEvent): void {
  try {
    adapter.showActivity?.(
      target,
      e.type === 'status' ? { kind: 'tool-start', text: e.text } : { kind: 'tool-end', text: e.text ?? '' },
    );
  } catch {
    // best effort by contract
  }
}

/** Creates the gateway; call `start()`. */
export function createGateway(opts: GatewayOptions): Gateway {
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
  const runs = new Semaphore(opts.concurrency ?? 16);
  const inflight = new Set<Promise<unknown>>();
  // Inbound ids and outbox entries queued or being worked on: the one guard against answering a
  // message or delivering an entry twice when its id arrives by two paths (a live delivery, the
  // resume at start, the periodic re-drive of the outbox).
  const active = new Set<string>();
  /** Per conversation, how many of its messages are being answered outside its run queue (commands, refusals). */
  const outside = new Map<string, number>();
  // Incoming messages being accepted (by id: a platform's redelivery joins the wait in progress),
  // and per conversation the last of them, which the next one waits for.
  const accepting = new Map<string, Promise<void>>();
  const acceptTails = new Map<string, Promise<void>>();
  const notices = createOutageNotices(NOTICE_MEMORY_MS, opts.now);
  const unsaved = createUnsavedMessages(UNSAVED_MEMORY_MS, opts.now);
  let turns = 0;
  /** Per conversation, the messages queued here for a run; each turn runs the first in the platform's order. */
  const queuedRuns = new Map<string, { msg: InboundMessage; policy: ResolvedPolicy; previewMessageId?: string }[]>();
  let stopping = false;
  let redriveTimer: NodeJS.Timeout | undefined;
  const owner = opts.cluster ? createConversationOwner(opts.cluster, log.child({ scope: 'cluster' })) : undefined;
  const pumps = createKeyedLock();
  const commands = createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, ...(opts.chatCommands ?? [])]);
  const stopped = new AbortController();
  const storeHealth: StoreHealth = { failing: 0 };
  const persist = persister({
    log,
    health: storeHealth,
    stopping: stopped.signal,
    backoffMs: opts.outbound?.backoffMs ?? 500,
    maxBackoffMs: opts.outbound?.maxBackoffMs ?? 30_000,
  });

  const desk = createApprovalDesk({
    store: opts.approvals ?? createMemoryStore().approvals,
    queueOf: (platform) => queueOf(platform),
    hasButtons: (platform) => !!adapters.get(platform as never)?.answerPress,
    maxTextLength: (platform) => adapters.get(platform as never)?.capabilities.maxTextLength ?? 4000,
    log: log.child({ scope: 'approvals' }),
    ...(opts.now ? { now: opts.now } : {}),
    // A press may reach a replica that does not own the conversation (a leader's long polling).
    ...(owner ? { pollMs: owner.sweepMs } : {}),
    // Who may decide is read from the config in force here, not from when the question was asked.
    rulesFor: (r) =>
      resolvePolicy(opts.config, {
        platform: platformOf(r.conversationKey) as InboundMessage['platform'],
        chatId: String(r.target.chatId),
        ...(typeof r.target.threadId === 'string' ? { threadId: r.target.threadId } : {}),
        userId: r.requesterId,
      }).approvals,
  });

  /** The policy with the model chosen by `/model` (for commands; a run applies it as it loads the history). */
  async function withChosenModel(key: string, policy: ResolvedPolicy): Promise<ResolvedPolicy> {
    return withModelChoice(policy, await opts.agent.chosenModel?.(key).catch(() => undefined));
  }

  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p)).catch(() => undefined);
    return p;
  };
  /** Work not awaited here (stop waits for it): a failure is logged as `what`. */
  const background = (p: Promise<unknown>, what: string, level: 'warn' | 'error' = 'error'): void =>
    void track(p).catch((e: unknown) => log[level]({ err: errorMessage(e) }, what));
  const queueOf = (platform: string): OutboundQueue => {
    const q = queues.get(platform);
    if (!q) throw new Error(`no adapter for platform ${platform}`);
    return q;
  };
  const targetOf = (msg: InboundMessage): OutboundTarget => ({
    conversationKey: msg.conversationKey,
    chatId: msg.chatId,
    ...(msg.threadId ? { threadId: msg.threadId } : {}),
    ...(msg.messageId ? { replyToMessageId: msg.messageId } : {}),
  });
  const stateOf = (key: string): ConversationState => {
    let s = conversations.get(key);
    if (!s) conversations.set(key, (s = { tail: Promise.resolve(), queued: 0 }));
    return s;
  };

  const deliveryOf = (platform: string): Delivery => ({
    queue: queueOf(platform),
    store: opts.store,
    log,
    persist,
    uncertain: (kind) => metrics.uncertain.inc({ platform, kind }),
  });

  /**
   * A message runs again whose earlier run was sending a preview when the process stopped, before
   * the preview's id was journaled: if the platform took it, it stays in the chat beside the
   * answer, and nothing can find it again. Logged and counted.
   */
  function lostPreview(msg: InboundMessage): void {
    log.warn(
      { conversation: msg.conversationKey, platform: msg.platform },
      'a preview was being sent when the process stopped; if the platform took it, it stays beside the answer',
    );
    metrics.uncertain.inc({ platform: msg.platform, kind: 'preview' });
  }

  /** Writes an entry to the outbox and delivers it at once (not behind the conversation's queue). */
  async function deliverNow(platform: string, entry: OutboxEntry, answers?: string): Promise<string[]> {
    active.add(entry.id); // the re-drive leaves it alone meanwhile
    try {
      await persist('outbox', () => opts.store.putOutbox(entry));
      return await deliverEntry(deliveryOf(platform), entry, answers);
    } finally {
      active.delete(entry.id);
    }
  }

  /** A short reply outside the agent (commands, refusals); delivered once through the outbox. */
  async function replyNow(msg: InboundMessage, text: string): Promise<void> {
    const adapter = adapters.get(msg.platform)!;
    await deliverNow(msg.platform, outboxEntryOf(`${msg.id}:reply`, targetOf(msg), text, adapter.capabilities), msg.id);
  }

  /** A notice outside the outbox that an answer may replace; resolves with its id (undefined: not sent). */
  async function sendNotice(platform: string, target: OutboundTarget, text: string): Promise<string | undefined> {
    const max = adapters.get(platform as never)!.capabilities.maxTextLength;
    try {
      return (await track(queueOf(platform).send(target, text.slice(0, max), { format: 'plain' }))).messageId;
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'notice not delivered');
      return undefined;
    }
  }

  /** A notice outside the outbox (best effort, never journaled): for when the store itself fails. */
  function notify(platform: string, target: OutboundTarget, text: string): void {
    void track(
      queueOf(platform).send(target, text.slice(0, adapters.get(platform as never)!.capabilities.maxTextLength), {
        format: 'plain',
      }),
    ).catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'notice not delivered'));
  }

  /** What a command run for `msg` reaches (GatewayCommandContext). */
  function commandContext(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    caller: CommandCaller,
    arg: string | undefined,
  ): GatewayCommandContext {
    const key = msg.conversationKey;
    return {
      message: msg,
      policy,
      caller,
      ...(arg ? { arg } : {}),
      reply: (text) => replyNow(msg, text),
      agent: opts.agent,
      // Read, not created: a conversation with nothing queued keeps no state for a command's sake.
      conversation: conversations.get(key) ?? { tail: Promise.resolve(), queued: 0 },
      approvals: desk,
      chosenPolicy: () => withChosenModel(key, policy),
      helpText: () => commands.helpText((level) => commandAllowed(level, policy, caller).ok),
      behindTurns: (id, work, what) => chain(key, id, work, what),
      finish: () => opts.store.finish(msg.id),
      stopping: stopped.signal,
    };
  }

  /** The media step for a message with files (undefined without files or without the step). */
  async function mediaOf(msg: InboundMessage, signal: AbortSignal): Promise<PreparedMedia | undefined> {
    if (!opts.media || msg.attachments.length === 0) return undefined;
    const adapter = adapters.get(msg.platform)!;
    const journal: MediaWorkJournal = {
      start: (index) => persist('media work', () => opts.store.startMediaWork(msg.id, index)),
      end: (index) => persist('media work', () => opts.store.endMediaWork(msg.id, index)),
      poisoned: () => metrics.poisonInputs.inc({ platform: msg.platform }),
    };
    return prepareMedia(msg, adapter, { log: log.child({ scope: 'media' }), ...opts.media }, signal, journal);
  }

  /**
   * One agent run for one accepted message (holding a run slot while it works, not while it waits on the model or
   * an approver: see semaphore.ts), then its delivery (not holding one).
   */
  async function process(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    state: ConversationState,
    begin: () => void,
    previewMessageId?: string,
  ): Promise<void> {
    const adapter = adapters.get(msg.platform)!;
    const queue = queueOf(msg.platform);
    const target = targetOf(msg);
    const controller = new AbortController();
    // The preview's id is journaled as soon as it exists, so a crash leaves no preview that a
    // run again would not find and edit; a full disk is waited out in the background (dropping
    // the id would leave the preview stray at the next restart, a message the user sees twice).
    // While the store is failing no new preview is started: its id could not be recorded.
    const created = (id: string): Promise<void> => {
      const journaling = track(persist('preview', () => opts.store.notePreview(msg.id, id)));
      journaling.catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'preview id not journaled'));
      return journaling.then(() => undefined);
    };
    const mayCreate = () => storeHealth.failing === 0;
    const sending = () => track(opts.store.notePreviewSending(msg.id));
    const stream = new ReplyStream(queue, adapter.capabilities, target, log, {
      ...(previewMessageId ? { existing: previewMessageId } : {}),
      created,
      mayCreate,
      sending,
      key: `preview:${msg.id}`,
    });
    // The user is told once that the answer is late, whichever of its writes waits on the store.
    let lateNotice: Promise<string | undefined> | undefined;
    const tellLate = () => {
      lateNotice ??= sendNotice(msg.platform, target, LATE_ANSWER);
    };
    const runPersist: Persist = (what, write) => persist(what, write, tellLate);
    const started = Date.now();
    let text!: string;
    let outcome!: RunOutcome;
    let files: OutboundFile[] | undefined;
    let closing!: Promise<string | undefined>;
    await runs.run(async (slot) => {
      begin();
      metrics.runsInFlight.inc();
      state.running = controller;
      stream.start();
      try {
        // Files are fetched and saved here, after the message was journaled: a restart runs the
        // message again from the journal and this step with it (saving the same names again).
        const media = await mediaOf(msg, controller.signal);
        const rules = policy.approvals;
        ({ text, outcome, files } = await opts.agent.run({
          message: msg,
          policy,
          signal: controller.signal,
          onEvent: (e) => {
            stream.onEvent(e);
            if (e.type !== 'text-delta') showActivity(adapter, target, e);
          },
          persist: runPersist,
          slot,
          // Waiting on a person is not work: the slot is free until the answer (or the timeout) comes.
          ...(rules
            ? {
                approve: (q, signal) =>
                  slot.away(() =>
                    desk.ask(msg, rules, q, signal, () => controller.signal.reason instanceof GatewayStoppingError),
                  ),
              }
            : {}),
          ...(media ? { media } : {}),
        }));
      } catch (e) {
        log.error({ conversation: msg.conversationKey, err: errorMessage(e) }, 'agent run failed');
        metrics.errors.inc({ scope: 'agent' });
        text = 'Sorry, something went wrong while answering. The details are in the gateway log.';
        outcome = 'error';
      } finally {
        metrics.runsInFlight.dec();
        state.running = undefined;
        closing = stream.close(); // no preview after the run ended
      }
    });
    // A question left pending by the run before a restart that this run did not ask again (the
    // call no longer needs approval, or was not made) would keep live buttons that run nothing.
    void track(desk.finished(msg.id, !(controller.signal.reason instanceof GatewayStoppingError)));
    const stopped = controller.signal.reason;
    if (stopped instanceof GatewayStoppingError) {
      // Interrupted by shutdown or a hand-over: nothing is delivered and the message stays
      // accepted, so the next start or the conversation's new owner answers it (once).
      await closing;
      const next = stopped.handedOver
        ? 'the replica that now owns the conversation runs it'
        : 'it runs again at the next start';
      log.info({ conversation: msg.conversationKey }, `run interrupted; ${next}`);
      return;
    }
    metrics.agentRuns.inc({ outcome });
    metrics.runSeconds.observe((Date.now() - started) / 1000);
    const previewId = await closing;
    let entry = outboxEntryOf(msg.id, target, text, adapter.capabilities, previewId, stream.shown, files);
    // Until the answer is in the outbox it exists only here: keep trying to write it (the
    // conversation waits meanwhile, so nothing overtakes it) and tell the user why it is late.
    await runPersist('outbox', async () => {
      // An answer without a preview of its own replaces the "delayed" notice instead of leaving
      // it in the chat (the entry then names it, so a restart replaces it too).
      const notice = previewId === undefined && lateNotice ? await lateNotice : undefined;
      if (notice !== undefined && entry.streamMessageId === undefined)
        entry = outboxEntryOf(msg.id, target, text, adapter.capabilities, notice, LATE_ANSWER, files);
      await opts.store.putOutbox(entry);
    });
    await deliverEntry(deliveryOf(msg.platform), entry, msg.id);
    metrics.messagesOut.inc({ platform: msg.platform }, entry.chunks.length + (entry.files?.length ?? 0));
    metrics.replySeconds.observe({ platform: msg.platform }, (Date.now() - Date.parse(msg.receivedAt)) / 1000);
  }

  /**
   * Runs `job` after everything already queued in the conversation `key` (so answers, resumed
   * ones included, leave in order); `id` (the message or outbox entry) runs at most once at a time.
   * It counts in the platform's queue depth until it calls `begin` (or ends).
   */
  function chain(key: string, id: string, job: (begin: () => void) => Promise<void>, what: string): void {
    if (active.has(id)) return;
    active.add(id);
    const state = stateOf(key);
    state.queued++;
    const depth = { platform: platformOf(key) };
    let waiting = true;
    const begin = () => {
      if (waiting) metrics.queueDepth.dec(depth);
      waiting = false;
    };
    metrics.queueDepth.inc(depth);
    const run = state.tail.then(() =>
      job(begin).catch((e: unknown) => {
        metrics.errors.inc({ scope: 'delivery' });
        // A refusal was marked failed and the user told (deliverEntry); anything else stays in
        // the outbox and the re-drive tries it again.
        log.error({ conversation: key, err: errorMessage(e) }, what);
      }),
    );
    state.tail = track(run).finally(() => {
      begin();
      active.delete(id);
      state.queued--;
      if (state.queued === 0 && !state.running && conversations.get(key) === state) {
        conversations.delete(key);
        if (owner?.owns(key)) void track(handOver(key)).catch(() => undefined);
      }
    });
  }

  /**
   * Queues a run of `msg`. Each turn of the conversation runs the first of its queued messages in
   * the platform's order, not the first queued: messages saved out of order (replicas holding
   * them through a store outage, a platform's parallel redeliveries) are answered as written.
   */
  function enqueue(msg: InboundMessage, policy: ResolvedPolicy, previewMessageId?: string): void {
    if (active.has(msg.id)) return;
    active.add(msg.id); // queued or running under this id, whichever turn runs it
    const key = msg.conversationKey;
    const queued = queuedRuns.get(key) ?? [];
    queuedRuns.set(key, queued);
    queued.push({ msg, policy, ...(previewMessageId ? { previewMessageId } : {}) });
    chain(
      key,
      `run:${msg.id}:${++turns}`, // a turn of the conversation, not this message's own
      async (begin) => {
        const next = queued.length > 0 ? firstInOrder(queued) : undefined; // one turn per message queued
        if (queued.length === 0 && queuedRuns.get(key) === queued) queuedRuns.delete(key);
        if (!next) return;
        try {
          // With replicas, only while this replica still owns the conversation: a lease lost
          // meanwhile passed its queue to another replica, which answers it. Until the run starts,
          // the message counts in the queue depth (chain ends that count if it returns here).
          if (owner && !owner.owns(key)) return;
          await process(next.msg, next.policy, stateOf(key), begin, next.previewMessageId);
        } finally {
          active.delete(next.msg.id);
        }
      },
      'could not deliver an answer',
    );
  }

  /** Removes and returns the entry of `queued` first in the platform's order (queue order where there is none). */
  function firstInOrder<T extends { msg: InboundMessage }>(queued: T[]): T {
    let at = 0;
    for (let i = 1; i < queued.length; i++) {
      const a = queued[i]!.msg.order;
      const b = queued[at]!.msg.order;
      if (a !== undefined && b !== undefined && compareOrder(a, b) < 0) at = i;
    }
    return queued.splice(at, 1)[0]!;
  }

  /**
   * Replicas: runs the conversation's unanswered work here if this replica owns the conversation
   * or can take it; otherwise its owner will (it looks again before giving it up).
   */
  function pump(key: string): Promise<void> {
    return pumps.run(key, async () => {
      if (stopping || !owner || !(await owner.claim(key))) return;
      // What was being worked on as the read began may be finished by the time it returns, the
      // copy read still listing it: left alone too (if it failed, the next sweep takes it).
      const busy = new Set(active);
      // This conversation's alone (a keyed read): the whole journal is every conversation's, and
      // it is long exactly when replicas are busy.
      const [pending, outbox] = await Promise.all([opts.store.pending(key), opts.store.pendingOutbox(key)]);
      const idle = (id: string) => !active.has(id) && !busy.has(id);
      for (const entry of outbox) if (idle(entry.id)) resume(entry);
      for (const { message, previewMessageId, previewSending } of pending) {
        if (!idle(message.id) || !adapters.has(message.platform)) continue;
        if (previewSending) lostPreview(message);
        const policy = resolvePolicy(opts.config, message);
        run(
          message,
          policy,
          admit(policy, message, { replyToStrangers: opts.replyToStrangers ?? true }),
          previewMessageId,
        );
      }
      if (!conversations.has(key)) await handOver(key); // nothing to do here after all
    });
  }

  /** The conversation's queue is empty: give it up, then look once more (a message accepted elsewhere meanwhile). */
  async function handOver(key: string): Promise<void> {
    if (!owner || stopping || conversations.has(key) || outside.has(key)) return;
    await owner.release(key);
    if ((await opts.store.pending(key)).length > 0) background(pump(key), 'conversation not taken', 'warn');
  }

  /** Replicas: takes the unanswered work no replica is working on (its owner died, or gave it up just then). */
  async function sweep(): Promise<void> {
    const [pending, outbox] = await Promise.all([opts.store.pending(), opts.store.pendingOutbox()]);
    const keys = new Set([...pending.map((p) => p.message.conversationKey), ...outbox.map((e) => e.conversationKey)]);
    for (const key of keys) if (adapters.has(platformOf(key) as never)) await pump(key);
  }

  /** Delivers an outbox entry left unfinished, in its conversation's order. */
  function resume(entry: OutboxEntry): void {
    const platform = platformOf(entry.conversationKey);
    const answers = entry.id.replace(/:reply$/, ''); // the message it answers (a command's reply is `<id>:reply`)
    chain(
      entry.conversationKey,
      entry.id,
      async (begin) => {
        begin();
        // Read again now that it is this entry's turn: the copy in hand may have been finished
        // (or gained receipts) by another path since it was read.
        const current = (await opts.store.pendingOutbox(entry.conversationKey)).find((e) => e.id === entry.id);
        if (current) await deliverEntry(deliveryOf(platform), current, answers);
      },
      'resumed answer not delivered',
    );
  }

  /**
   * Delivers outbox entries nobody is working on (a send that failed with an unexpected error):
   * at start and every `redriveMs` while running, so such an answer waits minutes, not a restart.
   */
  async function redrive(): Promise<void> {
    for (const entry of await opts.store.pendingOutbox()) {
      if (stopping) return;
      if (queues.has(platformOf(entry.conversationKey))) resume(entry);
    }
  }

  /**
   * A button press: decided at once, outside the conversation's queue (the run it answers is
   * waiting in that queue). Not journaled: the approvals journal makes a second press harmless.
   */
  async function handlePress(msg: InboundMessage): Promise<void> {
    const b = parseApprovalButton(msg.action!.id);
    if (!b) {
      log.debug({ platform: msg.platform }, 'press of an unknown button ignored');
      return;
    }
    const r = await desk.decide(b.id, b.approve, msg);
    const adapter = adapters.get(msg.platform)!;
    if (adapter.answerPress)
      await adapter
        .answerPress(msg, r.text)
        .catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'press not answered'));
    else if (!r.ok) notify(msg.platform, targetOf(msg), r.text);
  }

  async function handle(incoming: InboundMessage, intake: IntakeOptions = {}): Promise<void> {
    if (stopping) throw new Error('the gateway is stopping');
    const adapter = adapters.get(incoming.platform);
    if (!adapter) throw new Error(`no adapter for platform ${incoming.platform}`);
    metrics.messagesIn.inc({ platform: incoming.platform });
    if (incoming.action) return handlePress(incoming);
    let msg = incoming;
    // A reply in a thread the bot is already part of needs no mention (where the platform works that way).
    if (
      !msg.isDirect &&
      !msg.mentionsBot &&
      msg.threadId &&
      adapter.capabilities.followThreads &&
      (await opts.store.answered(msg.conversationKey))
    ) {
      msg = { ...msg, mentionsBot: true };
    }
    const policy = resolvePolicy(opts.config, msg);
    const admission = admit(policy, msg, { replyToStrangers: opts.replyToStrangers ?? true });
    if (!admission.admitted && !admission.reply) {
      metrics.refused.inc({ platform: msg.platform, reason: admission.reason });
      return;
    }
    // A message is accepted, and queued, after the earlier messages of its conversation: while
    // the store fails (a full disk) it is held here and its save retried, unacknowledged, rather
    // than refused. A refused message would come back only when the platform redelivers it
    // (Slack: after its ack timeout, then minutes later; Discord: never), after newer messages
    // of its conversation were accepted and answered. If the process dies meanwhile, nothing was
    // acknowledged and the platform delivers it again.
    let waiting = accepting.get(msg.id);
    if (!waiting) {
      const key = msg.conversationKey;
      const accepted = (acceptTails.get(key) ?? Promise.resolve()).then(() =>
        acceptAndDispatch(msg, policy, admission, intake),
      );
      const tail: Promise<void> = accepted
        .catch(() => undefined)
        .finally(() => {
          accepting.delete(msg.id);
          if (acceptTails.get(key) === tail) acceptTails.delete(key);
        });
      accepting.set(msg.id, accepted);
      acceptTails.set(key, tail);
      waiting = accepted;
    }
    return waiting;
  }

  /**
   * Saves an incoming message and dispatches it unless it was seen before. A failing store is
   * waited out, unless the platform redelivers the message (a webhook): then it is refused at
   * once, and so are its conversation's later messages until it is saved.
   */
  async function acceptAndDispatch(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    intake: IntakeOptions,
  ): Promise<void> {
    const key = msg.conversationKey;
    // Told once per conversation while the store fails, whichever of its messages (or copies of
    // one) meet the failure: the answer will come, only late.
    const tellUnsaved = () => {
      if (admission.admitted) notices.tell(key, () => sendNotice(msg.platform, targetOf(msg), UNSAVED_MESSAGE));
    };
    let fresh: boolean;
    try {
      if (intake.redelivers) {
        await refuseBehindUnsaved(msg, tellUnsaved);
        fresh = await acceptOnce(msg, tellUnsaved);
      } else {
        fresh = await persist('inbound', () => opts.store.accept(msg), tellUnsaved);
      }
    } catch (e) {
      // Stopping, a refusal that cannot pass, or a redelivered message refused while the store
      // fails: not saved, so not acknowledged, and the platform (or the poller) delivers it again.
      log.error(
        { platform: msg.platform, err: errorMessage(e) },
        'could not save an incoming message; it is left for the platform to redeliver',
      );
      throw e;
    }
    unsaved.saved(msg);
    if (!fresh) {
      metrics.duplicates.inc({ platform: msg.platform });
      log.debug({ id: msg.id }, 'duplicate delivery dropped');
      return;
    }
    const notice = admission.admitted && runsAgent(msg) ? await noticeAsPreview(msg, intake) : undefined;
    dispatch(msg, policy, admission, notice);
  }

  /** One try at saving a message the platform redelivers; a failure is remembered, and told once. */
  async function acceptOnce(msg: InboundMessage, tellUnsaved: () => void): Promise<boolean> {
    try {
      return await opts.store.accept(msg);
    } catch (e) {
      if (!(e instanceof BoxbotError && !e.retryable)) {
        unsaved.note(msg);
        tellUnsaved();
      }
      throw e;
    }
  }

  /** Throws while a message of `msg`'s conversation before it was refused here and is not saved yet. */
  async function refuseBehindUnsaved(msg: InboundMessage, tellUnsaved: () => void): Promise<void> {
    let earlier = unsaved.before(msg);
    if (earlier.length === 0) return;
    // Its redelivery may have reached another replica, which saved it.
    const journaled = await opts.store.pending(msg.conversationKey).catch(() => []);
    for (const p of journaled) unsaved.saved(p.message);
    earlier = unsaved.before(msg);
    if (earlier.length === 0) return;
    unsaved.note(msg);
    tellUnsaved();
    throw new Error(`an earlier message of ${msg.conversationKey} is not saved yet (${earlier[0]!.id})`);
  }

  /** Whether an admitted message goes to the agent (not a command). */
  const runsAgent = (msg: InboundMessage): boolean => !commands.parse(msg.text);

  /**
   * The conversation's storage-failure notice, journaled as `msg`'s preview so its answer (here
   * or on the replica that runs it, now or after a restart) replaces the notice.
   */
  async function noticeAsPreview(msg: InboundMessage, intake: IntakeOptions): Promise<string | undefined> {
    const id = await notices.take(msg.conversationKey);
    if (id === undefined) return undefined;
    const note = () => opts.store.notePreview(msg.id, id);
    try {
      // Tried once for a webhook: the message is saved, and its request must not hang on this.
      await (intake.redelivers ? note() : persist('preview', note));
      return id;
    } catch (e) {
      log.warn({ err: errorMessage(e) }, 'storage-failure notice not journaled; it stays');
      return undefined;
    }
  }

  /**
   * What an accepted message gets: a refusal, a command's reply, or an agent run. The same at
   * the resume after a restart (a stranger's message or a command never reaches the agent);
   * replies outside the conversation's queue wait for `after` (the adapters being up).
   */
  function dispatch(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    previewMessageId?: string,
    after: Promise<void> = Promise.resolve(),
  ): void {
    if (!admission.admitted) {
      // Revoked since a restart: questions its run asked before are withdrawn (nothing will run).
      background(
        after.then(() => desk.refused(msg.id)),
        'questions of a refused message not withdrawn',
        'warn',
      );
      if (!admission.reply) {
        background(opts.store.finish(msg.id), 'could not mark a refused message answered');
        return;
      }
    }
    if (owner) {
      // Replicas: the conversation's owner runs it (commands too: /stop must reach the run), and
      // sends refusals: the message stays unanswered until its reply is delivered, and a replica
      // sweeping meanwhile would otherwise send the reply again.
      background(
        after.then(() => pump(msg.conversationKey)),
        'conversation not taken',
      );
      return;
    }
    run(msg, policy, admission, previewMessageId, after);
  }

  /** Runs an admitted, accepted message here: a command's reply at once, or an agent run in its queue. */
  function run(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    admission: Admission,
    previewMessageId?: string,
    after: Promise<void> = Promise.resolve(),
  ): void {
    if (!admission.admitted) {
      if (!admission.reply) return dispatch(msg, policy, admission, previewMessageId, after);
      metrics.refused.inc({ platform: msg.platform, reason: admission.reason });
      log.info(
        { platform: msg.platform, userId: msg.userId, chatId: msg.chatId },
        'message from a user not in allowFrom refused',
      );
      return outsideQueue(msg, after, () => replyNow(msg, STRANGER_REPLY(msg)), 'refusal not delivered');
    }
    const cmd = commands.parse(msg.text);
    if (cmd) return runCommandOf(msg, policy, cmd, after);
    enqueue(msg, policy, previewMessageId);
  }

  /** A command's reply at once, outside the conversation's queue; checked first by one rule, as tools are. */
  function runCommandOf(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    cmd: ParsedCommand<GatewayCommandContext>,
    after: Promise<void>,
  ): void {
    const caller: CommandCaller = { isDirect: msg.isDirect, admin: isAdmin(opts.config, msg) };
    const allowed = commandAllowed(cmd.command.access, policy, caller);
    if (!allowed.ok) {
      log.info({ platform: msg.platform, userId: msg.userId, command: cmd.name }, 'command refused by access');
      const text = refusedCommandText(cmd.name, allowed.reason);
      return outsideQueue(msg, after, () => replyNow(msg, text), 'refusal not delivered');
    }
    const run = () => cmd.command.run(commandContext(msg, policy, caller, cmd.arg));
    outsideQueue(msg, after, run, `command failed (/${cmd.name})`);
  }

  /**
   * Answers `msg` outside its conversation's run queue (a command, a refusal), once at a time.
   * Replicas: the conversation is kept meanwhile (not handed over while its message is unanswered,
   * where another replica's sweep would answer it again), and given up after.
   */
  function outsideQueue(msg: InboundMessage, after: Promise<void>, work: () => Promise<void>, what: string): void {
    if (active.has(msg.id)) return;
    active.add(msg.id);
    const key = msg.conversationKey;
    outside.set(key, (outside.get(key) ?? 0) + 1);
    let answered = false;
    void track(
      after.then(async () => {
        if (owner && !owner.owns(key)) return; // its lease was lost meanwhile: not ours to answer
        await work();
        answered = true;
      }),
    )
      .catch((e: unknown) => log.error({ err: errorMessage(e) }, what))
      .finally(() => {
        active.delete(msg.id);
        const left = (outside.get(key) ?? 1) - 1;
        if (left > 0) return void outside.set(key, left);
        outside.delete(key);
        // Unanswered (it failed): given up without looking again at once; a later sweep retries it.
        if (owner && !stopping && !conversations.has(key))
          background(answered ? handOver(key) : owner.release(key), 'conversation not handed over', 'warn');
      });
  }

  /** The platform's own command menu (every registered command); typed commands work without it. */
  async function registerCommands(a: ChannelAdapter): Promise<void> {
    await a
      .setCommands?.(commands.menu())
      .catch((e: unknown) => log.warn({ channel: a.platform, err: errorMessage(e) }, 'commands not registered'));
  }

  let sweepTimer: NodeJS.Timeout | undefined;
  /**
   * Replicas: adapters first (a message they hand over is accepted and run by its conversation's
   * owner), then the unanswered work is taken conversation by conversation, now and every
   * sweepMs: what this replica owns is re-driven, what nobody owns (a dead replica's) is taken.
   */
  async function startReplica(): Promise<void> {
    if (!owner) return;
    owner.start((key) => {
      log.warn({ conversation: key }, 'another replica now answers this conversation');
      // Its run here is stopped as at a shutdown (nothing delivered, its questions kept open): the
      // new owner runs the still unanswered message again, and two answers would be sent.
      conversations.get(key)?.running?.abort(new GatewayStoppingError(true));
    });
    for (const a of opts.adapters) {
      if (opts.deferStart?.(a)) continue;
      await a.start(handle);
      log.info({ channel: a.platform, bot: a.identity()?.name }, 'channel started');
      await registerCommands(a);
    }
    // Questions asked before a restart stay answerable until their time, then expire (saying so).
    await desk.resume().catch((e: unknown) => log.error({ err: errorMessage(e) }, 'pending approvals not resumed'));
    const tick = () => {
      sweepTimer = setTimeout(
        () =>
          void sweep()
            .catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'sweep failed'))
            .finally(() => stopping || tick()),
        owner.sweepMs,
      ).unref();
    };
    await sweep().catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'sweep failed'));
    tick();
  }

  return {
    metrics,
    handle,
    adapter: (platform) => adapters.get(platform as never),
    async start() {
      if (owner) return startReplica();
      // Unfinished work is read and queued before any adapter starts: a message an adapter hands
      // over while starting is accepted and queued by `handle` after it (per conversation), and
      // is not found again as "pending". The queued work waits until the adapters are up.
      // Reading may write (the store repairs a torn last line first): a full disk is waited out
      // here, with no adapter started, instead of ending the process.
      const outbox = (await persist('start', () => opts.store.pendingOutbox())).filter((e) =>
        queues.has(platformOf(e.conversationKey)),
      );
      const pending = (await persist('start', () => opts.store.pending())).filter((p) =>
        adapters.has(p.message.platform),
      );
      let up!: () => void;
      const adaptersUp = new Promise<void>((r) => (up = r));
      const keys = new Set([...outbox.map((e) => e.conversationKey), ...pending.map((p) => p.message.conversationKey)]);
      for (const key of keys) chain(key, `start:${key}`, () => adaptersUp, 'start');
      // Half-delivered answers first, then what was accepted but not answered.
      const resumed = new Set<string>();
      for (const entry of outbox) {
        resumed.add(entry.id.replace(/:reply$/, ''));
        resume(entry);
      }
      for (const { message: msg, previewMessageId, previewSending } of pending) {
        if (resumed.has(msg.id)) continue;
        if (previewSending) lostPreview(msg);
        log.info({ conversation: msg.conversationKey }, 'answering a message accepted before the restart');
        // Admission again, under today's config: what was refused or revoked is not run now.
        const policy = resolvePolicy(opts.config, msg);
        dispatch(
          msg,
          policy,
          admit(policy, msg, { replyToStrangers: opts.replyToStrangers ?? true }),
          previewMessageId,
          adaptersUp,
        );
      }
      try {
        for (const a of opts.adapters) {
          if (opts.deferStart?.(a)) continue;
          await a.start(handle);
          log.info({ channel: a.platform, bot: a.identity()?.name }, 'channel started');
          await registerCommands(a);
        }
      } finally {
        up();
      }
      // Questions asked before a restart stay answerable until their time, then expire (saying so).
      await desk.resume().catch((e: unknown) => log.error({ err: errorMessage(e) }, 'pending approvals not resumed'));
      const every = opts.redriveMs ?? 30_000;
      const tick = () => {
        redriveTimer = setTimeout(
          () =>
            void redrive()
              .catch((e: unknown) => log.warn({ err: errorMessage(e) }, 'outbox re-drive failed'))
              .finally(() => stopping || tick()),
          every,
        ).unref();
      };
      tick();
    },
    async post(target, text, id) {
      const platform = platformOf(target.conversationKey);
      const adapter = adapters.get(platform as never);
      if (!adapter) throw new Error(`no ${platform} channel is running for ${target.conversationKey}`);
      const entry = outboxEntryOf(
        id ?? `post:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`,
        target,
        text,
        adapter.capabilities,
      );
      return track(deliverNow(platform, entry));
    },
    async idle() {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
    async stop() {
      stopping = true;
      stopped.abort();
      clearTimeout(redriveTimer);
      desk.stop();
      clearTimeout(sweepTimer);
      for (const s of conversations.values()) s.running?.abort(new GatewayStoppingError());
      // An adapter left to the caller (deferStart) is stopped by it too (the leader, as it steps down).
      for (const a of opts.adapters.filter((x) => !opts.deferStart?.(x)))
        await a
          .stop()
          .catch((e: unknown) => log.warn({ channel: a.platform, err: errorMessage(e) }, 'adapter stop failed'));
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 5000).unref())]);
      await owner?.stop();
      for (const q of queues.values()) q.close();
    },
  };
}
