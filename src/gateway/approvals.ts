// The approval desk: when a run's tool call needs a person's yes, it posts the exact call with
// Approve/Deny buttons (button ids `ap:<id>:y|n`, well under 64 bytes), waits for an approver's
// press (or a typed `/approve <id>` / `/deny <id>` where the platform has no buttons), and
// journals every step in the store. The journal is what makes restarts safe:
// - a question still pending at a restart stays answerable (its buttons keep working; the run
//   asked again after the restart waits on the same question) or expires at its time, saying so;
// - an approved call is marked started before it runs and its result is kept, so the run again
//   after a restart gets the result replayed (or, if it died mid-call, a refusal), never a second run.
// The config may change across a restart, and replicas may run different ones for a while: a
// decision counts only if its maker is an approver under the rules in force now, both where it is
// taken and where the run reads it; a question whose approvers changed is withdrawn and asked anew.
// The desk's parts: approval-text.ts (the words and ids), approval-post.ts (a question journaled,
// then shown), approval-waits.ts (waiting, expiry, replicas' decisions); this file decides what a
// call gets (an earlier decision, a replay, a new question) and takes the decisions.
import type { InboundMessage, Platform } from '../adapters/index.ts';
import type { ApprovalAnswer, ApprovalQuestion, ApprovalRules } from '../agent/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ApprovalRecord, ApprovalStore } from '../store/index.ts';
import { createQuestionPoster } from './approval-post.ts';
import {
  APPROVERS_CHANGED,
  approversOf,
  canonical,
  isApprover,
  NO_APPROVERS,
  NOT_SHOWN,
  NOT_WAITED_ON,
  personOf,
  RUN_FINISHED,
  sameSet,
} from './approval-text.ts';
import { createApprovalWaits } from './approval-waits.ts';
import type { OutboundQueue } from './outbound-queue.ts';

export {
  APPROVERS_CHANGED,
  approvalButtonId,
  approversOf,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  NO_APPROVERS,
  NOT_WAITED_ON,
  parseApprovalButton,
  questionText,
  RUN_FINISHED,
} from './approval-text.ts';

/**
 * How a dashboard decision names its maker (`dashboard:admin token`, `dashboard:telegram:4242`). No
 * platform user id has this form, so a press can never pass for one.
 */
export const DASHBOARD_DECIDER = 'dashboard:';

/** What the desk needs from the gateway. */
export interface ApprovalDeskOptions {
  store: ApprovalStore;
  queueOf(platform: Platform): OutboundQueue;
  /** Whether the platform shows buttons and answers presses (else the question says how to type the answer). */
  hasButtons(platform: Platform): boolean;
  maxTextLength(platform: Platform): number;
  log: Logger;
  now?: () => number;
  /**
   * Replicas: how often the questions runs here wait on are read again from the store, where a
   * press or /approve taken by another replica decided them. Absent: decisions are made here only.
   */
  pollMs?: number;
  /**
   * The approval rules in force now for the conversation and requester of `r` (undefined: none).
   * Absent: the approvers written in the record decide (tests of the desk alone).
   */
  rulesFor?(r: ApprovalRecord): ApprovalRules | undefined;
}

/** One run's approval state on this desk. */
interface RunState {
  spent: Set<string>;
  /** The run finished (or its message was refused): calls arriving now are late. */
  closed: boolean;
}

/** What a decision attempt came to, in words for the person who tried. */
export interface DecisionResult {
  ok: boolean;
  text: string;
}

/** The desk of one gateway. */
export interface ApprovalDesk {
  /** Asks about one call of the run answering `msg`; resolves with the decision (never rejects but on abort). */
  ask(
    msg: InboundMessage,
    rules: ApprovalRules,
    q: ApprovalQuestion,
    signal: AbortSignal,
    /** When the signal fires: true keeps the question open (a shutdown: the run asks again after the restart). */
    keepOnAbort?: () => boolean,
  ): Promise<ApprovalAnswer>;
  /** A decision by `by` (a button press or a typed command) on approval `id`. */
  decide(id: string, approve: boolean, by: InboundMessage): Promise<DecisionResult>;
  /**
   * A decision an admin took on the dashboard (`by` starts with DASHBOARD_DECIDER): it counts whoever
   * the rules name, as an admin may do anything the approvers may.
   */
  decideAsAdmin(id: string, approve: boolean, by: string): Promise<DecisionResult>;
  /** Questions waiting in a conversation (for /status). */
  waiting(conversationKey: string): number;
  /**
   * The run answering message `inboundId` ended; calls it makes later (a sub-agent still going) are
   * refused, never given its approvals. `withdraw`: questions it left pending (asked before
   * a restart, and not asked again by the run after it) are withdrawn; false at a shutdown.
   */
  finished(inboundId: string, withdraw: boolean): Promise<void>;
  /** Message `inboundId` will not run (its sender lost access): the questions its run asked before are withdrawn. */
  refused(inboundId: string): Promise<void>;
  /** At start: expires what timed out while boxbot was down, and re-arms the timers of the rest. */
  resume(): Promise<void>;
  /** Clears timers (pending questions stay pending in the journal). */
  stop(): void;
}

