// The store's public contract: what the gateway, scheduler and CLI may remember and how.
// Plain data and async methods only, so a server database can replace the file backend.
import type { InboundMessage, OutboundTarget, ReplyTarget } from '../adapters/index.ts';
import type { Logger } from '../core/log.ts';
import type { Message, Usage } from '../core/message.ts';
import type { AdminSessionStore } from './admin-sessions.ts';
import type { ChannelLogStore } from './channel-log-types.ts';
import type { HookDeliveryStore } from './hook-deliveries.ts';
import type { WebDisplayStore } from './web-display.ts';
import type { WebSessionStore } from './web-sessions.ts';

/** A JSON value as it is stored. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object as it is stored. */
export type JsonObject = { [key: string]: JsonValue };

/** One conversation: metadata and the agent's message history. Times are ISO 8601. */
export interface Conversation {
  key: string;
  /** The key's first segment (`telegram` for `telegram:-100123:45`). */
  platform: string;
  createdAt: string;
  updatedAt: string;
  messages: Message[];
  /** The `provider/model` chosen in chat with `/model` (absent: the policy's). */
  model?: string;
}

/** An earlier session of a conversation, set aside by `/new` (never deleted by it). */
export interface ArchivedConversation {
  key: string;
  /** Unique within the key; sorts in archiving order. */
  id: string;
  createdAt: string;
  archivedAt: string;
  messages: Message[];
  /** The id of the `/new` message that archived it (absent: archived without one, or by an earlier version). */
  requestId?: string;
}

/** Sessions per conversation key (`telegram:-100123:45`, `slack:T1:C9:1712.33`, `web:abc`). */
export interface ConversationStore {
  /** The conversation, or undefined if it was never written. */
  get(key: string): Promise<Conversation | undefined>;
  /** Replaces the whole history (e.g. after compaction), creating the conversation if needed. */
  setMessages(key: string, messages: Message[]): Promise<Conversation>;
  /** Clears the history of one conversation; it stays listed with no messages. */
  reset(key: string): Promise<void>;
  /** Every stored conversation key, sorted. */
  keys(): Promise<string[]>;
  /** Records the model chosen in chat (undefined: back to the policy's), creating the conversation if needed. */
  setModel(key: string, model: string | undefined): Promise<void>;
  /**
   * Starts a fresh session: the history is copied to the archive first, then cleared (a crash in
   * between leaves it in both places, never in neither). Undefined when there was nothing to archive.
   * With `requestId` (the `/new` message's id) it archives once for that id: run again (the command
   * replayed after a crash) it finishes what the first call began and returns that archive, never
   * copying the session twice nor archiving the fresh one. The newest archive is checked.
   */
  archive(key: string, requestId?: string): Promise<ArchivedConversation | undefined>;
  /** The archived sessions of a conversation, oldest first. */
  archived(key: string): Promise<ArchivedConversation[]>;
  /** Deletes every conversation's archives made before `before` (ms since the epoch); resolves with the count. */
  pruneArchives(before: number): Promise<number>;
}

/**
 * A file sent with a reply, after its text. Its bytes are copied into the data dir when the entry
 * is written (the workspace file may change or vanish before it is sent).
 */
export interface OutboxFile {
  name: string;
  /** Sniffed from the bytes, never taken from the name. */
  mimeType: string;
  caption?: string;
  /** Given to putOutbox; entries read back (pendingOutbox) carry none: see DeliveryStore.outboxFile. */
  bytes?: Uint8Array;
}

/** A reply being delivered: chunks with receipts, so a restart resumes without resending. */
export interface OutboxEntry {
  id: string;
  conversationKey: string;
  target: OutboundTarget;
  /** The streamed message the first chunk replaces, if any. */
  streamMessageId?: string;
  chunks: string[];
  /** Platform message id per delivered chunk (null = not yet). */
  receipts: (string | null)[];
  /** Files sent after the last chunk, in order (absent: none, as in entries of earlier versions). */
  files?: OutboxFile[];
  /** Platform message id per delivered file (null = not yet), like `receipts`; present when `files` is. */
  fileReceipts?: (string | null)[];
  /**
   * Per file, what `fileHandle` journaled of an upload under way (null = nothing); absent when nothing was journaled.
   * A platform handle (a Slack file id) lets a resumed delivery finish that upload instead of sending the file again.
   */
  fileHandles?: (string | null)[];
  /** What that streamed message shows now (not persisted: after a restart the edit is simply made). */
  previewShown?: string;
  createdAt: string;
}

