// The store's public contract: what the gateway, scheduler and CLI may remember and how.
// Plain data and async methods only, so a server database can replace the file backend.
import type { Message, Usage } from '../agent/index.ts';
import type { Logger } from '../log.ts';

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
}

/** Sessions per conversation key (`telegram:-100123:45`, `slack:T1:C9:1712.33`, `web:abc`). */
export interface ConversationStore {
  /** The conversation, or undefined if it was never written. */
  get(key: string): Promise<Conversation | undefined>;
  /** Appends messages to the history, creating the conversation if needed. */
  append(key: string, messages: Message[]): Promise<Conversation>;
  /** Replaces the whole history (e.g. after compaction), creating the conversation if needed. */
  setMessages(key: string, messages: Message[]): Promise<Conversation>;
  /** Clears the history of one conversation; it stays listed with no messages. */
  reset(key: string): Promise<void>;
  /** Forgets a conversation entirely; true if it existed. */
  delete(key: string): Promise<boolean>;
  /** Every stored conversation key, sorted. */
  keys(): Promise<string[]>;
}

/** Platform event ids already handled, kept for a bounded time and count. */
export interface DedupeStore {
  /** Records `id`; true if it was new, false if it was seen within the retention window. */
  markSeen(id: string): Promise<boolean>;
}

/** An inbound message accepted by the gateway and not yet answered. */
export interface InboundRecord {
  id: string;
  conversationKey: string;
  acceptedAt: string;
  /** The normalized message as the gateway wants it back after a restart. */
  message: JsonObject;
  /**
   * The platform message showing the answer's progress (streamed preview), once one was sent:
   * a run again after a crash edits it instead of leaving it stale and posting another.
   */
  previewMessageId?: string;
}

/** Accepted-but-unanswered messages, so a restart re-processes them. */
export interface InboundJournal {
  /** Persists the message before it is acknowledged; keeps an existing record with the same id. */
  accept(record: Omit<InboundRecord, 'acceptedAt'>): Promise<InboundRecord>;
  /**
   * Marks the id seen (as `DedupeStore.markSeen`) and journals the message, in one durable
   * write; undefined, and nothing written, when the id was seen within the dedupe window.
   */
  acceptOnce(record: Omit<InboundRecord, 'acceptedAt'>): Promise<InboundRecord | undefined>;
  /** Marks the message answered (its reply was delivered); true if it was pending. */
  done(id: string): Promise<boolean>;
  /** Every accepted, unanswered message, in the order accepted. */
  pending(): Promise<InboundRecord[]>;
  /** Records the preview message of a pending message's answer; false if it is not pending. */
  notePreview(id: string, messageId: string): Promise<boolean>;
}

/** One chunk of an outgoing reply and, once sent, the platform's receipt. */
export interface OutboxChunk {
  text: string;
  receipt?: { messageId: string; sentAt: string };
}

/** An outgoing final reply, written before the first chunk is sent. */
export interface OutboxEntry {
  id: string;
  conversationKey: string;
  /** Where and how to send (chat id, thread, reply-to, message to edit...), adapter-defined. */
  target: JsonObject;
  chunks: OutboxChunk[];
  state: 'pending' | 'failed';
  error?: string;
  createdAt: string;
  updatedAt: string;
}

/** Replies in flight: resumed after a restart without re-sending chunks that have receipts. */
export interface Outbox {
  /** Writes a new entry; if `id` exists, returns the stored one unchanged (receipts kept). */
  put(entry: { id: string; conversationKey: string; target: JsonObject; chunks: string[] }): Promise<OutboxEntry>;
  /** The entry, or undefined once done or never written. */
  get(id: string): Promise<OutboxEntry | undefined>;
  /** Records that chunk `index` was sent as platform message `messageId`. */
  recordReceipt(id: string, index: number, messageId: string): Promise<OutboxEntry>;
  /**
   * Removes a fully delivered entry; true if it existed. With `answered`, that inbound message
   * is marked done in the same write (so a crash can neither answer it again nor leave the
   * reply half-finished).
   */
  markDone(id: string, opts?: { answered?: string }): Promise<boolean>;
  /** Keeps the entry for inspection but stops resuming it. */
  markFailed(id: string, error: string): Promise<OutboxEntry>;
  /** Entries still to deliver, oldest first. */
  pending(): Promise<OutboxEntry[]>;
}

/** Small named state such as polling offsets (`telegram.offset`). */
export interface KvStore {
  /** The stored value, or undefined (also when the file was corrupt: it is moved aside and reported). */
  get(key: string): Promise<JsonValue | undefined>;
  /** Stores a value. */
  set(key: string, value: JsonValue): Promise<void>;
  /** Removes a value; true if it existed. */
  delete(key: string): Promise<boolean>;
}

/** A scheduled job (design, "Scheduler"). Unknown extra fields are kept as written. */
/** The policy of the conversation that created a job (its tools, network and models), kept with the job. */
export interface JobPolicy {
  access: 'full' | 'read-only' | 'chat-only';
  tools: { allow?: string[]; deny?: string[] };
  network: { allow: string[] };
  model?: string;
  models?: string[];
}

export interface JobRecord {
  id: string;
  name: string;
  cron: string;
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
}

/** Everything boxbot remembers. */
export interface Store {
  readonly conversations: ConversationStore;
  readonly dedupe: DedupeStore;
  readonly inbound: InboundJournal;
  readonly outbox: Outbox;
  readonly kv: KvStore;
  readonly jobs: JobStore;
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
  /** Run logs kept per job (default 50). */
  jobLogLimit?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Fault injection (tests): runs after a new version is durably written, before it replaces the old. */
  beforeCommit?: (path: string) => void | Promise<void>;
}
