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
import {
  type InboundMessage,
  type OutboundTarget,
  type Platform,
  platformOf,
  replyTargetOf,
} from '../adapters/index.ts';
import type { ApprovalAnswer, ApprovalQuestion, ApprovalRules } from '../agent/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ApprovalRecord, ApprovalStore, JsonValue } from '../store/index.ts';
import type { OutboundQueue } from './outbound-queue.ts';

/** How long a question waits by default. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

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

/** The button id of a decision. */
export const approvalButtonId = (id: string, approve: boolean): string => `ap:${id}:${approve ? 'y' : 'n'}`;

/** The approval id and decision a button id carries, if it is one of ours. */
export function parseApprovalButton(buttonId: string): { id: string; approve: boolean } | undefined {
  const m = /^ap:([a-z0-9]{4,16}):([yn])$/.exec(buttonId);
  return m ? { id: m[1]!, approve: m[2] === 'y' } : undefined;
}

/**
 * Why a guarded call is refused when nobody may decide it: rules combined from two policies
 * (stricterApprovals) whose approver lists share nobody. Today only scheduled jobs combine rules,
 * and they never ask (nobody is there to answer), so no chat reaches this; it is the desk's own
 * guard, failing closed at once rather than posting a question nobody can answer, for whatever
 * combines rules next.
 */
export const NO_APPROVERS =
  'nobody may approve it: the approval rules that apply here name no approver that every policy involved accepts';