/** A reply the platform refused for good, kept for inspection (StoreOptions `failedOutbox`). */
export interface FailedReply {
  id: string;
  conversationKey: string;
  /** The reply's text, all chunks joined. */
  text: string;
  /** File names it would have sent after the text. */
  files: string[];
  /** What the platform said. */
  error: string;
  createdAt: string;
  /** When the send gave up (ISO 8601). */
  failedAt: string;
}

/**
 * An accepted message not yet answered (`raw` is never stored: null), and the preview its interrupted answer left (if
 * any).
 */
export interface PendingMessage {
  message: InboundMessage;
  previewMessageId?: string;
  /**
   * A preview was being sent (`notePreviewSending`) and no id was journaled after it: the process stopped in between,
   * so a preview may be in the chat that nothing can find again.
   */
  previewSending?: boolean;
}

/**
 * The gateway's durable delivery state: seen event ids, accepted-but-unanswered messages and
 * replies in flight, so a restart neither answers twice nor loses an answer.
 */
export interface DeliveryStore {
  /**
   * Marks the event id seen and journals the message (without `raw`) in one durable write; false when the id was seen
   * within the dedupe window.
   */
  accept(message: InboundMessage): Promise<boolean>;
  /** Marks an accepted message answered. */
  finish(messageId: string): Promise<void>;
  /**
   * Accepted messages not yet answered, in the order accepted, except that a conversation's
   * messages follow their platform order (`InboundMessage.order`) where they carry one; with
   * `conversationKey`, that conversation's alone (a keyed read: replicas take work one
   * conversation at a time, and the journal of every conversation may be long).
   */
  pending(conversationKey?: string): Promise<PendingMessage[]>;
  /** Journals the preview message of a pending message's answer (so a run again edits it); ignored once answered. */
  notePreview(messageId: string, previewMessageId: string): Promise<void>;
  /**
   * Journals that host-side work on attachment `index` of a pending message (typing, saving, reading its bytes)
   * starts; resolves with how many earlier starts of that work never ended: each is a death of the process inside
   * it (poison input). 0, and nothing journaled, once the message is answered.
   */
  startMediaWork(messageId: string, index: number): Promise<number>;
  /** Journals that the work `startMediaWork` began ended (its count is cleared); ignored once answered. */
  endMediaWork(messageId: string, index: number): Promise<void>;
  /** Journals that a pending message's preview is about to be sent (before its id exists); ignored once answered. */
  notePreviewSending(messageId: string): Promise<void>;
  /**
   * Writes a reply before its first chunk is sent; if `id` exists, the stored one (and its receipts) is kept.
   * With `fence` (replicas), written only while `fence.holder` holds lease `fence.lease` unexpired, checked in the
   * write's own transaction: a replica taking the lease over waits for the write, then finds the entry. Else it
   * throws StoreError `fenced`. A backend without leases (files: one process) writes it regardless.
   */
  putOutbox(entry: OutboxEntry, fence?: LeaseFence): Promise<void>;
  /**
   * Records that chunk `index` was sent as platform message `platformMessageId` (StoreError `not-found` if no such
   * chunk).
   */
  receipt(entryId: string, index: number, platformMessageId: string): Promise<void>;
  /** Records that file `index` was sent as platform message `platformMessageId` (StoreError `not-found` if none). */
  fileReceipt(entryId: string, index: number, platformMessageId: string): Promise<void>;
  /**
   * Journals that file `index` is being uploaded, with the platform's handle of that upload (or a marker where the
   * platform has none), before the platform can show it; a later call replaces it (StoreError `not-found` if no such
   * file).
   */
  fileHandle(entryId: string, index: number, handle: string): Promise<void>;
  /** The stored copy of file `index` of a pending entry; undefined when it is gone (or the entry is done). */
  outboxFile(entryId: string, index: number): Promise<Uint8Array | undefined>;
  /**
   * The reply was delivered (its stored file copies are removed); with `answeredMessageId`, that message is answered
   * too (one write).
   */
  finishOutbox(entryId: string, answeredMessageId?: string): Promise<void>;
  /**
   * The platform refused the reply for good: it is kept for inspection (without its file copies, for a bounded time:
   * StoreOptions `failedOutbox`) but never resumed, and `answeredMessageId` (if given) is answered, so neither is
   * tried again at the next start.
   */
  failOutbox(entryId: string, error: string, answeredMessageId?: string): Promise<void>;
  /** Replies still to deliver, oldest first; with `conversationKey`, that conversation's alone (a keyed read). */
  pendingOutbox(conversationKey?: string): Promise<OutboxEntry[]>;
  /** Replies the platform refused for good and still within their retention, newest failure first. */
  failedOutbox(): Promise<FailedReply[]>;
  /** Whether the bot has answered in this conversation before (thread follow-ups). */
  answered(conversationKey: string): Promise<boolean>;
}

