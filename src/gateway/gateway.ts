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
// This file wires the parts, each a file of its own: gateway-context.ts (shared state, delivery
// helpers), intake.ts, dispatch.ts, commands/ (the registry), conversation-queue.ts, turn.ts,
// replicas.ts, resume.ts and lifecycle.ts (start, stop).
// Example: const gw = createGateway({ config, adapters, agent, store }); await gw.start();
import type { ChannelAdapter, InboundMessage, IntakeOptions, OutboundTarget, RequestPacer } from '../adapters/index.ts';
import { isPlatform, platformOf } from '../adapters/index.ts';
import type { StopSteps } from '../core/stop-steps.ts';
import type { DecisionResult } from './approvals.ts';
import { createCommandRegistry, GATEWAY_COMMANDS, type GatewayCommandContext } from './commands/index.ts';
import { createConversationQueue } from './conversation-queue.ts';
import { createDispatch } from './dispatch.ts';
import { createGatewayContext, type GatewayOptions } from './gateway-context.ts';
import { createIntake } from './intake.ts';
import { createLifecycle } from './lifecycle.ts';
import type { Metrics } from './metrics.ts';
import { createReplicas } from './replicas.ts';
import { outboxEntryOf } from './reply.ts';
import { createResume } from './resume.ts';
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
   * `id` names its outbox entry; `queued` runs once that entry is durable, before anything is sent.
   */
  post(target: OutboundTarget, text: string, id?: string, queued?: () => Promise<void>): Promise<string[]>;
  /** Resolves when every queued run and delivery has finished. */
  idle(): Promise<void>;
  /** Interrupts the runs (they run again at the next start) and stops the adapters; `steps` names its parts. */
  stop(steps?: StopSteps): Promise<void>;
  readonly metrics: Metrics;
  adapter(platform: string): ChannelAdapter | undefined;
  /**
   * Runs a platform's history reads through its outbound queue (behind replies, sharing the
   * bot's 429 pause), one at a time; undefined when the platform has no adapter here.
   */
  pace(platform: string): RequestPacer | undefined;
  /** Decides a pending approval from the dashboard (`by`: `dashboard:<who>`); the waiting run goes on. */
  decideApproval(id: string, approve: boolean, by: string): Promise<DecisionResult>;
}

/** Creates the gateway; call `start()`. */
export function createGateway(opts: GatewayOptions): Gateway {
  const ctx = createGatewayContext(opts);
  const { owner } = ctx;
  const commands = createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, ...(opts.chatCommands ?? [])]);
  const runTurn = createTurn(ctx);
  // The parts call each other only through these late-bound arrows, made before the parts exist.
  const queue = createConversationQueue({
    ...ctx,
    runTurn: (next, state, begin) => runTurn(next.msg, next.policy, state, begin, next.previewMessageId, next.accepted),
    mayRun: (key) => replicas.answers(key),
    onIdle: (key) => {
      if (owner?.owns(key)) void ctx.track(replicas.handOver(key)).catch(() => undefined);
    },
  });
  const { dispatch, answer } = createDispatch(ctx, {
    commands,
    queue,
    pump: (key) => replicas.pump(key),
    handOver: (key) => replicas.handOver(key),
  });
  const resume = createResume(ctx, { chain: queue.chain, dispatch });
  const replicas = createReplicas(ctx, { answer, resume: resume.resume });
  const handle = createIntake(ctx, { dispatch, commands });
  const { start, stop } = createLifecycle(ctx, { commands, handle, replicas, resume });

  return {
    metrics: ctx.metrics,
    handle,
    adapter: (platform) => (isPlatform(platform) ? ctx.adapters.get(platform) : undefined),
    pace(platform) {
      const queue = isPlatform(platform) ? ctx.queues.get(platform) : undefined;
      return queue ? (call) => queue.read(`history:${platform}`, call) : undefined;
    },
    decideApproval: (id, approve, by) => ctx.desk.decideAsAdmin(id, approve, by),
    start,
    async post(target, text, id, queued) {
      const platform = platformOf(target.conversationKey);
      const adapter = ctx.adapters.get(platform);
      if (!adapter) throw new Error(`no ${platform} channel is running for ${target.conversationKey}`);
      const entry = outboxEntryOf(
        id ?? `post:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`,
        target,
        text,
        adapter.capabilities,
      );
      return ctx.track(ctx.deliverNow(platform, entry, undefined, queued));
    },
    async idle() {
      while (ctx.inflight.size) await Promise.allSettled([...ctx.inflight]);
    },
    stop,
  };
}
