// Resume and re-drive: nothing is lost and nothing sent twice across a restart. At start the
// outbox's half-delivered answers are delivered, then the messages accepted but not answered are
// dispatched again (under today's config), each in its conversation's order and only once the
// adapters are up; while running, outbox entries nobody works on (a send that failed with an
// unexpected error) are delivered again every `redriveMs`, so such an answer waits minutes.
import { platformOf } from '../adapters/index.ts';
import { admit, resolvePolicy } from '../runner/policy.ts';
import type { OutboxEntry } from '../runner/ports.ts';
import type { ConversationQueue } from './conversation-queue.ts';
import type { Dispatch } from './dispatch.ts';
import type { GatewayContext } from './gateway-context.ts';
import { deliverEntry } from './reply.ts';

/** The resume of the gateway's unfinished work. */
export interface Resume {
  /** Delivers an outbox entry left unfinished, in its conversation's order. */
  resume(entry: OutboxEntry): void;
  /** Delivers the outbox entries nobody is working on. */
  redrive(): Promise<void>;
  /**
   * At start, before any adapter: reads the unfinished work and queues it behind a barrier in
   * each of its conversations; resolves with the call that lifts the barriers (the adapters are up).
   */
  queueUnfinished(): Promise<() => void>;
}

/** The resume of the gateway `ctx`. */
export function createResume(
  ctx: GatewayContext,
  d: { chain: ConversationQueue['chain']; dispatch: Dispatch['dispatch'] },
): Resume {
  const { opts, log } = ctx;

  function resume(entry: OutboxEntry): void {
    const platform = platformOf(entry.conversationKey);
    const answers = entry.id.replace(/:reply$/, ''); // the message it answers (a command's reply is `<id>:reply`)
    d.chain(
      entry.conversationKey,
      entry.id,
      async (begin) => {
        begin();
        // Read again now that it is this entry's turn: the copy in hand may have been finished
        // (or gained receipts) by another path since it was read.
        const current = (await opts.store.pendingOutbox(entry.conversationKey)).find((e) => e.id === entry.id);
        if (current) await deliverEntry(ctx.deliveryOf(platform, true), current, answers);
      },
      'resumed answer not delivered',
    );
  }

  async function redrive(): Promise<void> {
    for (const entry of await opts.store.pendingOutbox()) {
      if (ctx.stopping()) return;
      if (ctx.queues.has(platformOf(entry.conversationKey))) resume(entry);
    }
  }

  async function queueUnfinished(): Promise<() => void> {
    // Read and queued before any adapter starts: a message an adapter hands over while starting
    // is accepted and queued by `handle` after it (per conversation), and is not found again as
    // "pending". Reading may write (the store repairs a torn last line first): a full disk is
    // waited out here, with no adapter started, instead of ending the process.
    const outbox = (await ctx.persist('start', () => opts.store.pendingOutbox())).filter((e) =>
      ctx.queues.has(platformOf(e.conversationKey)),
    );
    const pending = (await ctx.persist('start', () => opts.store.pending())).filter((p) =>
      ctx.adapters.has(p.message.platform),
    );
    let up!: () => void;
    const adaptersUp = new Promise<void>((r) => (up = r));
    const keys = new Set([...outbox.map((e) => e.conversationKey), ...pending.map((p) => p.message.conversationKey)]);
    for (const key of keys) d.chain(key, `start:${key}`, () => adaptersUp, 'start');
    // Half-delivered answers first, then what was accepted but not answered.
    const resumed = new Set<string>();
    for (const entry of outbox) {
      resumed.add(entry.id.replace(/:reply$/, ''));
      resume(entry);
    }
    for (const { message: msg, previewMessageId, previewSending } of pending) {
      if (resumed.has(msg.id)) continue;
      if (previewSending) ctx.lostPreview(msg);
      log.info({ conversation: msg.conversationKey }, 'answering a message accepted before the restart');
      // Admission again, under today's config: what was refused or revoked is not run now.
      const policy = resolvePolicy(opts.config, msg);
      d.dispatch(
        msg,
        policy,
        admit(policy, msg, { replyToStrangers: opts.replyToStrangers ?? true }),
        previewMessageId,
        adaptersUp,
      );
    }
    return up;
  }

  return { resume, redrive, queueUnfinished };
}