/** Creates the desk. */
export function createApprovalDesk(o: ApprovalDeskOptions): ApprovalDesk {
  const now = o.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();
  const waits = createApprovalWaits({
    store: o.store,
    queueOf: o.queueOf,
    maxTextLength: o.maxTextLength,
    log: o.log,
    now,
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
  });
  /**
   * Per run here: the approvals it has used up. An approval is for one call: the same call made
   * again in the same run asks again instead of reusing it. Keyed by the message object the run
   * was handed, not by its id: a call still going after its run finished (a sub-agent, a slow tool)
   * holds that same object and finds its run closed, so it can never start afresh and take an
   * approval its run already spent (or is starting), while the run of the message after a restart
   * gets a new object. Weak: each run's entry goes with its message; `live` holds it only until then.
   */
  const runs = new WeakMap<InboundMessage, RunState>();
  const live = new Map<string, RunState[]>();
  const runOf = (msg: InboundMessage): RunState => {
    let r = runs.get(msg);
    if (!r) {
      runs.set(msg, (r = { spent: new Set(), closed: false }));
      live.set(msg.id, [...(live.get(msg.id) ?? []), r]);
    }
    return r;
  };
  /** The runs of message `inboundId` ended: their late calls are refused. */
  const close = (inboundId: string) => {
    for (const r of live.get(inboundId) ?? []) r.closed = true;
    live.delete(inboundId);
  };
  /** Questions being posted here: journaled, not yet shown. */
  const posting = new Set<string>();
  const post = createQuestionPoster({
    store: o.store,
    queueOf: o.queueOf,
    hasButtons: o.hasButtons,
    maxTextLength: o.maxTextLength,
    log: o.log,
    now,
    waits,
    posting,
  });

  /** Who may decide `r` now (the rules in force, else those written in it). */
  const approversNow = (r: ApprovalRecord): string[] =>
    o.rulesFor ? approversOf(o.rulesFor(r), r.requesterId) : r.approvers;

  /** Marks the call started before it runs, and keeps its result: a run again replays it instead. */
  async function claim(r: ApprovalRecord): Promise<ApprovalAnswer> {
    const at = iso();
    await o.store.update(r.id, { ran: { at } });
    return {
      approved: true,
      ran: async (result) => {
        await o.store
          .update(r.id, { ran: { at, result } })
          .catch((e: unknown) =>
            o.log.error({ err: errorMessage(e), approval: r.id }, 'approved call result not kept'),
          );
      },
    };
  }

  function answerOf(r: ApprovalRecord, spent: Set<string>): Promise<ApprovalAnswer> | ApprovalAnswer {
    if (r.state === 'approved') {
      spent.add(r.id);
      return claim(r);
    }
    if (r.state === 'denied') return { approved: false, reason: `${r.decidedBy ?? 'an approver'} denied this call` };
    return { approved: false, reason: 'nobody approved this call in time' };
  }

  return {
    async ask(msg, rules, q, signal, keepOnAbort) {
      // Who may decide now: an earlier decision counts only if its maker is one of them.
      const approvers = approversOf(rules, personOf(msg));
      if (!approvers.length) return { approved: false, reason: NO_APPROVERS };
      const counts = (r: ApprovalRecord) =>
        r.decidedBy !== undefined &&
        (isApprover(approvers, r.decidedBy, msg.platform) || r.decidedBy.startsWith(DASHBOARD_DECIDER));
      const run = runOf(msg);
      if (run.closed) return { approved: false, reason: RUN_FINISHED };
      const spent = run.spent;
      for (;;) {
        // The same call asked by this message's run before a restart: its decision and its run are
        // reused, unless the rules in force now disown them; then it is asked anew.
        const earlier = (await o.store.forMessage(msg.id))
          .filter(
            (r) =>
              // Another conversation's record under the same id (an id a platform or client reused) is not ours.
              r.conversationKey === msg.conversationKey &&
              !spent.has(r.id) &&
              r.tool === q.tool &&
              canonical(r.input) === canonical(q.input),
          )
          .reverse();
        let pending: ApprovalRecord | undefined;
        let again = false;
        for (const r of earlier) {
          if (r.ran) {
            // It ran (or started) already: never a second time, whoever approved it then.
            if (!r.ran.result)
              return {
                approved: false,
                reason:
                  'this exact call was approved and started before boxbot restarted, and may have partly run; ' +
                  'it is not run a second time',
              };
            spent.add(r.id);
            return { approved: true, replay: r.ran.result };
          }
          if (r.state === 'pending') {
            // Journaled but never shown (a crash before it was sent): nobody could answer it.
            if (!r.promptMessageId && !posting.has(r.id)) {
              await waits.withdraw(r, NOT_SHOWN);
              again = true;
            } else if (sameSet(r.approvers, approvers)) pending = r;
            else {
              // Its buttons name who decided before: withdrawn, saying so, and asked again (unless decided meanwhile).
              await waits.withdraw(r, APPROVERS_CHANGED);
              again = true;
            }
            break;
          }
          if (r.state === 'approved' || r.state === 'denied') {
            if (counts(r)) return answerOf(r, spent);
            o.log.warn(
              { approval: r.id, decidedBy: r.decidedBy },
              'a decision by someone who is no longer an approver is not used; asking again',
            );
            break;
          }
        }
        if (again) continue;
        let decided: Promise<ApprovalRecord>;
        if (pending) {
          decided = waits.wait(pending, signal, keepOnAbort);
          // Asked by a replica that died after this one started (so not re-armed by its resume): it still expires.
          if (!waits.armed(pending.id)) waits.arm(pending);
        } else {
          const posted = await post(msg, rules, q, signal, keepOnAbort);
          if ('refused' in posted) return posted.refused;
          decided = posted.decided;
        }
        const after = await decided;
        // Two equal calls of one turn that run together (read-only ones do) waited on one question:
        // the one that woke second asks its own, as the same call made again would.
        if (after.state === 'approved' && spent.has(after.id)) continue;
        // Decided on a replica whose rules differ from these (a rolling config change): asked anew here.
        if ((after.state === 'approved' || after.state === 'denied') && !counts(after)) {
          o.log.warn(
            { approval: after.id, decidedBy: after.decidedBy },
            'a decision by someone who is not an approver here is not used; asking again',
          );
          continue;
        }
        return answerOf(after, spent);
      }
    },

    async decide(id, approve, by) {
      const r = await o.store.get(id);
      if (!r || r.conversationKey !== by.conversationKey)
        return { ok: false, text: `There is no approval request ${id} here.` };
      if (r.state !== 'pending') return { ok: false, text: `That request was already ${r.state}.` };
      // The approvers under the rules in force now (the record's are those of when it was asked).
      const approvers = approversNow(r);
      if (!isApprover(approvers, personOf(by), by.platform))
        return {
          ok: false,
          text: !approvers.length
            ? 'Nobody may decide this: the approval rules in force here name no approver.'
            : approvers.length === 1 && approvers[0] === r.requesterId
              ? 'Only the person who asked may decide this.'
              : `Only ${approvers.join(', ')} may decide this.`,
        };
      const after = await o.store.decide(id, approve ? 'approved' : 'denied', iso(), personOf(by));
      if (!after || after.state !== (approve ? 'approved' : 'denied'))
        return { ok: false, text: `That request was already ${after?.state ?? 'gone'}.` };
      waits.settled(after);
      return { ok: true, text: approve ? `Approved: ${r.tool} runs once.` : `Denied: ${r.tool} will not run.` };
    },

    async decideAsAdmin(id, approve, by) {
      if (!by.startsWith(DASHBOARD_DECIDER)) return { ok: false, text: `not a dashboard decision: ${by}` };
      const r = await o.store.get(id);
      if (!r) return { ok: false, text: `There is no approval request ${id}.` };
      if (r.state !== 'pending') return { ok: false, text: `That request was already ${r.state}.` };
      const after = await o.store.decide(id, approve ? 'approved' : 'denied', iso(), by);
      if (!after || after.state !== (approve ? 'approved' : 'denied'))
        return { ok: false, text: `That request was already ${after?.state ?? 'gone'}.` };
      waits.settled(after);
      return { ok: true, text: approve ? `Approved: ${r.tool} runs once.` : `Denied: ${r.tool} will not run.` };
    },

    async finished(inboundId, withdrawLeft) {
      close(inboundId);
      if (!withdrawLeft) return;
      for (const id of waits.leftBy(inboundId))
        await waits
          .withdraw({ id }, NOT_WAITED_ON)
          .catch((e: unknown) => o.log.warn({ err: errorMessage(e), approval: id }, 'question not withdrawn'));
    },

    async refused(inboundId) {
      close(inboundId);
      // Read from the journal: at a start this runs before the pending questions are re-armed.
      for (const r of await o.store.forMessage(inboundId))
        if (r.state === 'pending' && !waits.waitedOn(r.id))
          await waits
            .withdraw(r, NOT_WAITED_ON)
            .catch((e: unknown) => o.log.warn({ err: errorMessage(e), approval: r.id }, 'question not withdrawn'));
    },

    waiting: (conversationKey) => waits.waiting(conversationKey),

    async resume() {
      for (const r of await o.store.pending()) waits.arm(r);
    },

    stop: () => waits.stop(),
  };
}
