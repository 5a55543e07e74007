// Each conversation's work runs in order, one piece at a time, while conversations run in
// parallel: a chain of promises per conversation (its `tail`), with each id (a message, an outbox
// entry) queued at most once at a time. The runs of messages go through a second list per
// conversation, from which each turn takes the first message in the platform's order, not the
// first queued: messages saved out of order (replicas holding them through a store outage, a
// platform's parallel redeliveries) are answered as written.
import type { InboundMessage } from '../adapters/index.ts';
import { compareOrder, platformOf } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { ResolvedPolicy } from '../runner/policy.ts';
import { GatewayStoppingError } from '../runner/ports.ts';
import type { ConversationState } from './commands/index.ts';
import type { GatewayContext } from './gateway-context.ts';

/**
 * A message's save, for a message queued while it is written: resolves once it is durable, with
 * the storage-failure notice its answer replaces (if one was sent meanwhile); undefined (or a
 * rejection) when it was a duplicate or could not be saved, and then the run delivers nothing.
 */
export type Acceptance = Promise<{ previewMessageId?: string } | undefined>;

/** A turn whose answer went out, with the write of the answer's end under way (never rejecting). */
export interface Settling {
  settling: Promise<void>;
}

/** A message waiting for its turn. */
export interface QueuedRun {
  msg: InboundMessage;
  policy: ResolvedPolicy;
  previewMessageId?: string;
  /** The message's save, when it was queued before the save was durable (the run's platform calls wait for it). */
  accepted?: Acceptance;
}

/** What the queue reads and calls: the gateway's context, or fakes in tests. */
export type ConversationQueueDeps = Pick<
  GatewayContext,
  'active' | 'conversations' | 'stateOf' | 'metrics' | 'track' | 'log'
> & {
  /**
   * Runs one message's turn; `begin` ends its count in the queue depth when its run starts. May
   * resolve, once its answer went out, with the write of the answer's end still under way: the
   * conversation stays (its next answer waits for it, it is not idle) and the message stays
   * active until that write settles.
   */
  runTurn(run: QueuedRun, state: ConversationState, begin: () => void): Promise<Settling | undefined>;
  /** Whether this process still answers the conversation (replicas: it owns it); checked as a turn starts. */
  mayRun(key: string): boolean;
  /** The conversation's queue emptied and its state was dropped (replicas hand it over). */
  onIdle(key: string): void;
};

/** The per-conversation queues. */
export interface ConversationQueue {
  /**
   * Runs `job` after everything already queued in the conversation `key` (so answers, resumed
   * ones included, leave in order); `id` (the message or outbox entry) runs at most once at a time.
   * It counts in the platform's queue depth until it calls `begin` (or ends).
   */
  chain(key: string, id: string, job: (begin: () => void) => Promise<void>, what: string): void;
  /**
   * Queues a run of `msg`; the turn it gets runs the conversation's first queued message in the
   * platform's order. `accepted`: the message's save, when it is queued before it is durable.
   */
  enqueue(msg: InboundMessage, policy: ResolvedPolicy, previewMessageId?: string, accepted?: Acceptance): void;
}

/** Removes and returns the entry of `queued` first in the platform's order (queue order where there is none). */
export function firstInOrder<T extends { msg: InboundMessage }>(queued: T[]): T {
  let at = 0;
  for (let i = 1; i < queued.length; i++) {
    const a = queued[i]!.msg.order;
    const b = queued[at]!.msg.order;
    if (a !== undefined && b !== undefined && compareOrder(a, b) < 0) at = i;
  }
  return queued.splice(at, 1)[0]!;
}

/** The conversation queues over `d`. */
export function createConversationQueue(d: ConversationQueueDeps): ConversationQueue {
  /** Per conversation, the messages queued here for a run. */
  const queuedRuns = new Map<string, QueuedRun[]>();
  let turns = 0;

  function chain(key: string, id: string, job: (begin: () => void) => Promise<void>, what: string): void {
    if (d.active.has(id)) return;
    d.active.add(id);
    const state = d.stateOf(key);
    state.queued++;
    const depth = { platform: platformOf(key) };
    let waiting = true;
    const begin = () => {
      if (waiting) d.metrics.queueDepth.dec(depth);
      waiting = false;
    };
    d.metrics.queueDepth.inc(depth);
    const run = state.tail.then(() =>
      job(begin).catch((e: unknown) => {
        if (e instanceof GatewayStoppingError && e.handedOver) {
          // Its conversation passed to another replica while the answer waited to go: that one answers it.
          d.log.info({ conversation: key }, 'answer not sent here: another replica now answers this conversation');
          return;
        }
        d.metrics.errors.inc({ scope: 'delivery' });
        // A refusal was marked failed and the user told (deliverEntry); anything else stays in
        // the outbox and the re-drive tries it again.
        d.log.error({ conversation: key, err: errorMessage(e) }, what);
      }),
    );
    state.tail = d.track(run).finally(() => {
      begin();
      d.active.delete(id);
      state.queued--;
      dropIfIdle(key, state);
    });
  }

  /** Forgets the conversation's state once nothing is queued, running or being settled in it. */
  function dropIfIdle(key: string, state: ConversationState): void {
    if (state.queued === 0 && !state.running && !state.settling && d.conversations.get(key) === state) {
      d.conversations.delete(key);
      d.onIdle(key);
    }
  }

  /**
   * Keeps message `id` active and its conversation's state until `settling` (its answer's end)
   * is written: the re-drive or a replica's sweep must not find the answer unfinished meanwhile
   * and send it again, and the conversation's next answer waits for it (state.settling).
   */
  function settle(key: string, state: ConversationState, id: string, settling: Promise<void>): void {
    state.settling = settling;
    void settling.finally(() => {
      d.active.delete(id);
      if (state.settling === settling) state.settling = undefined;
      dropIfIdle(key, state);
    });
  }

  function enqueue(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    previewMessageId?: string,
    accepted?: Acceptance,
  ): void {
    if (d.active.has(msg.id)) return;
    d.active.add(msg.id); // queued or running under this id, whichever turn runs it
    const key = msg.conversationKey;
    const queued = queuedRuns.get(key) ?? [];
    queuedRuns.set(key, queued);
    queued.push({ msg, policy, ...(previewMessageId ? { previewMessageId } : {}), ...(accepted ? { accepted } : {}) });
    chain(
      key,
      `run:${msg.id}:${++turns}`, // a turn of the conversation, not this message's own
      async (begin) => {
        const next = queued.length > 0 ? firstInOrder(queued) : undefined; // one turn per message queued
        if (queued.length === 0 && queuedRuns.get(key) === queued) queuedRuns.delete(key);
        if (!next) return;
        const state = d.stateOf(key);
        let settling: Promise<void> | undefined;
        try {
          // With replicas, only while this replica still owns the conversation: a lease lost
          // meanwhile passed its queue to another replica, which answers it. Until the run starts,
          // the message counts in the queue depth (chain ends that count if it returns here).
          if (!d.mayRun(key)) return;
          settling = (await d.runTurn(next, state, begin))?.settling;
        } finally {
          if (settling) settle(key, state, next.msg.id, settling);
          else d.active.delete(next.msg.id);
        }
      },
      'could not deliver an answer',
    );
  }

  return { chain, enqueue };
}
