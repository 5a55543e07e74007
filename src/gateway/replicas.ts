// Replicas on one database: a replica answers only the conversations it owns (leases,
// conversation-owner.ts). `pump` takes a conversation's unanswered work when this replica owns it
// or can take it; `handOver` gives it up once its queue is empty (and looks once more); `sweep`
// takes what no replica works on (its owner died). A conversation taken over by another replica
// has its run here stopped as at a shutdown: the new owner runs the unanswered message again.
// Taken back while that work is still ending here, the conversation waits for it to end: what it
// leaves unanswered is read again then, before any later message (nothing answered out of order).
import { platformOf } from '../adapters/index.ts';
import { createKeyedLock } from '../core/keyed-lock.ts';
import { admit, resolvePolicy } from '../runner/policy.ts';
import { GatewayStoppingError } from '../runner/ports.ts';
import type { ConversationState } from './commands/index.ts';
import type { Dispatch } from './dispatch.ts';
import type { GatewayContext } from './gateway-context.ts';
import type { Resume } from './resume.ts';

/** A replica's side of conversation ownership (every call does nothing without `cluster`). */
export interface Replicas {
  /** Runs the conversation's unanswered work here if this replica owns it or can take it. */
  pump(key: string): Promise<void>;
  /** The conversation's queue is empty: give it up, then look once more (a message accepted elsewhere meanwhile). */
  handOver(key: string): Promise<void>;
  /** Takes the unanswered work no replica is working on (its owner died, or gave it up just then). */
  sweep(): Promise<void>;
  /** Starts holding leases; a conversation lost to another replica has its run here stopped. */
  watch(): void;
  /** Whether a queued turn of the conversation may start: this replica owns it, and has since the turn was queued. */
  answers(key: string): boolean;
}

/** The replica side of the gateway `ctx`. */
export function createReplicas(
  ctx: GatewayContext,
  d: { answer: Dispatch['answer']; resume: Resume['resume'] },
): Replicas {
  const { opts, owner, active, conversations } = ctx;
  const pumps = createKeyedLock();
  // The conversations' states (their queues here) from before a lost lease: none of their turns
  // starts, even once the lease is taken back, and nothing joins them. Their messages stay
  // unanswered; the state is dropped when its work has ended (a stopped run, turns that return).
  const lost = new WeakSet<ConversationState>();
  const lostHere = (key: string): boolean => {
    const state = conversations.get(key);
    return state !== undefined && lost.has(state);
  };

  function pump(key: string): Promise<void> {
    return pumps.run(key, async () => {
      if (ctx.stopping() || !owner || !(await owner.claim(key))) return;
      // Taken back while its work from before the loss is still ending: a message of it would be
      // skipped below as active and a later one answered first. Nothing is taken now; once that
      // work has ended, the queue's idle hands the conversation over and that reads it again.
      if (lostHere(key)) return;
      // What was being worked on as the read began may be finished by the time it returns, the
      // copy read still listing it: left alone too (if it failed, the next sweep takes it).
      const busy = new Set(active);
      // This conversation's alone (a keyed read): the whole journal is every conversation's, and
      // it is long exactly when replicas are busy.
      const [pending, outbox] = await Promise.all([opts.store.pending(key), opts.store.pendingOutbox(key)]);
      const idle = (id: string) => !active.has(id) && !busy.has(id);
      for (const entry of outbox) if (idle(entry.id)) d.resume(entry);
      for (const { message, previewMessageId, previewSending } of pending) {
        if (!idle(message.id) || !ctx.adapters.has(message.platform)) continue;
        if (previewSending) ctx.lostPreview(message);
        const policy = resolvePolicy(opts.config, message);
        d.answer(
          message,
          policy,
          admit(policy, message, { replyToStrangers: opts.replyToStrangers ?? true }),
          previewMessageId,
        );
      }
      if (!conversations.has(key)) await handOver(key); // nothing to do here after all
    });
  }

  async function handOver(key: string): Promise<void> {
    if (!owner || ctx.stopping() || conversations.has(key) || ctx.outside.has(key)) return;
    await owner.release(key);
    if ((await opts.store.pending(key)).length > 0) ctx.background(pump(key), 'conversation not taken', 'warn');
  }

  async function sweep(): Promise<void> {
    const [pending, outbox] = await Promise.all([opts.store.pending(), opts.store.pendingOutbox()]);
    const keys = new Set([...pending.map((p) => p.message.conversationKey), ...outbox.map((e) => e.conversationKey)]);
    for (const key of keys) if (ctx.adapters.has(platformOf(key))) await pump(key);
  }

  function watch(): void {
    owner?.start((key) => {
      ctx.log.warn({ conversation: key }, 'another replica now answers this conversation');
      const state = conversations.get(key);
      if (!state) return;
      lost.add(state);
      // Its run here is stopped as at a shutdown (nothing delivered, its questions kept open): the
      // new owner runs the still unanswered message again, and two answers would be sent.
      state.running?.abort(new GatewayStoppingError(true));
    });
  }

  const answers = (key: string): boolean => !owner || (owner.owns(key) && !lostHere(key));

  return { pump, handOver, sweep, watch, answers };
}