/** Small named state such as polling offsets (`telegram.offset`). */
export interface KvStore {
  /** The stored value, or undefined (also when the file was corrupt: it is moved aside and reported). */
  get(key: string): Promise<JsonValue | undefined>;
  /** Stores a value. */
  set(key: string, value: JsonValue): Promise<void>;
}

/** A scheduled job (design, "Scheduler"). Unknown extra fields are kept as written. */
/** The policy of the conversation that created a job (its tools, network and models), kept with the job. */
export interface JobPolicy {
  access: 'full' | 'read-only' | 'chat-only';
  tools: { allow?: string[]; deny?: string[] };
  network: { allow: string[] };
  model?: string;
  models?: string[];
  /** The creating conversation's approval rules (a job has nobody to ask: guarded calls are refused). */
  approvals?: {
    levels?: ('None' | 'ReadOnly' | 'Write' | 'Execute')[];
    tools?: string[];
    approvers?: string[] | 'requester';
    timeoutMs?: number;
    afterUntrusted?: boolean;
    allowEscalation?: boolean;
  };
}

/** What starts a job's runs besides `cron`: a signed `POST /hooks/<webhook>` (design, "Scheduler"). */
export interface JobTrigger {
  /** The hook's name, unique among jobs: the path `/hooks/<webhook>`. */
  webhook: string;
  /** The environment variable holding the HMAC-SHA256 secret (its name only: the value is never stored). */
  secretEnv: string;
}

export interface JobRecord {
  id: string;
  name: string;
  /** When the job runs; absent on a job that a `trigger` starts instead. */
  cron?: string;
  /** A webhook that starts the job (instead of a cron). */
  trigger?: JobTrigger;
  timezone?: string;
  prompt: string;
  model?: string;
  /** The conversation key the result is posted to. */
  target: string;
  access: 'full' | 'read-only' | 'chat-only';
  timeoutMs: number;
  budgetUsd?: number;
  enabled: boolean;
  overlap: 'skip' | 'queue';
  createdAt?: string;
  /** When the last run started (ISO 8601), for the catch-up policy. */
  lastRunAt?: string;
  /** The creating conversation's policy (jobs from chat); absent for jobs an admin made from the CLI or API. */
  policy?: JobPolicy;
  /**
   * Who created or last edited the job (`<platform>:<userId>`): its runs are charged to that user's
   * daily budget too. Absent on jobs stored before it was kept, and on admin jobs not made for anyone.
   */
  createdBy?: string;
  /** What untrusted content the run that created it had read: its prompt may carry it (approvals.afterUntrusted). */
  untrusted?: string;
}

