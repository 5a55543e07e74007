// One turn: an agent run for one accepted message, streamed as a preview where the platform can
// edit, then its answer written to the outbox and delivered (an answer the history already holds
// as sent goes without an entry: sendUnstored). The run holds a run slot while it
// works, not while it waits on the model or an approver (semaphore.ts); delivery holds none.
// A run stopped by a shutdown or a hand-over delivers nothing: the message stays accepted and
// runs again at the next start, or on the replica that now owns its conversation.
import type { ChannelAdapter, InboundMessage, OutboundFile, OutboundTarget } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import { type MediaWorkJournal, type PreparedMedia, prepareMedia } from '../runner/media/index.ts';
import type { Persist } from '../runner/persist.ts';
import type { ResolvedPolicy } from '../runner/policy.ts';
import { type GatewayAgentEvent, GatewayStoppingError, type RunOutcome } from '../runner/ports.ts';
import type { ConversationState } from './commands/index.ts';
import type { Acceptance, Settling } from './conversation-queue.ts';
import type { GatewayContext } from './gateway-context.ts';
import { fenced, finishAnswered, finishEntry, outboxEntryOf, ReplyStream, sendEntry, sendUnstored } from './reply.ts';

// Said once per message, when a store write its answer needs fails (the history, the outbox):
// the answer is late, not lost, and "shortly" would be a promise the server cannot keep.
const LATE_ANSWER = 'Your answer is delayed: it could not be saved (server storage failed); it follows once it can be.';

/** Hands a tool's start or end to an adapter that shows them; a failure there never touches the run. */
function showActivity(
  adapter: ChannelAdapter,
  target: OutboundTarget,
  e: Extract<GatewayAgentEvent, { type: 'status' | 'status-clear' }>,
): void {
  try {
    const call = e.callId !== undefined ? { callId: e.callId } : {};
    adapter.showActivity?.(
      target,
      e.type === 'status'
        ? { kind: 'tool-start', text: e.text, ...call, ...(e.detail !== undefined ? { detail: e.detail } : {}) }
        : {
            kind: 'tool-end',
            text: e.text ?? '',
            ...call,
            ...(e.output !== undefined ? { detail: e.output, detailChars: e.outputChars ?? e.output.length } : {}),
          },
    );
  } catch {
    // best effort by contract
  }
}

/**
 * A turn's runner: `runTurn(msg, policy, state, begin, previewMessageId, accepted)`; resolves once
 * the answer went out, with the write of its end (`settling`, never rejecting) still under way.
 */
export type RunTurn = (
  msg: InboundMessage,
  policy: ResolvedPolicy,
  state: ConversationState,
  begin: () => void,
  previewMessageId?: string,
  accepted?: Acceptance,
) => Promise<Settling | undefined>;

/**
 * What a turn's platform calls wait for: the message's save, when it was queued before the save
 * was durable, and the end of the conversation's previous answer, while it is being written (so
 * that, across a crash, answers still leave in order). Undefined when there is nothing to wait for.
 */
function gateOf(accepted: Acceptance | undefined, prior: Promise<void> | undefined): Acceptance | undefined {
  if (!accepted && !prior) return undefined;
  return Promise.all([accepted ?? {}, prior]).then(([a]) => a);
}

