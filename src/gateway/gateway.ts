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
import { errorMessage } from '../core/errors.ts';
import { createKeyedLock } from '../core/keyed-lock.ts';
import { admit, resolvePolicy } from '../runner/policy.ts';
import { GatewayStoppingError, type OutboxEntry } from '../runner/ports.ts';
import { createCommandRegistry, GATEWAY_COMMANDS, type GatewayCommandContext } from './commands/index.ts';
import { createConversationQueue } from './conversation-queue.ts';
import { createDispatch } from './dispatch.ts';
import { createGatewayContext, type GatewayOptions } from './gateway-context.ts';
import { createIntake } from './intake.ts';
import type { Metrics } from './metrics.ts';
import { deliverEntry, outboxEntryOf } from './reply.ts';
import { createTurn } from './turn.ts';

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

/** Creates the gateway; call `start()`. */
export function createGateway(opts: GatewayOptions): Gateway {
  const ctx = createGatewayContext(opts);
  const { log, metrics, adapters, queues, conversations, active, outside, owner, stopped, persist, desk } = ctx;
  const { track, background, lostPreview, deliveryOf, deliverNow } = ctx;
  const stopping = ctx.stopping;
  let redriveTimer: NodeJS.Timeout | undefined;
  const pumps = createKeyedLock();
  const commands = createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, ...(opts.chatCommands ?? [])]);
  const runTurn = createTurn(ctx);
  const queue = createConversationQueue({
    ...ctx,
    runTurn: (next, state, begin) => runTurn(next.msg, next.policy, state, begin, next.previewMessageId),
    mayRun: (key) => !owner || owner.owns(key),
    onIdle: (key) => {
      if (owner?.owns(key)) void track(handOver(key)).catch(() => undefined);
    },
  });
  const { chain } = queue;
  const { dispatch, answer } = createDispatch(ctx, {
    commands,
    queue,
    pump: (key) => pump(key),
    handOver: (key) => handOver(key),
  });
  const handle = createIntake(ctx, { dispatch, commands });

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
        answer(
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
