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
import type { ChannelAdapter, InboundMessage, IntakeOptions, OutboundTarget } from '../adapters/index.ts';
import { platformOf } from '../adapters/index.ts';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import { createKeyedLock } from '../core/keyed-lock.ts';
import { type CommandCaller, commandAllowed, isAdmin, refusedCommandText } from '../runner/command-access.ts';
import { type Admission, admit, type ResolvedPolicy, resolvePolicy } from '../runner/policy.ts';
import { GatewayStoppingError, type OutboxEntry } from '../runner/ports.ts';
import { parseApprovalButton } from './approvals.ts';
import {
  createCommandRegistry,
  GATEWAY_COMMANDS,
  type GatewayCommandContext,
  type ParsedCommand,
} from './commands/index.ts';
import { createConversationQueue } from './conversation-queue.ts';
import { createGatewayContext, type GatewayOptions } from './gateway-context.ts';
import type { Metrics } from './metrics.ts';
import { createOutageNotices } from './outage-notices.ts';
import { deliverEntry, outboxEntryOf } from './reply.ts';
import { createTurn } from './turn.ts';
import { createUnsavedMessages } from './unsaved-messages.ts';

export type { GatewayOptions } from './gateway-context.ts';

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
const STRANGER_REPLY = (msg: InboundMessage) =>
  `Sorry, I am not set up to talk with you here. An admin can allow your ${msg.platform} user id ${msg.userId} ` +
  `(allowFrom in boxbot.config.json).`;

/** Creates the gateway; call `start()`. */
export function createGateway(opts: GatewayOptions): Gateway {
  const ctx = createGatewayContext(opts);
  const { log, metrics, adapters, queues, conversations, active, outside, owner, stopped, persist, desk } = ctx;
  const { track, background, targetOf, replyNow, sendNotice, notify, lostPreview, deliveryOf, deliverNow } = ctx;
  const stopping = ctx.stopping;
  // Incoming messages being accepted (by id: a platform's redelivery joins the wait in progress),
  // and per conversation the last of them, which the next one waits for.
  const accepting = new Map<string, Promise<void>>();
  const acceptTails = new Map<string, Promise<void>>();
  const notices = createOutageNotices(NOTICE_MEMORY_MS, opts.now);
  const unsaved = createUnsavedMessages(UNSAVED_MEMORY_MS, opts.now);
  let redriveTimer: NodeJS.Timeout | undefined;
  const pumps = createKeyedLock();
  const commands = createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, ...(opts.chatCommands ?? [])]);
  const runTurn = createTurn(ctx);
  const { chain, enqueue } = createConversationQueue({
    ...ctx,
    runTurn: (next, state, begin) => runTurn(next.msg, next.policy, state, begin, next.previewMessageId),
    mayRun: (key) => !owner || owner.owns(key),
    onIdle: (key) => {
      if (owner?.owns(key)) void track(handOver(key)).catch(() => undefined);
    },
  });

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
      chosenPolicy: () => ctx.withChosenModel(key, policy),
      helpText: () => commands.helpText((level) => commandAllowed(level, policy, caller).ok),
      behindTurns: (id, work, what) => chain(key, id, work, what),
      finish: () => opts.store.finish(msg.id),
      stopping: stopped.signal,
    };
  }

  /**
   * Replicas: runs the conversation's unanswered work here if this replica owns the conversation
   * or can take it; otherwise its owner will (it looks again before giving it up).
   */
  function pump(key: string): Promise<void> {
    return pumps.run(key, async () => {
      if (stopping() || !owner || !(await owner.claim(key))) return;
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
    if (!owner || stopping() || conversations.has(key) || outside.has(key)) return;
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
      if (stopping()) return;
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
    if (stopping()) throw new Error('the gateway is stopping');
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
        if (owner && !stopping() && !conversations.has(key))
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
            .finally(() => stopping() || tick()),
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
              .finally(() => stopping() || tick()),
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
      while (ctx.inflight.size) await Promise.allSettled([...ctx.inflight]);
    },
    async stop() {
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
      await Promise.race([Promise.allSettled([...ctx.inflight]), new Promise((r) => setTimeout(r, 5000).unref())]);
      await owner?.stop();
      for (const q of queues.values()) q.close();
    },
  };
}
