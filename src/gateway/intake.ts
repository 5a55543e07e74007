// Intake: the one sink every adapter feeds. A message is admitted by policy, then saved
// (deduplicated) after the earlier messages of its conversation, and dispatched. While the store
// fails (a full disk) a message is held unacknowledged and its save retried, rather than refused:
// a refused message would come back only when the platform redelivers it, after newer messages of
// its conversation were answered. A webhook's message (the platform redelivers it) is refused at
// once instead, and so are its conversation's later messages until it is saved. A button press
// is decided at once, outside the queues.
import type { InboundMessage, IntakeOptions } from '../adapters/index.ts';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import { type Admission, admit, type ResolvedPolicy, resolvePolicy } from '../runner/policy.ts';
import { parseApprovalButton } from './approvals.ts';
import type { CommandRegistry, GatewayCommandContext } from './commands/index.ts';
import type { Acceptance } from './conversation-queue.ts';
import type { Dispatch } from './dispatch.ts';
import type { GatewayContext } from './gateway-context.ts';
import { createOutageNotices } from './outage-notices.ts';
import { createUnsavedMessages } from './unsaved-messages.ts';

const UNSAVED_MESSAGE = 'Sorry, I could not save your message (server storage failed); I will answer it once I can.';
// How long a conversation's storage-failure notice stands for its outage when no answer here
// takes it over (the message was saved by another replica), and how long a refused message keeps
// its conversation's later ones out (a platform that stopped redelivering it must not block it).
const NOTICE_MEMORY_MS = 10 * 60_000;
const UNSAVED_MEMORY_MS = 2 * 60_000;

/** The sink of the gateway `ctx`: `handle(message, intake)`. */
export function createIntake(
  ctx: GatewayContext,
  d: { dispatch: Dispatch['dispatch']; commands: CommandRegistry<GatewayCommandContext> },
): (incoming: InboundMessage, intake?: IntakeOptions) => Promise<void> {
  const { opts, log, metrics, adapters, persist, desk, targetOf, sendNotice } = ctx;
  // Incoming messages being accepted (by id: a platform's redelivery joins the wait in progress),
  // and per conversation the last of them, which the next one waits for.
  const accepting = new Map<string, Promise<void>>();
  const acceptTails = new Map<string, Promise<void>>();
  const notices = createOutageNotices(NOTICE_MEMORY_MS, opts.now);
  const unsaved = createUnsavedMessages(UNSAVED_MEMORY_MS, opts.now);

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
    else if (!r.ok) ctx.notify(msg.platform, targetOf(msg), r.text);
  }

  async function handle(incoming: InboundMessage, intake: IntakeOptions = {}): Promise<void> {
    if (ctx.stopping()) throw new Error('the gateway is stopping');
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
    const saving = intake.redelivers
      ? refuseBehindUnsaved(msg, tellUnsaved).then(() => acceptOnce(msg, tellUnsaved))
      : persist('inbound', () => opts.store.accept(msg), tellUnsaved);
    // A message that runs the agent is queued at once, its run reading while the save is written
    // (the run waits for it before anything reaches the model or the platform: turn.ts); the
    // platform's acknowledgement still waits for the save (this call resolves after it, and after
    // a storage-failure notice the answer is to replace is journaled as its preview).
    const early = admission.admitted && !ctx.owner && msg.attachments.length === 0 && runsAgent(msg);
    let accepted: Acceptance | undefined;
    if (early) {
      accepted = saving.then(async (fresh) =>
        fresh ? { previewMessageId: await noticeAsPreview(msg, intake) } : undefined,
      );
      accepted.catch(() => undefined);
      d.dispatch(msg, policy, admission, undefined, undefined, accepted);
    }
    let fresh: boolean;
    try {
      fresh = accepted ? (await accepted) !== undefined : await saving;
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
    if (early) return;
    const notice = admission.admitted && runsAgent(msg) ? await noticeAsPreview(msg, intake) : undefined;
    d.dispatch(msg, policy, admission, notice);
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
  const runsAgent = (msg: InboundMessage): boolean => !d.commands.parse(msg.text);

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

  return handle;
}