/** One run of a job. */
export interface JobLogEntry {
  jobId: string;
  startedAt: string;
  finishedAt: string;
  /** How the run ended (`final`, `error`, `timeout`, `budget-exceeded`, ...). */
  outcome: string;
  /** The platform message id of the posted result, or null if nothing was delivered. */
  delivered: string | null;
  error?: string;
  usage: Usage;
  costUsd: number;
  /** A digest's size and token budget (`chunks`: parts summarised before the digest). */
  digest?: { messages: number; chunks: number; tokenBudget: number; historyTokens: number };
}

/** Jobs and their run logs (the latest `jobLogLimit` per job are kept). */
export interface JobStore {
  /** Every job, sorted by id. */
  list(): Promise<JobRecord[]>;
  /** One job, or undefined. */
  get(id: string): Promise<JobRecord | undefined>;
  /** Creates or replaces a job. */
  put(job: JobRecord): Promise<void>;
  /** Changes some fields of an existing job (throws StoreError `not-found`). */
  update(id: string, patch: Partial<Omit<JobRecord, 'id'>>): Promise<JobRecord>;
  /** Removes a job and its logs; true if it existed. */
  remove(id: string): Promise<boolean>;
  /** Adds a run log, dropping the oldest beyond the limit. */
  appendLog(entry: JobLogEntry): Promise<void>;
  /** The job's run logs, oldest first; `limit` keeps only the newest `limit`. */
  logs(jobId: string, limit?: number): Promise<JobLogEntry[]>;
  /**
   * Claims one occurrence (`slot`) of a job for this process: true for exactly one caller across
   * every process on the store. Backends that serve one process only (files) leave it out.
   */
  claimTick?(jobId: string, slot: string): Promise<boolean>;
}

/** A write that stands only while `holder` holds lease `lease` (DeliveryStore.putOutbox). */
export interface LeaseFence {
  lease: string;
  holder: string;
}

/**
 * Named leases with fencing, for work only one replica may do at a time (long polling, a
 * gateway websocket, the scheduler). Times are the database's, so replicas' clocks may differ.
 */
export interface LeaseStore {
  /**
   * Takes lease `name` for `holder`, or renews it, for `ttlMs`: its fence (a number that grows at
   * every change of holder) while held, undefined while another holder's lease is unexpired.
   */
  acquire(name: string, holder: string, ttlMs: number): Promise<number | undefined>;
  /** Gives the lease up if `holder` has it (a clean stop hands over at once). */
  release(name: string, holder: string): Promise<void>;
}

/**
 * One send pause per bot shared by every replica on a database: a platform's 429 seen by one
 * replica holds the others' sends too, since the platform counts the bot's calls, not a replica's.
 * Times are the database's, so replicas' clocks may differ.
 */
export interface RateGateStore {
  /** Holds `bot`'s sends for `ms` from now; a pause already set to end later stands. */
  pause(bot: string, ms: number): Promise<void>;
  /** How long `bot`'s sends must still wait, in ms (0 when not paused). */
  remaining(bot: string): Promise<number>;
}

/**
 * Who sees a long-term memory: everyone in one conversation, or one user (`<platform>:<userId>`)
 * wherever they talk to the bot.
 */
export type MemoryScope = { kind: 'conversation'; conversationKey: string } | { kind: 'user'; userKey: string };

/** One remembered note. Times are ISO 8601. */
export interface MemoryRecord {
  /** Unique within its scope (the memory tools make `m-<hex>` ids). */
  id: string;
  scope: MemoryScope;
  text: string;
  createdAt: string;
  /** The user (`<platform>:<userId>`) whose conversation saved it. */
  createdBy?: string;
  /** The conversation it was saved in. */
  conversationKey?: string;
  /** What untrusted content the run that saved it had read (its words may carry it: approvals.afterUntrusted). */
  untrusted?: string;
}

/** Long-term memories, one list per scope (a write touches one scope only). */
export interface MemoryStore {
  /** The scope's memories, oldest first. */
  list(scope: MemoryScope): Promise<MemoryRecord[]>;
  /** Adds a memory to `record.scope` (StoreError `invalid` if the id is taken there). */
  add(record: MemoryRecord): Promise<void>;
  /** Removes one memory; false if the scope has no such id. */
  remove(scope: MemoryScope, id: string): Promise<boolean>;
  /** Removes every memory of the scope; returns how many there were. */
  clear(scope: MemoryScope): Promise<number>;
}

