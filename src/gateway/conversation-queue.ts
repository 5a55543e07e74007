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
import type { ConversationState } from './commands/index.ts';
import type { GatewayContext } from './gateway-context.ts';

/** A message waiting for its turn. */
export interface QueuedRun {
  msg: InboundMessage;
  policy: ResolvedPolicy;
  previewMessageId?: string;
}

/** What the queue reads and calls: the gateway's context, or fakes in tests. */
export type ConversationQueueDeps = Pick<
  GatewayContext,
  'active' | 'conversations' | 'stateOf' | 'metrics' | 'track' | 'log'
> & {
  /** Runs one message's turn; `begin` ends its count in the queue depth when its run starts. */
  runTurn(run: QueuedRun, state: ConversationState, begin: () => void): Promise<void>;
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
  /** Queues a run of `msg`; the turn it gets runs the conversation's first queued message in the platform's order. */
  enqueue(msg: InboundMessage, policy: ResolvedPolicy, previewMessageId?: string): void;
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
      if (state.queued === 0 && !state.running && d.conversations.get(key) === state) {
        d.conversations.delete(key);
        d.onIdle(key);
      }
    });
  }

  function enqueue(msg: InboundMessage, policy: ResolvedPolicy, previewMessageId?: string): void {
    if (d.active.has(msg.id)) return;
    d.active.add(msg.id); // queued or running under this id, whichever turn runs it
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
          if (!d.mayRun(key)) return;
          await d.runTurn(next, d.stateOf(key), begin);
        } finally {
          d.active.delete(next.msg.id);
        }
      },
      'could not deliver an answer',
    );
  }

  return { chain, enqueue };
}
