// The approval desk's waiting side: the runs waiting on each question, the timer that expires
// it, the poll that sees a decision another replica took, and the close that shows the outcome
// under the question (its buttons removed). A question is settled once, whoever settles it.
import { type Platform, platformOf } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ApprovalRecord, ApprovalStore } from '../store/index.ts';
import type { OutboundQueue } from './outbound-queue.ts';

/** What the waits need of the desk. */
export interface ApprovalWaitsOptions {
  store: ApprovalStore;
  queueOf(platform: Platform): OutboundQueue;
  maxTextLength(platform: Platform): number;
  log: Logger;
  now: () => number;
  /** Replicas: how often the questions waited on are read again from the store (absent: never). */
  pollMs?: number;
}

/** The questions runs wait on, and their timers. */
export interface ApprovalWaits {
  /** Waits for a decision on `r`; a stopped run withdraws the question unless `keepOnAbort` says the gateway stops. */
  wait(r: ApprovalRecord, signal: AbortSignal, keepOnAbort?: () => boolean): Promise<ApprovalRecord>;
  /** Expires `r` at its time (unless decided before), as a question of message `r.inboundId`. */
  arm(r: Pick<ApprovalRecord, 'id' | 'expiresAt' | 'inboundId'>): void;
  /** Wakes the runs waiting on `r`, stops its timer and shows its outcome (`why`, else its state's words). */
  settled(r: ApprovalRecord, why?: string): void;
  /** Expires a pending question, saying why under it; a decision made meanwhile stands (and is returned). */
  withdraw(r: Pick<ApprovalRecord, 'id'>, why: string): Promise<ApprovalRecord | undefined>;
  /** Shows the outcome under the question and removes its buttons. */
  closeQuestion(r: ApprovalRecord, why?: string): Promise<void>;
  /** Whether a run here waits on question `id`. */
  waitedOn(id: string): boolean;
  /** Whether question `id` has its expiry timer here. */
  armed(id: string): boolean;
  /** The armed questions of message `inboundId` no run here waits on. */
  leftBy(inboundId: string): string[];
  /** Questions waited on in a conversation. */
  waiting(conversationKey: string): number;
  /** Clears the timers and the poll (pending questions stay pending in the journal). */
  stop(): void;
}

/** Creates the waits of one desk. */
export function createApprovalWaits(o: ApprovalWaitsOptions): ApprovalWaits {
  const { now } = o;
  const iso = () => new Date(now()).toISOString();
  /** Runs waiting on a question, by approval id. */
  const waiters = new Map<string, { conversationKey: string; settle: (r: ApprovalRecord) => void }[]>();
  const timers = new Map<string, NodeJS.Timeout>();
  /** The inbound message of each armed question (a finished run withdraws what it left pending). */
  const armed = new Map<string, string>();

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

  return {
    wait,
    arm,
    settled,
    withdraw,
    closeQuestion,
    waitedOn: (id) => waiters.has(id),
    armed: (id) => timers.has(id),
    leftBy: (inboundId) => [...armed].filter(([id, of]) => of === inboundId && !waiters.has(id)).map(([id]) => id),
    waiting(conversationKey) {
      let n = 0;
      for (const list of waiters.values()) if (list.some((w) => w.conversationKey === conversationKey)) n++;
      return n;
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