/** Tokens and money summed over model calls. `costUsd` counts the calls whose price is known. */
export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  /** Calls whose price is unknown (a model missing from the price table): not counted as zero. */
  unknownCostCalls: number;
}

/** One model call to charge: to its conversation, its user (`<platform>:<userId>`) and its space. */
export interface UsageCharge {
  conversationKey: string;
  /**
   * The channel or chat the conversation is a thread of (`slack:T:C` for `slack:T:C:<ts>`): its
   * threads' spending together, which with the channel's own is what a channel-level budget counts.
   * Absent for a conversation that is not a thread.
   */
  spaceKey?: string;
  /** The platform-qualified user id (`telegram:42`); absent for runs nobody asked for (jobs). */
  userKey?: string;
  /** `provider/model`. */
  model: string;
  usage: Usage;
  /** Undefined when the price is unknown. */
  costUsd?: number;
  /** ISO 8601; its UTC date is the day charged. */
  at: string;
}

/** Whose spending: a conversation's, a user's, or the threads' of a space (UsageCharge.spaceKey). */
export type UsageSubject = { conversationKey: string } | { userKey: string } | { spaceKey: string };

/** A subject's spending on one UTC day and since the first record. */
export interface UsageReport {
  day: UsageTotals;
  total: UsageTotals;
}

/** Durable usage per conversation and per user, per UTC day (budgets and `/usage`). */
export interface UsageStore {
  /**
   * Adds one model call to its conversation's and its user's totals (today's and all-time).
   * A failed add may be retried, but only with the same charge object (not a copy): the file
   * store remembers by that object which totals the failed try already wrote, so they are not
   * counted twice.
   * `o.queued`, if it runs, runs once every total of the charge is in line to be written: a store
   * write started after it is never durable before the charge (the file store's journal keeps
   * order). It may not run (PostgreSQL: each write is its own transaction): then only the add's
   * settling says so.
   */
  add(charge: UsageCharge, o?: { queued?: () => void }): Promise<void>;
  /** The subject's totals on `day` (`YYYY-MM-DD`, UTC) and overall; zeros if nothing was charged. */
  get(subject: UsageSubject, day: string): Promise<UsageReport>;
  /**
   * Every UTC day from `from` to `to` (`YYYY-MM-DD`, inclusive, oldest first, at most
   * USAGE_DAYS_KEPT of them), each broken down by conversation, by user and by model.
   */
  daily(from: string, to: string): Promise<UsageDaily>;
}

/** One UTC day's usage three ways; only subjects charged that day appear, in the order of their keys. */
export interface UsageDay {
  day: string;
  /** By conversation key. */
  conversations: Record<string, UsageTotals>;
  /** By user key: the charges made for a user (a job's run has none, so it is only in the others). */
  users: Record<string, UsageTotals>;
  /** By `provider/model`, over every conversation. */
  models: Record<string, UsageTotals>;
}

/** What UsageStore.daily returns. */
export interface UsageDaily {
  days: UsageDay[];
  /** More conversations or users were charged in the span than one answer reads (USAGE_DAILY_MAX_SUBJECTS each). */
  truncated: boolean;
}

/** Where an approval stands. `expired`: its time ran out or boxbot restarted while it waited. */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired';

/** One tool call waiting for (or given) a person's decision; the journal behind the buttons. */
export interface ApprovalRecord {
  /** Short (it travels in button ids of at most 64 bytes). */
  id: string;
  conversationKey: string;
  /** The inbound message whose run made the call. */
  inboundId: string;
  /** The platform user id of who asked for the run. */
  requesterId: string;
  /** Platform user ids who may decide. */
  approvers: string[];
  tool: string;
  input: JsonValue;
  /** The exact text of the question as posted. */
  question: string;
  /** Where the question was posted (for editing it once decided); checked when read back. */
  target: ReplyTarget;
  /** The platform message holding the question, once posted. */
  promptMessageId?: string;
  state: ApprovalState;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  /** Platform user id of who decided (absent for an expiry). */
  decidedBy?: string;
  /** Set when an approved call was started; `result` once it finished (a run again replays it). */
  ran?: { at: string; result?: { content: string; isError: boolean } };
}