/** The turn of the gateway `ctx`. */
export function createTurn(ctx: GatewayContext): RunTurn {
  const { opts, log, metrics, adapters, persist, desk, track, runs } = ctx;
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
  async function runTurn(
    msg: InboundMessage,
    policy: ResolvedPolicy,
    state: ConversationState,
    begin: () => void,
    previewMessageId?: string,
    accepted?: Acceptance,
  ): Promise<Settling | undefined> {
    const adapter = adapters.get(msg.platform)!;
    const queue = ctx.queueOf(msg.platform);
    const target = ctx.targetOf(msg);
    // The answer, and its previews, go only while this replica owns the conversation (replicas).
    const delivery = ctx.deliveryOf(msg.platform, true);
    const controller = new AbortController();
    // The run may start while the message's save is in flight (its reads overlap the write), but
    // nothing reaches the platform, and the model is not called, before that save is durable.
    const gate = gateOf(accepted, state.settling);
    gate?.catch(() => undefined);
    // The preview's id is journaled as soon as it exists, so a crash leaves no preview that a
    // run again would not find and edit; a full disk is waited out in the background (dropping
    // the id would leave the preview stray at the next restart, a message the user sees twice).
    // While the store is failing no new preview is started: its id could not be recorded.
    // The previews this run made, each with whether its id is journaled yet (made when one is).
    let made: Map<string, boolean> | undefined;
    const created = (id: string): Promise<void> => {
      (made ??= new Map()).set(id, false);
      const journaling = track(persist('preview', () => opts.store.notePreview(msg.id, id)));
      journaling.then(
        () => made!.set(id, true),
        (e: unknown) => log.warn({ err: errorMessage(e) }, 'preview id not journaled'),
      );
      return journaling.then(() => undefined);
    };
    const mayCreate = () => ctx.storeHealth.failing === 0;
    const sending = () => track(opts.store.notePreviewSending(msg.id));
    const stream = new ReplyStream(queue, adapter.capabilities, target, log, {
      ...(previewMessageId ? { existing: previewMessageId } : {}),
      created,
      mayCreate,
      sending,
      key: `preview:${msg.id}`,
      held: gate !== undefined,
      ...(delivery.owns ? { mayGo: delivery.owns } : {}),
    });
    gate?.then(
      (a) => a && stream.open(a.previewMessageId),
      () => undefined,
    );
    // The user is told once that the answer is late, whichever of its writes waits on the store.
    let lateNotice: Promise<string | undefined> | undefined;
    const tellLate = () => {
      lateNotice ??= gate
        ? gate.then(
            (a) => (a ? ctx.sendNotice(msg.platform, target, LATE_ANSWER) : undefined),
            () => undefined,
          )
        : ctx.sendNotice(msg.platform, target, LATE_ANSWER);
    };
    const runPersist: Persist = (what, write) => persist(what, write, tellLate);
    const started = Date.now();
    let text!: string;
    let outcome!: RunOutcome;
    let files: OutboundFile[] | undefined;
    let replayable: true | undefined;
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
        ({ text, outcome, files, replayable } = await opts.agent.run({
          message: msg,
          policy,
          signal: controller.signal,
          onEvent: (e) => {
            stream.onEvent(e);
            if (e.type === 'status' || e.type === 'status-clear') showActivity(adapter, target, e);
          },
          persist: runPersist,
          slot,
          ...(accepted
            ? {
                ready: accepted.then(
                  (a) => a !== undefined,
                  () => false,
                ),
              }
            : {}),
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
    // A duplicate of a message saved before, or one that could not be saved: nothing is delivered.
    const acceptedAs = gate ? await gate.catch(() => undefined) : {};
    if (!acceptedAs) {
      await closing;
      log.debug({ id: msg.id }, 'run of a message not saved as new dropped');
      return undefined;
    }
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
      return undefined;
    }
    metrics.agentRuns.inc({ outcome });
    metrics.runSeconds.observe((Date.now() - started) / 1000);
    // A notice sent while the message's save was failing is replaced by the answer (as its preview).
    const previewId = (await closing) ?? acceptedAs.previewMessageId;
    let entry = outboxEntryOf(msg.id, target, text, adapter.capabilities, previewId, stream.shown, files);
    let settle: () => Promise<void>;
    // A preview this run made is edited into the answer only once its id is durable here: else a
    // restart could not find it, and would post the answer beside it.
    const previewKnown = previewId === undefined || made?.get(previewId) !== false;
    if (replayable && lateNotice === undefined && entry.chunks.length === 1 && !entry.files && previewKnown) {
      // The answer is already durable in the history, as this text: a restart that finds the
      // message unanswered runs it again and sends the same text from there (no model call, no new
      // charge). So it goes out with no outbox entry, and its end is one record: the message answered.
      await sendUnstored(delivery, entry, msg.id, ctx.stopping);
      settle = () => finishAnswered(delivery, msg.id);
    } else {
      // Until the answer is in the outbox it exists only here: keep trying to write it (the
      // conversation waits meanwhile, so nothing overtakes it) and tell the user why it is late.
      // Written while this replica owns the conversation, checked in the write (`fenced`).
      const fence = delivery.fenceOf?.(msg.conversationKey);
      await fenced(() =>
        runPersist('outbox', async () => {
          // An answer without a preview of its own replaces the "delayed" notice instead of leaving
          // it in the chat (the entry then names it, so a restart replaces it too).
          const notice = previewId === undefined && lateNotice ? await lateNotice : undefined;
          if (notice !== undefined && entry.streamMessageId === undefined)
            entry = outboxEntryOf(msg.id, target, text, adapter.capabilities, notice, LATE_ANSWER, files);
          await opts.store.putOutbox(entry, fence);
        }),
      );
      await sendEntry(delivery, entry, msg.id);
      settle = () => finishEntry(delivery, entry, msg.id);
    }
    metrics.messagesOut.inc({ platform: msg.platform }, entry.chunks.length + (entry.files?.length ?? 0));
    metrics.replySeconds.observe({ platform: msg.platform }, (Date.now() - Date.parse(msg.receivedAt)) / 1000);
    // The answer is out; its end is written without holding the reply up. The conversation's next
    // answer waits for it and so does the gateway's stop; a crash before it is durable finds the
    // entry unfinished (or, with none, the message unanswered) at the restart, as a crash just
    // before this line always did. (Wrapped: an async function returning the promise itself would wait for it.)
    const settling = track(settle()).catch((e: unknown) =>
      log.error({ conversation: msg.conversationKey, err: errorMessage(e) }, "the answer's end was not written"),
    );
    return { settling };
  }

  return runTurn;
}
