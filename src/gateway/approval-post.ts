// The approval desk's delivery side: a new question is journaled before it is shown (a press
// can never find no record), armed to expire, then posted with Approve/Deny buttons, or with the
// typed commands where the platform has none. A question that cannot be posted is a refusal.
import { type InboundMessage, type OutboundTarget, type Platform, replyTargetOf } from '../adapters/index.ts';
import type { ApprovalAnswer, ApprovalQuestion, ApprovalRules } from '../agent/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ApprovalRecord, ApprovalStore, JsonValue } from '../store/index.ts';
import { approvalButtonId, approversOf, DEFAULT_APPROVAL_TIMEOUT_MS, personOf, questionText } from './approval-text.ts';
import type { ApprovalWaits } from './approval-waits.ts';
import type { OutboundQueue } from './outbound-queue.ts';

/** What posting needs of the desk. */
export interface ApprovalPostOptions {
  store: ApprovalStore;
  queueOf(platform: Platform): OutboundQueue;
  hasButtons(platform: Platform): boolean;
  maxTextLength(platform: Platform): number;
  log: Logger;
  now: () => number;
  waits: ApprovalWaits;
  /** Questions being posted here: journaled, not yet shown (kept by the desk, which reads it too). */
  posting: Set<string>;
}

/** What posting a question came to: a decision to wait for, or a refusal at once. */
export type Posted = { decided: Promise<ApprovalRecord> } | { refused: ApprovalAnswer };

/** Posts questions for one desk. */
export type PostQuestion = (
  msg: InboundMessage,
  rules: ApprovalRules,
  q: ApprovalQuestion,
  signal: AbortSignal,
  keepOnAbort: (() => boolean) | undefined,
) => Promise<Posted>;

const newId = () => Math.random().toString(36).slice(2, 10).padEnd(8, '0');

/** Creates the poster of one desk. */
export function createQuestionPoster(o: ApprovalPostOptions): PostQuestion {
  const { now, posting, waits } = o;
  const iso = () => new Date(now()).toISOString();
  /**
   * Posts a new question about `q` to the approvers in force now. Resolves with its decision to
   * come, or at once with a refusal when it could not be posted.
   */
  return async function post(
    msg: InboundMessage,
    rules: ApprovalRules,
    q: ApprovalQuestion,
    signal: AbortSignal,
    keepOnAbort: (() => boolean) | undefined,
  ): Promise<Posted> {
    const id = newId();
    const approvers = approversOf(rules, personOf(msg));
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
      requesterId: personOf(msg),
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
    const decided = waits.wait(record, signal, keepOnAbort);
    waits.arm(record);
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
      if (after && after.state !== 'pending') void waits.closeQuestion(after);
    } catch (e) {
      o.log.error({ err: errorMessage(e), approval: id }, 'approval question not posted');
      const after = await o.store.decide(id, 'expired', iso());
      if (after) waits.settled(after);
      decided.catch(() => undefined);
      return { refused: { approved: false, reason: 'the approval question could not be posted' } };
    } finally {
      posting.delete(id);
    }
    return { decided };
  };
}
