// The shapes of the stored documents, checked on every read: a file that parses but is not
// one of these is corrupt. Objects pass through unknown fields so newer writers lose nothing.
import { z } from 'zod';
import { parseReplyTarget } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { JsonValue } from './types.ts';

const iso = z.string().min(1);

/**
 * Whether `v` is JSON data (what JSON.parse can give): checked by one walk over it. A recursive
 * `z.lazy` union built its schema again at every node and collected an issue for every branch
 * that did not match, which made reading a document of a few thousand values take milliseconds.
 */
export function isJsonValue(v: unknown): v is JsonValue {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x === null || typeof x === 'string' || typeof x === 'boolean') continue;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return false;
      continue;
    }
    if (typeof x !== 'object') return false;
    const proto = Object.getPrototypeOf(x);
    if (!Array.isArray(x) && proto !== Object.prototype && proto !== null) return false;
    // One by one: spreading a long array into push() would pass the engine's argument limit.
    for (const item of Array.isArray(x) ? x : Object.values(x)) stack.push(item);
  }
  return true;
}
const json = z.custom<JsonValue>(isJsonValue, 'must be JSON data');
const jsonObject = z.record(json);

const contentPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }).passthrough(),
  z.object({ type: z.literal('image'), mediaType: z.string(), data: z.string() }).passthrough(),
  z.object({ type: z.literal('tool-call'), id: z.string(), name: z.string(), input: z.unknown() }).passthrough(),
  z
    .object({
      type: z.literal('tool-result'),
      id: z.string(),
      name: z.string(),
      content: z.string(),
      isError: z.boolean(),
    })
    .passthrough(),
  z.object({ type: z.literal('thinking'), text: z.string() }).passthrough(),
]);

/** The agent's `Message` (src/agent/types.ts). */
export const messageSchema = z
  .object({ role: z.enum(['user', 'assistant']), content: z.array(contentPart) })
  .passthrough();

/** `conversations/<shard>/<name>.json` */
export const conversationSchema = z
  .object({
    key: z.string().min(1),
    platform: z.string(),
    createdAt: iso,
    updatedAt: iso,
    messages: z.array(messageSchema),
    model: z.string().optional(),
  })
  .passthrough();

/** `archive/<shard>/<name>/<id>.json`: a session set aside by `/new`. */
export const archivedConversationSchema = z
  .object({
    key: z.string().min(1),
    id: z.string().min(1),
    createdAt: iso,
    archivedAt: iso,
    messages: z.array(messageSchema),
    requestId: z.string().min(1).optional(),
  })
  .passthrough();

/** An inbound journal record (a line of the delivery log; earlier versions: `inbound/<name>.json`). */
export const inboundSchema = z
  .object({
    id: z.string().min(1),
    conversationKey: z.string().min(1),
    acceptedAt: iso,
    seq: z.number(),
    message: jsonObject,
    previewMessageId: z.string().optional(),
    /** Attachment index → starts of host-side work on it that never ended (DeliveryStore.startMediaWork). */
    mediaWork: z.record(z.number().int().nonnegative()).optional(),
    /** A preview was being sent, its id not yet journaled (absent in earlier versions). */
    previewSending: z.boolean().optional(),
  })
  .passthrough();

/** An outbox entry (a line of the delivery log; earlier versions: `outbox/<name>.json`). */
export const outboxSchema = z
  .object({
    id: z.string().min(1),
    conversationKey: z.string().min(1),
    target: jsonObject,
    chunks: z.array(
      z
        .object({ text: z.string(), receipt: z.object({ messageId: z.string(), sentAt: iso }).optional() })
        .passthrough(),
    ),
    /** Files sent after the chunks; their bytes are in the data dir under `blob` (absent in earlier versions). */
    files: z
      .array(
        z
          .object({
            name: z.string(),
            mimeType: z.string(),
            caption: z.string().optional(),
            size: z.number().int().min(0),
            blob: z.string().min(1),
            receipt: z.object({ messageId: z.string(), sentAt: iso }).optional(),
            /** The upload under way (DeliveryStore.fileHandle); absent in earlier versions. */
            handle: z.string().min(1).optional(),
          })
          .passthrough(),
      )
      .optional(),
    state: z.enum(['pending', 'failed']),
    error: z.string().optional(),
    createdAt: iso,
    updatedAt: iso,
    seq: z.number(),
  })
  .passthrough();

/** One line of `delivery.log` (the format is on disk: data written by earlier versions must load). */
export const deliveryRecordSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('seen'), id: z.string().min(1), at: z.number() }),
  z.object({ op: z.literal('accept'), at: z.number(), record: inboundSchema }),
  z.object({ op: z.literal('done'), id: z.string().min(1) }),
  z.object({ op: z.literal('put'), entry: outboxSchema }),
  z.object({
    op: z.literal('receipt'),
    id: z.string().min(1),
    index: z.number().int().min(0),
    messageId: z.string(),
    at: z.string(),
  }),
  z.object({
    op: z.literal('file'),
    id: z.string().min(1),
    index: z.number().int().min(0),
    messageId: z.string(),
    at: z.string(),
  }),
  // An upload under way (a platform handle or a marker); absent from logs of earlier versions.
  z.object({
    op: z.literal('handle'),
    id: z.string().min(1),
    index: z.number().int().min(0),
    handle: z.string().min(1),
    at: z.string(),
  }),
  z.object({ op: z.literal('sent'), id: z.string().min(1), answered: z.string().min(1).optional() }),
  z.object({
    op: z.literal('failed'),
    id: z.string().min(1),
    error: z.string(),
    at: z.string(),
    answered: z.string().min(1).optional(),
  }),
  z.object({ op: z.literal('preview'), id: z.string().min(1), messageId: z.string().min(1) }),
  z.object({
    op: z.literal('media-work'),
    id: z.string().min(1),
    index: z.number().int().nonnegative(),
    started: z.boolean(),
  }),
  // A preview about to be sent, its id not known yet; absent from logs of earlier versions.
  z.object({ op: z.literal('previewing'), id: z.string().min(1) }),
]);
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;
/** An inbound record as the log keeps it (`seq` orders the journal). */
export type StoredInbound = z.infer<typeof inboundSchema>;
/** An outbox entry as the log keeps it. */
export type StoredOutbox = z.infer<typeof outboxSchema>;

