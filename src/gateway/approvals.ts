// The approval desk: when a run's tool call needs a person's yes, it posts the exact call with
// Approve/Deny buttons (button ids `ap:<id>:y|n`, well under 64 bytes), waits for an approver's
// press (or a typed `/approve <id>` / `/deny <id>` where the platform has no buttons), and
// journals every step in the store. The journal is what makes restarts safe:
// - a question still pending at a restart stays answerable (its buttons keep working; the run
//   asked again after the restart waits on the same question) or expires at its time, saying so;
// - an approved call is marked started before it runs and its result is kept, so the run again
//   after a restart gets the result replayed (or, if it died mid-call, a refusal), never a second run.
import type { InboundMessage, OutboundTarget } from '../adapters/index.ts';
import type { ApprovalAnswer, ApprovalQuestion, ApprovalRules } from '../agent/index.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ApprovalRecord, ApprovalStore, JsonObject, JsonValue } from '../store/index.ts';
import type { OutboundQueue } from './outbound-queue.ts';

/** How long a question waits by default. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** What the desk needs from the gateway. */
export interface ApprovalDeskOptions {
  store: ApprovalStore;
  queueOf(platform: string): OutboundQueue;
  /** Whether the platform shows buttons and answers presses (else the question says how to type the answer). */
  hasButtons(platform: string): boolean;
  maxTextLength(platform: string): number;
  log: Logger;
  now?: () => number;
  /**
   * Replicas: how often the questions runs here wait on are read again from the store, where a
   * press or /approve taken by another replica decided them. Absent: decisions are made here only.
   */
  pollMs?: number;
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

  const newId = () => Math.random().toString(36).slice(2, 10).padEnd(8, '0');

  /** Shows the outcome under the question and removes its buttons. */
  async function closeQuestion(r: ApprovalRecord): Promise<void> {
    if (!r.promptMessageId) return;
    const platform = r.conversationKey.split(':')[0]!;
    const outcome =
      r.state === 'approved'
        ? `Approved by ${r.decidedBy}.`
        : r.state === 'denied'
          ? `Denied by ${r.decidedBy}.`
          : 'Expired: nobody decided in time.';
    const text = `${r.question}\n\n${outcome}`.slice(0, o.maxTextLength(platform));
    await o
      .queueOf(platform)
      .edit(r.target as unknown as OutboundTarget, r.promptMessageId, text, { format: 'plain', buttons: [] })
      .catch((e: unknown) => o.log.warn({ err: errorMessage(e), approval: r.id }, 'approval question not updated'));
  }

  function settled(r: ApprovalRecord): void {
    clearTimeout(timers.get(r.id));
    timers.delete(r.id);
    for (const w of waiters.get(r.id) ?? []) w.settle(r);
    waiters.delete(r.id);
    void closeQuestion(r);
  }

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

  function arm(r: Pick<ApprovalRecord, 'id' | 'expiresAt'>): void {
    clearTimeout(timers.get(r.id));
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

  function answerOf(r: ApprovalRecord): Promise<ApprovalAnswer> | ApprovalAnswer {
    if (r.state === 'approved') return claim(r);
    if (r.state === 'denied') return { approved: false, reason: `${r.decidedBy ?? 'an approver'} denied this call` };
    return { approved: false, reason: 'nobody approved this call in time' };
  }

  /** Waits for a decision on `r`; a stopped run withdraws the question unless the gateway is shutting down. */
  function wait(r: ApprovalRecord, signal: AbortSignal, keepOnAbort?: () => boolean): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const list = waiters.get(r.id) ?? [];
      const entry = {
        conversationKey: r.conversationKey,
        settle: (after: ApprovalRecord) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answerOf(after));
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

  return {
    async ask(msg, rules, q, signal, keepOnAbort) {
      // The same call asked by this message's run before a restart: its decision and its run are reused.
      const earlier = (await o.store.forMessage(msg.id))
        .filter((r) => r.tool === q.tool && canonical(r.input) === canonical(q.input))
        .reverse();
      for (const r of earlier) {
        if (r.ran) {
          return r.ran.result
            ? { approved: true, replay: r.ran.result }
            : {
                approved: false,
                reason:
                  'this exact call was approved and started before boxbot restarted, and may have partly run; ' +
                  'it is not run a second time',
              };
        }
        if (r.state === 'pending') return wait(r, signal, keepOnAbort);
        if (r.state === 'approved' || r.state === 'denied') return answerOf(r);
      }
      const id = newId();
      const approvers = rules.approvers && rules.approvers !== 'requester' ? rules.approvers : [msg.userId];
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
      const target: OutboundTarget = {
        conversationKey: msg.conversationKey,
        chatId: msg.chatId,
        ...(msg.threadId ? { threadId: msg.threadId } : {}),
        ...(msg.messageId ? { replyToMessageId: msg.messageId } : {}),
      };
      const record: ApprovalRecord = {
        id,
        conversationKey: msg.conversationKey,
        inboundId: msg.id,
        requesterId: msg.userId,
        approvers,
        tool: q.tool,
        input: JSON.parse(JSON.stringify(q.input ?? null)) as JsonValue,
        question,
        target: { ...target } as unknown as JsonObject,
        state: 'pending',
        createdAt: iso(),
        expiresAt: new Date(now() + timeoutMs).toISOString(),
      };
      // Journaled before it is shown: a press can never find no record.
      await o.store.put(record);
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
        return { approved: false, reason: 'the approval question could not be posted' };
      }
      return decided;
    },

    async decide(id, approve, by) {
      const r = await o.store.get(id);
      if (!r || r.conversationKey !== by.conversationKey)
        return { ok: false, text: `There is no approval request ${id} here.` };
      if (r.state !== 'pending') return { ok: false, text: `That request was already ${r.state}.` };
      if (!r.approvers.includes(by.userId))
        return {
          ok: false,
          text:
            r.approvers.length === 1 && r.approvers[0] === r.requesterId
              ? 'Only the person who asked may decide this.'
              : `Only ${r.approvers.join(', ')} may decide this.`,
        };
      const after = await o.store.decide(id, approve ? 'approved' : 'denied', iso(), by.userId);
      if (!after || after.state !== (approve ? 'approved' : 'denied'))
        return { ok: false, text: `That request was already ${after?.state ?? 'gone'}.` };
      settled(after);
      return { ok: true, text: approve ? `Approved: ${r.tool} runs once.` : `Denied: ${r.tool} will not run.` };
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
    },
  };
}