/** Who may decide under `rules` now: the listed users (possibly none), or the requester. */
export function approversOf(rules: ApprovalRules | undefined, requesterId: string): string[] {
  return rules?.approvers && rules.approvers !== 'requester' ? [...rules.approvers] : [requesterId];
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** What the old question says when it is withdrawn because its approvers changed. */
export const APPROVERS_CHANGED = 'Withdrawn: who may decide this changed; asked again below.';
/** Why a call made after its run finished is refused (its run's approvals are spent or withdrawn). */
export const RUN_FINISHED = 'the run that made this call has finished; approvals are not reused by late calls';
/** Why a question journaled but never shown (a crash before it was sent) is asked anew. */
const NOT_SHOWN = 'Withdrawn: never shown; asked again.';
/** What a question left behind by a finished run says (the run after a restart did not ask it again). */
export const NOT_WAITED_ON = 'Withdrawn: the run that asked no longer waits for an answer.';

/** Stable JSON (sorted keys) to tell the same call from another. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

const REASON_WORDS: Record<ApprovalQuestion['reasons'][number], string> = {
  policy: 'this conversation’s policy asks for approval of this tool',
  untrusted: 'this run has read content it cannot trust',
  escalation: 'this chat is read-only; this would be a single exception',
};

/** The folder as people should see it: the last two segments (the server's layout stays private). */
const shortPath = (p: string) => `…/${p.split(/[\\/]/).filter(Boolean).slice(-2).join('/')}`;
const folderList = (folders: ApprovalQuestion['folders']) =>
  folders.length
    ? folders.map((f) => `${shortPath(f.path)} (${f.readOnly ? 'read-only' : 'read-write'})`).join(', ')
    : 'none';

/** The question as posted: the exact call, what it would get, why it asks, and who decides. */
export function questionText(
  q: ApprovalQuestion,
  o: { id: string; approvers: string; timeoutMs: number; typed: boolean; maxLength: number },
): string {
  const head = [`Approval needed (${o.id}): run ${q.tool} (${q.level})?`];
  const tail = [
    `Folders: ${folderList(q.folders)}`,
    `Hosts: ${q.hosts.length ? q.hosts.join(', ') : 'none'}`,
    `Why: ${q.reasons.map((r) => REASON_WORDS[r]).join('; ')}.`,
    ...(q.untrusted.length ? [`Read before: ${q.untrusted.join('; ')}.`] : []),
    `Who decides: ${o.approvers}. No answer in ${Math.round(o.timeoutMs / 1000)} s counts as no.`,
    ...(o.typed ? [`Reply /approve ${o.id} or /deny ${o.id}.`] : []),
  ];
  const fixed = [...head, ...tail].join('\n').length + 2;
  let args = JSON.stringify(q.input ?? {}, null, 1).replace(/\n\s*/g, ' ');
  const room = o.maxLength - fixed;
  if (args.length > room) args = `${args.slice(0, Math.max(0, room - 20))}… (truncated)`;
  return [...head, args, ...tail].join('\n').slice(0, o.maxLength);
}

/** Creates the desk. */
export function createApprovalDesk(o: ApprovalDeskOptions): ApprovalDesk {
  const now = o.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();
  /** Runs waiting on a question, by approval id. */
  const waiters = new Map<string, { conversationKey: string; settle: (r: ApprovalRecord) => void }[]>();
  const timers = new Map<string, NodeJS.Timeout>();
  /** The inbound message of each armed question (a finished run withdraws what it left pending). */
  const armed = new Map<string, string>();
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

  const newId = () => Math.random().toString(36).slice(2, 10).padEnd(8, '0');

  /** Shows the outcome under the question and removes its buttons. */
  async function closeQuestion(r: ApprovalRecord, why?: string): Promise<void> {
    if (!r.promptMessageId) return;
    const platform = platformOf(r.conversationKey);
    const outcome =
      why ??
      (r.state === 'approved'
        ? `Approved by ${r.decidedBy}.`
        : r.state === 'denied'
          ? `Denied by ${r.decidedBy}.`
          : 'Expired: nobody decided in time.');
    const text = `${r.question}\n\n${outcome}`.slice(0, o.maxTextLength(platform));
    await o
      .queueOf(platform)
      .edit(r.target, r.promptMessageId, text, { format: 'plain', buttons: [] })
      .catch((e: unknown) => o.log.warn({ err: errorMessage(e), approval: r.id }, 'approval question not updated'));
  }

  function settled(r: ApprovalRecord, why?: string): void {
    clearTimeout(timers.get(r.id));
    timers.delete(r.id);
    armed.delete(r.id);
    for (const w of waiters.get(r.id) ?? []) w.settle(r);
    waiters.delete(r.id);
    void closeQuestion(r, why);
  }

  /** Expires a pending question, saying why under it; a decision made meanwhile stands (and is returned). */
  async function withdraw(r: Pick<ApprovalRecord, 'id'>, why: string): Promise<ApprovalRecord | undefined> {
    const after = await o.store.decide(r.id, 'expired', iso());
    if (after?.state === 'expired') settled(after, why);
    else if (after && after.state !== 'pending' && waiters.has(after.id)) settled(after);
    return after;
  }

  /** Who may decide `r` now (the rules in force, else those written in it). */
  const approversNow = (r: ApprovalRecord): string[] =>
    o.rulesFor ? approversOf(o.rulesFor(r), r.requesterId) : r.approvers;

  let poller: NodeJS.Timeout | undefined;
  /** Replicas: settles the waiting questions another replica decided. */
  function poll(): void {
    if (!o.pollMs || poller) return;
    poller = setInterval(() => {
      if (!waiters.size) {
        clearInterval(poller);
        poller = undefined;
        return;
      }
      for (const id of waiters.keys())
        void o.store
          .get(id)
          .then((r) => r && r.state !== 'pending' && waiters.has(id) && settled(r))
          .catch((e: unknown) => o.log.warn({ err: errorMessage(e), approval: id }, 'approval not read'));
    }, o.pollMs).unref();
  }

  function arm(r: Pick<ApprovalRecord, 'id' | 'expiresAt' | 'inboundId'>): void {
    clearTimeout(timers.get(r.id));
    armed.set(r.id, r.inboundId);
    const t = setTimeout(
      () =>
        void o.store
          .decide(r.id, 'expired', iso())
          // Decided meanwhile elsewhere (another replica): that decision stands, and wakes the run.
          .then((after) => after && after.state !== 'pending' && settled(after))
          .catch((e: unknown) => o.log.error({ err: errorMessage(e), approval: r.id }, 'approval not expired')),
      Math.max(0, Date.parse(r.expiresAt) - now()),
    );
    timers.set(r.id, t);
  }

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

  /** Waits for a decision on `r`; a stopped run withdraws the question unless the gateway is shutting down. */
  function wait(r: ApprovalRecord, signal: AbortSignal, keepOnAbort?: () => boolean): Promise<ApprovalRecord> {
    return new Promise<ApprovalRecord>((resolve, reject) => {
      const list = waiters.get(r.id) ?? [];
      const entry = {
        conversationKey: r.conversationKey,
        settle: (after: ApprovalRecord) => {
          signal.removeEventListener('abort', onAbort);
          resolve(after);
        },
      };
      const onAbort = () => {
        const l = waiters.get(r.id)?.filter((w) => w !== entry) ?? [];
        if (l.length) waiters.set(r.id, l);
        else waiters.delete(r.id);
        reject(signal.reason as Error);
        // A stopped or timed-out run withdraws its question: an approval given later would run nothing.
        if (!l.length && !keepOnAbort?.())
          void o.store
            .decide(r.id, 'expired', iso())
            .then((after) => after && after.state === 'expired' && settled(after))
            .catch((e: unknown) => o.log.warn({ err: errorMessage(e), approval: r.id }, 'question not withdrawn'));
      };
      list.push(entry);
      waiters.set(r.id, list);
      poll();
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Posts a new question about `q` to the approvers in force now. Resolves with its decision to
   * come, or at once with a refusal when it could not be posted.
   */
  async function post(
    msg: InboundMessage,
    rules: ApprovalRules,
    q: ApprovalQuestion,
    signal: AbortSignal,
    keepOnAbort: (() => boolean) | undefined,
  ): Promise<{ decided: Promise<ApprovalRecord> } | { refused: ApprovalAnswer }> {
    const id = newId();
    const approvers = approversOf(rules, msg.userId);
    const timeoutMs = rules.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const typed = !o.hasButtons(msg.platform);
    const question = questionText(q, {
      id,
      approvers:
        rules.approvers && rules.approvers !== 'requester'
          ? `users ${approvers.join(', ')}`
          : `${msg.userName} (who asked)`,
      timeoutMs,
      typed,
      maxLength: o.maxTextLength(msg.platform),
    });
    const target: OutboundTarget = replyTargetOf(msg);
    const record: ApprovalRecord = {
      id,
      conversationKey: msg.conversationKey,
      inboundId: msg.id,
      requesterId: msg.userId,
      approvers,
      tool: q.tool,
      input: JSON.parse(JSON.stringify(q.input ?? null)) as JsonValue,
      question,
      target: { ...target },
      state: 'pending',
      createdAt: iso(),
      expiresAt: new Date(now() + timeoutMs).toISOString(),
    };
    // Journaled before it is shown: a press can never find no record.
    posting.add(id);
    try {
      await o.store.put(record);
    } catch (e) {
      posting.delete(id);
      throw e;
    }
    const decided = wait(record, signal, keepOnAbort);
    arm(record);
    try {
      const sent = await o.queueOf(msg.platform).send(target, question, {
        format: 'plain',
        ...(typed
          ? {}
          : {
              buttons: [
                { id: approvalButtonId(id, true), label: 'Approve', style: 'primary' as const },
                { id: approvalButtonId(id, false), label: 'Deny', style: 'danger' as const },
              ],
            }),
      });
      const after = await o.store.update(id, { promptMessageId: sent.messageId });
      // Decided while the question was being sent: show the outcome now.
      if (after && after.state !== 'pending') void closeQuestion(after);
    } catch (e) {
      o.log.error({ err: errorMessage(e), approval: id }, 'approval question not posted');
      const after = await o.store.decide(id, 'expired', iso());
      if (after) settled(after);
      decided.catch(() => undefined);
      return { refused: { approved: false, reason: 'the approval question could not be posted' } };
    } finally {
      posting.delete(id);
    }
    return { decided };
  }

  return {
    async ask(msg, rules, q, signal, keepOnAbort) {
      // Who may decide now: an earlier decision counts only if its maker is one of them.
      const approvers = approversOf(rules, msg.userId);
      if (!approvers.length) return { approved: false, reason: NO_APPROVERS };
      const counts = (r: ApprovalRecord) => r.decidedBy !== undefined && approvers.includes(r.decidedBy);
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
              await withdraw(r, NOT_SHOWN);
              again = true;
            } else if (sameSet(r.approvers, approvers)) pending = r;
            else {
              // Its buttons name who decided before: withdrawn, saying so, and asked again (unless decided meanwhile).
              await withdraw(r, APPROVERS_CHANGED);
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
          decided = wait(pending, signal, keepOnAbort);
          // Asked by a replica that died after this one started (so not re-armed by its resume): it still expires.
          if (!timers.has(pending.id)) arm(pending);
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
      if (!approvers.includes(by.userId))
        return {
          ok: false,
          text: !approvers.length
            ? 'Nobody may decide this: the approval rules in force here name no approver.'
            : approvers.length === 1 && approvers[0] === r.requesterId
              ? 'Only the person who asked may decide this.'
              : `Only ${approvers.join(', ')} may decide this.`,
        };
      const after = await o.store.decide(id, approve ? 'approved' : 'denied', iso(), by.userId);
      if (!after || after.state !== (approve ? 'approved' : 'denied'))
        return { ok: false, text: `That request was already ${after?.state ?? 'gone'}.` };
      settled(after);
      return { ok: true, text: approve ? `Approved: ${r.tool} runs once.` : `Denied: ${r.tool} will not run.` };
    },

    async finished(inboundId, withdrawLeft) {
      close(inboundId);
      if (!withdrawLeft) return;
      const left = [...armed].filter(([id, of]) => of === inboundId && !waiters.has(id)).map(([id]) => id);
      for (const id of left)
        await withdraw({ id }, NOT_WAITED_ON).catch((e: unknown) =>
          o.log.warn({ err: errorMessage(e), approval: id }, 'question not withdrawn'),
        );
    },

    async refused(inboundId) {
      close(inboundId);
      // Read from the journal: at a start this runs before the pending questions are re-armed.
      for (const r of await o.store.forMessage(inboundId))
        if (r.state === 'pending' && !waiters.has(r.id))
          await withdraw(r, NOT_WAITED_ON).catch((e: unknown) =>
            o.log.warn({ err: errorMessage(e), approval: r.id }, 'question not withdrawn'),
          );
    },

    waiting(conversationKey) {
      let n = 0;
      for (const list of waiters.values()) if (list.some((w) => w.conversationKey === conversationKey)) n++;
      return n;
    },

    async resume() {
      for (const r of await o.store.pending()) arm(r);
    },

    stop() {
      clearInterval(poller);
      poller = undefined;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      armed.clear();
    },
  };
}