/** The approvals journal: a decision is made once, and an approved call runs at most once. */
export interface ApprovalStore {
  /** Writes a new approval (or replaces one with the same id). */
  put(record: ApprovalRecord): Promise<void>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * Decides a pending approval; returns the record as it is after the call (unchanged when it
   * was already decided: the first decision wins). Undefined if there is no such approval.
   */
  decide(
    id: string,
    decision: Exclude<ApprovalState, 'pending'>,
    at: string,
    by?: string,
  ): Promise<ApprovalRecord | undefined>;
  /** Changes fields of an existing approval other than its decision (prompt message id, run record). */
  update(
    id: string,
    patch: Pick<Partial<ApprovalRecord>, 'promptMessageId' | 'ran'>,
  ): Promise<ApprovalRecord | undefined>;
  /** Approvals still pending, oldest first. */
  pending(): Promise<ApprovalRecord[]>;
  /** Approvals asked for by the run of one inbound message, oldest first. */
  forMessage(inboundId: string): Promise<ApprovalRecord[]>;
  /** Approvals no longer pending (decided or expired), newest first, at most `limit` (the dashboard's history). */
  recent(limit: number): Promise<ApprovalRecord[]>;
}

/** Everything boxbot remembers. */
export interface Store {
  readonly conversations: ConversationStore;
  readonly delivery: DeliveryStore;
  readonly kv: KvStore;
  readonly jobs: JobStore;
  readonly usage: UsageStore;
  readonly approvals: ApprovalStore;
  readonly memories: MemoryStore;
  /** Webhook deliveries already accepted (replays start nothing). */
  readonly hookDeliveries: HookDeliveryStore;
  /** What recorded channels said (policy `history.record`), for digests. */
  readonly channelLog: ChannelLogStore;
  /** The web chat's login links and signed-in browsers. */
  readonly webSessions: WebSessionStore;
  /** The dashboard's sessions and failed sign-ins (shared by replicas, kept across restarts). */
  readonly adminSessions: AdminSessionStore;
  /** What each web chat session showed (its page drawn again after a reload, on any replica). */
  readonly webDisplay: WebDisplayStore;
  /** Leases between replicas; absent for a backend that serves one process (files). */
  readonly leases?: LeaseStore;
  /** The bots' shared send pauses; absent for a backend that serves one process (files). */
  readonly rateGates?: RateGateStore;
  /** Waits for writes in flight; later calls fail with StoreError `closed`. */
  close(): Promise<void>;
}

/** What was found corrupt and where it was moved. */
export interface CorruptReport {
  file: string;
  movedTo: string;
  reason: string;
}

/** Options shared by both backends. */
export interface StoreOptions {
  /** Receives an error line for every corrupt file moved aside. */
  logger?: Logger;
  /** Called for every corrupt file moved aside (in addition to the log line). */
  onCorrupt?: (report: CorruptReport) => void;
  /** Dedupe retention: ids older than `maxAgeMs` or beyond the newest `maxCount` are forgotten. */
  dedupe?: { maxAgeMs?: number; maxCount?: number };
  /**
   * Replies the platform refused for good, kept for inspection: the `maxCount` refused last, none
   * refused longer than `maxAgeMs` ago (checked when another fails, and at start for the file backend).
   */
  failedOutbox?: { maxAgeMs?: number; maxCount?: number };
  /** Run logs kept per job (default 50). */
  jobLogLimit?: number;
  /**
   * The file backend's delivery log is only read, never rewritten or swept (a second process beside a
   * running gateway, e.g. `boxbot outbox failed`); its changes are refused. PostgreSQL ignores it.
   */
  readOnly?: boolean;
  /** The clock (tests). */
  now?: () => number;
  /**
   * Fault injection (tests): runs after a new version is durably written, before it replaces the old
   * (for a journaled document, conversations and usage: before the append that journals it).
   */
  beforeCommit?: (path: string) => void | Promise<void>;
}
