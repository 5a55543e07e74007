// The approvals journal in one document, `approvals.json`: approvals are few (one per guarded
// tool call), and decided ones are dropped after APPROVAL_RETENTION_MS, so the document stays small.
// Every transition runs under the document's lock: the first decision wins, once.
import { errorMessage } from '../core/errors.ts';
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';
import { StoreError } from './errors.ts';
import { approvalSchema, approvalsSchema } from './schemas.ts';
import type { ApprovalRecord, ApprovalStore } from './types.ts';

const SPEC: DocSpec = { path: 'approvals.json', schema: approvalsSchema };
/** Decided approvals are kept this long (for the journal and a run again's replay). */
export const APPROVAL_RETENTION_MS = 7 * 24 * 3600_000;
type Doc = { approvals: Record<string, ApprovalRecord> };

const byAge = (a: ApprovalRecord, b: ApprovalRecord) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;

/**
 * An approval as a backend that keeps each one as JSON text (PostgreSQL) reads it back or is
 * given it: checked against the shape the file backend checks, so a stored record with a bad
 * target is a StoreError (`corrupt` when read, `invalid` when written) naming the approval and
 * the field, never a crash where the target is used.
 */
export function checkedApproval(data: unknown, code: 'corrupt' | 'invalid'): ApprovalRecord {
  const id = (data as { id?: unknown } | null)?.id;
  const parsed = approvalSchema.safeParse(data);
  if (parsed.success) return data as ApprovalRecord;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new StoreError(code, `approval ${JSON.stringify(id)}: ${where}${issue?.message ?? 'invalid'}`);
}

/** An approval stored as JSON text, checked as checkedApproval does. */
export function approvalFromJson(text: string): ApprovalRecord {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new StoreError('corrupt', `an approval record is not JSON: ${errorMessage(e)}`);
  }
  return checkedApproval(data, 'corrupt');
}

/**
 * `decide` and `update` over a backend's `change` (one approval under its lock; `fn` returns
 * undefined to leave it as it is): the rule that the first decision wins, for every backend.
 */
export function approvalTransitions(
  change: (id: string, fn: (a: ApprovalRecord) => ApprovalRecord | undefined) => Promise<ApprovalRecord | undefined>,
): Pick<ApprovalStore, 'decide' | 'update'> {
  return {
    async decide(id, decision, at, by) {
      return change(id, (a) =>
        a.state === 'pending' ? { ...a, state: decision, decidedAt: at, ...(by ? { decidedBy: by } : {}) } : undefined,
      );
    },
    async update(id, patch) {
      return change(id, (a) => ({ ...a, ...patch }));
    },
  };
}

/** Approvals kept as one document. */
export function createApprovals(docs: Documents, now: () => number): ApprovalStore {
  const all = async (): Promise<ApprovalRecord[]> =>
    Object.values((await docs.read<Doc>(SPEC))?.approvals ?? {}).sort(byAge);
  const prune = (approvals: Record<string, ApprovalRecord>): Record<string, ApprovalRecord> => {
    const cutoff = now() - APPROVAL_RETENTION_MS;
    return Object.fromEntries(
      Object.entries(approvals).filter(([, a]) => a.state === 'pending' || Date.parse(a.createdAt) >= cutoff),
    );
  };
  /** Changes one approval under the document's lock; `fn` returns undefined to leave it as it is. */
  async function change(id: string, fn: (a: ApprovalRecord) => ApprovalRecord | undefined) {
    let out: ApprovalRecord | undefined;
    await docs.update<Doc>(SPEC, (cur) => {
      const a = cur && Object.hasOwn(cur.approvals, id) ? cur.approvals[id] : undefined;
      out = a;
      const next = a && fn(a);
      if (!cur || !next) return UNCHANGED;
      out = next;
      return { ...cur, approvals: { ...cur.approvals, [id]: next } };
    });
    return out;
  }
  return {
    async put(record) {
      await docs.update<Doc>(SPEC, (cur) => ({
        ...cur,
        approvals: { ...prune(cur?.approvals ?? {}), [record.id]: record },
      }));
    },
    async get(id) {
      const doc = await docs.read<Doc>(SPEC);
      return doc && Object.hasOwn(doc.approvals, id) ? doc.approvals[id] : undefined;
    },
    ...approvalTransitions(change),
    pending: async () => (await all()).filter((a) => a.state === 'pending'),
    forMessage: async (inboundId) => (await all()).filter((a) => a.inboundId === inboundId),
    recent: async (limit) =>
      (await all())
        .filter((a) => a.state !== 'pending')
        .reverse()
        .slice(0, limit),
  };
}