/** `kv.json` */
export const kvSchema = z.object({ values: jsonObject }).passthrough();

/** One kv value kept in a document of its own (a `<kind>:<id>` key). */
export const keyedValueSchema = z.object({ key: z.string(), value: json }).passthrough();

/** The creating conversation's policy a job carries. */
export const jobPolicySchema = z
  .object({
    access: z.enum(['full', 'read-only', 'chat-only']),
    tools: z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }),
    network: z.object({ allow: z.array(z.string()) }),
    model: z.string().optional(),
    models: z.array(z.string()).optional(),
    approvals: z
      .object({
        levels: z.array(z.enum(['None', 'ReadOnly', 'Write', 'Execute'])).optional(),
        tools: z.array(z.string()).optional(),
        approvers: z.union([z.array(z.string()), z.literal('requester')]).optional(),
        timeoutMs: z.number().optional(),
        afterUntrusted: z.boolean().optional(),
        allowEscalation: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** One job (design, "Scheduler"). */
export const jobSchema = z
  .object({
    id: z.string().min(1),
    name: z.string(),
    // A job has a cron or a webhook trigger (the scheduler checks which; the store keeps either).
    cron: z.string().optional(),
    trigger: z
      .object({ webhook: z.string().min(1), secretEnv: z.string().min(1) })
      .passthrough()
      .optional(),
    timezone: z.string().optional(),
    prompt: z.string(),
    model: z.string().optional(),
    target: z.string(),
    access: z.enum(['full', 'read-only', 'chat-only']),
    timeoutMs: z.number(),
    budgetUsd: z.number().optional(),
    enabled: z.boolean(),
    overlap: z.enum(['skip', 'queue']),
    createdAt: iso.optional(),
    lastRunAt: iso.optional(),
    // Optional: jobs stored before creators' policies were kept still load (and run as admin jobs).
    policy: jobPolicySchema.optional(),
    // Optional: older jobs have no creator and are charged to their target conversation only.
    createdBy: z.string().optional(),
  })
  .passthrough();

/** `jobs.json` */
export const jobsSchema = z.object({ jobs: z.record(jobSchema) }).passthrough();

const usage = z
  .object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
  })
  .passthrough();

/** One run log. */
export const jobLogSchema = z
  .object({
    jobId: z.string().min(1),
    startedAt: iso,
    finishedAt: iso,
    outcome: z.string(),
    delivered: z.string().nullable(),
    error: z.string().optional(),
    usage,
    costUsd: z.number(),
  })
  .passthrough();

/** `job-logs/<name>.json` */
export const jobLogsSchema = z.object({ jobId: z.string().min(1), entries: z.array(jobLogSchema) }).passthrough();

const totals = z
  .object({
    calls: z.number(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number(),
    cacheWriteTokens: z.number(),
    costUsd: z.number(),
    unknownCostCalls: z.number(),
  })
  .passthrough();

/** `usage/<kind>/<shard>/<name>.json`: one subject's totals, per UTC day and overall. */
export const usageSchema = z
  .object({
    subject: z.string().min(1),
    total: totals,
    days: z.record(totals),
    /** A conversation's days split by model (`provider/model`). */
    models: z.record(z.record(totals)).optional(),
  })
  .passthrough();

/** A stored reply target, checked by the one parse of reply targets (whose message names the field). */
const replyTarget = jsonObject.superRefine((t, ctx) => {
  try {
    parseReplyTarget(t);
  } catch (e) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: errorMessage(e) });
  }
});

/** One approval record (ApprovalRecord), in approvals.json or a PostgreSQL row. */
export const approvalSchema = z
  .object({
    id: z.string().min(1),
    conversationKey: z.string().min(1),
    inboundId: z.string().min(1),
    requesterId: z.string(),
    approvers: z.array(z.string()),
    tool: z.string(),
    input: json,
    question: z.string(),
    target: replyTarget,
    promptMessageId: z.string().optional(),
    state: z.enum(['pending', 'approved', 'denied', 'expired']),
    createdAt: iso,
    expiresAt: iso,
    decidedAt: iso.optional(),
    decidedBy: z.string().optional(),
    ran: z
      .object({ at: iso, result: z.object({ content: z.string(), isError: z.boolean() }).optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** `approvals.json`: the approvals journal. */
export const approvalsSchema = z.object({ approvals: z.record(approvalSchema) }).passthrough();

const memoryScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('conversation'), conversationKey: z.string().min(1) }).strict(),
  z.object({ kind: z.literal('user'), userKey: z.string().min(1) }).strict(),
]);

/** One scope's long-term memories. */
export const memoriesSchema = z
  .object({
    scope: memoryScopeSchema,
    memories: z.array(
      z
        .object({
          id: z.string().min(1),
          scope: memoryScopeSchema,
          text: z.string(),
          createdAt: z.string(),
          createdBy: z.string().optional(),
          conversationKey: z.string().optional(),
        })
        .passthrough(),
    ),
  })
  .passthrough();
