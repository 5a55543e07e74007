// The rules every backend shares, kept once above them: keys are checked (one message per kind of
// key, whichever backend is behind), options get their defaults, the platform payload (`raw`) of
// an accepted message is dropped on the way in and read back as null, and results come out in the
// contract's order. A backend (files, memory, PostgreSQL) is built on resolved options and wrapped
// here, so it assumes valid input and never repeats a rule; the contract suite keeps them equal.
import { decodeUserKey, type InboundMessage } from '../adapters/index.ts';
import { type Logger, silentLogger } from '../core/log.ts';
import type { AdminSessionStore } from './admin-sessions.ts';
import type { ChannelLogEntry, ChannelLogStore } from './channel-log-types.ts';
import { StoreError } from './errors.ts';
import type { HookDeliveryStore } from './hook-deliveries.ts';
import { checkKey } from './names.ts';
import { inPlatformOrder } from './pending-order.ts';
import { jobSchema } from './schemas.ts';
import type {
  ApprovalStore,
  ConversationStore,
  DeliveryStore,
  JobRecord,
  JobStore,
  KvStore,
  LeaseStore,
  MemoryScope,
  MemoryStore,
  PendingMessage,
  RateGateStore,
  Store,
  StoreOptions,
  UsageStore,
  UsageSubject,
} from './types.ts';
import { usageSpan } from './usage.ts';
import { MAX_SHOWN_CHARS, MAX_SHOWN_EVENTS, type ShownEvent, type WebDisplayStore } from './web-display.ts';
import type { WebSessionStore } from './web-sessions.ts';

/** Default dedupe retention: ids are remembered for 3 days, at most 20,000 of them. */
export const DEFAULT_DEDUPE = { maxAgeMs: 3 * 24 * 3600_000, maxCount: 20_000 } as const;
/** Default retention of failed replies: a week, at most 1,000 of them (they are never delivered again). */
export const DEFAULT_FAILED_OUTBOX = { maxAgeMs: 7 * 24 * 3600_000, maxCount: 1000 } as const;
/** Default number of run logs kept per job. */
export const DEFAULT_JOB_LOG_LIMIT = 50;

/** Throws StoreError `invalid` unless `job` is a well-formed job record (naming the first bad field). */
export function checkJob(job: unknown): asserts job is JobRecord {
  const parsed = jobSchema.safeParse(job);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoreError(
      'invalid',
      `invalid job: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
    );
  }
}

/** A retention: entries older than `maxAgeMs` or beyond the newest `maxCount` are dropped. */
export interface Retention {
  maxAgeMs: number;
  maxCount: number;
}

/** StoreOptions with every default filled in: what a backend is built on. */
export interface ResolvedStoreOptions extends StoreOptions {
  logger: Logger;
  now: () => number;
  dedupe: Retention;
  failedOutbox: Retention;
  jobLogLimit: number;
}

/** `opts` with the defaults filled in (the one place they are merged). */
export function withDefaults(opts: StoreOptions = {}): ResolvedStoreOptions {
  return {
    ...opts,
    logger: opts.logger ?? silentLogger,
    now: opts.now ?? Date.now,
    dedupe: {
      maxAgeMs: opts.dedupe?.maxAgeMs ?? DEFAULT_DEDUPE.maxAgeMs,
      maxCount: opts.dedupe?.maxCount ?? DEFAULT_DEDUPE.maxCount,
    },
    failedOutbox: { ...DEFAULT_FAILED_OUTBOX, ...opts.failedOutbox },
    jobLogLimit: opts.jobLogLimit ?? DEFAULT_JOB_LOG_LIMIT,
  };
}

/** An inbound message as a backend keeps it: without its platform payload. */
export type StoredMessage = Omit<InboundMessage, 'raw'>;

/** A pending message as a backend reads it back (the wrapper puts `raw: null` back and orders them). */
export type BackendPending = Omit<PendingMessage, 'message'> & { message: StoredMessage };

/** The delivery store a backend implements: messages go in and come back without `raw`, in save order. */
export interface BackendDelivery extends Omit<DeliveryStore, 'accept' | 'pending'> {
  /** As DeliveryStore.accept, for a message already stripped of `raw`. */
  accept(message: StoredMessage): Promise<boolean>;
  /** As DeliveryStore.pending, in the order saved (the wrapper applies the platform order). */
  pending(conversationKey?: string): Promise<BackendPending[]>;
}

/** What a backend implements: the Store over checked input (see `validated`). */
export interface BackendStore extends Omit<Store, 'delivery'> {
  readonly delivery: BackendDelivery;
}

/**
 * The Store callers use, over a backend: every key checked before the backend sees it (StoreError
 * `bad-key`), `raw` handled, lists ordered as the contract says.
 * @example const store = validated(buildFileBackend(files, withDefaults(opts)));
 */
export function validated(backend: BackendStore): Store {
  return {
    conversations: validatedConversations(backend.conversations),
    delivery: validatedDelivery(backend.delivery),
    kv: validatedKv(backend.kv),
    jobs: validatedJobs(backend.jobs),
    usage: validatedUsage(backend.usage),
    approvals: validatedApprovals(backend.approvals),
    memories: validatedMemories(backend.memories),
    hookDeliveries: validatedHookDeliveries(backend.hookDeliveries),
    channelLog: validatedChannelLog(backend.channelLog),
    webSessions: validatedWebSessions(backend.webSessions),
    adminSessions: validatedAdminSessions(backend.adminSessions),
    webDisplay: validatedWebDisplay(backend.webDisplay),
    ...(backend.leases ? { leases: validatedLeases(backend.leases) } : {}),
    ...(backend.rateGates ? { rateGates: validatedRateGates(backend.rateGates) } : {}),
    close: () => backend.close(),
  };
}

// Each method checks synchronously and calls the backend in the same turn, so calls reach the
// backend in the order they were made; `async` turns a failed check into a rejection.

const CONVERSATION = 'conversation key';
const MESSAGE = 'message id';
const OUTBOX = 'outbox id';
const JOB = 'job id';

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function validatedConversations(c: ConversationStore): ConversationStore {
  return {
    async get(key) {
      checkKey(key, CONVERSATION);
      return c.get(key);
    },
    async setMessages(key, messages) {
      checkKey(key, CONVERSATION);
      return c.setMessages(key, messages);
    },
    async reset(key) {
      checkKey(key, CONVERSATION);
      return c.reset(key);
    },
    keys: async () => (await c.keys()).sort(byString),
    async setModel(key, model) {
      checkKey(key, CONVERSATION);
      return c.setModel(key, model);
    },
    async archive(key, requestId) {
      checkKey(key, CONVERSATION);
      return c.archive(key, requestId);
    },
    async archived(key) {
      checkKey(key, CONVERSATION);
      return c.archived(key);
    },
    pruneArchives: (before) => c.pruneArchives(before),
  };
}

/** The delivery store over a backend's (exported for tests that build a file delivery log by hand). */
export function validatedDelivery(d: BackendDelivery): DeliveryStore {
  const checkOptional = (key: string | undefined, what: string): void => {
    if (key !== undefined) checkKey(key, what);
  };
  return {
    async accept(message) {
      checkKey(message.id, MESSAGE);
      checkKey(message.conversationKey, CONVERSATION);
      // The raw platform payload is never persisted.
      const { raw: _raw, ...stored } = message;
      return d.accept(stored);
    },
    async finish(messageId) {
      checkKey(messageId, MESSAGE);
      return d.finish(messageId);
    },
    async pending(conversationKey) {
      checkOptional(conversationKey, CONVERSATION);
      return inPlatformOrder(
        (await d.pending(conversationKey)).map((p) => ({ ...p, message: { ...p.message, raw: null } })),
      );
    },
    async notePreview(messageId, previewMessageId) {
      checkKey(messageId, MESSAGE);
      return d.notePreview(messageId, previewMessageId);
    },
    async startMediaWork(messageId, index) {
      checkKey(messageId, MESSAGE);
      return d.startMediaWork(messageId, index);
    },
    async endMediaWork(messageId, index) {
      checkKey(messageId, MESSAGE);
      return d.endMediaWork(messageId, index);
    },
    async notePreviewSending(messageId) {
      checkKey(messageId, MESSAGE);
      return d.notePreviewSending(messageId);
    },
    async putOutbox(entry, fence) {
      checkKey(entry.id, OUTBOX);
      checkKey(entry.conversationKey, CONVERSATION);
      for (const [i, f] of (entry.files ?? []).entries())
        if (!(f.bytes instanceof Uint8Array))
          throw new StoreError('invalid', `outbox entry ${JSON.stringify(entry.id)}: file ${i} has no bytes`);
      return d.putOutbox(entry, fence);
    },
    async receipt(entryId, index, platformMessageId) {
      checkKey(entryId, OUTBOX);
      return d.receipt(entryId, index, platformMessageId);
    },
    async fileReceipt(entryId, index, platformMessageId) {
      checkKey(entryId, OUTBOX);
      return d.fileReceipt(entryId, index, platformMessageId);
    },
    async fileHandle(entryId, index, handle) {
      checkKey(entryId, OUTBOX);
      if (!handle) throw new StoreError('invalid', `outbox entry ${JSON.stringify(entryId)}: an empty upload handle`);
      return d.fileHandle(entryId, index, handle);
    },
    async outboxFile(entryId, index) {
      checkKey(entryId, OUTBOX);
      return d.outboxFile(entryId, index);
    },
    async finishOutbox(entryId, answeredMessageId) {
      checkKey(entryId, OUTBOX);
      checkOptional(answeredMessageId, MESSAGE);
      return d.finishOutbox(entryId, answeredMessageId);
    },
    async failOutbox(entryId, error, answeredMessageId) {
      checkKey(entryId, OUTBOX);
      checkOptional(answeredMessageId, MESSAGE);
      return d.failOutbox(entryId, error, answeredMessageId);
    },
    async pendingOutbox(conversationKey) {
      checkOptional(conversationKey, CONVERSATION);
      return d.pendingOutbox(conversationKey);
    },
    failedOutbox: () => d.failedOutbox(),
    async answered(conversationKey) {
      checkKey(conversationKey, CONVERSATION);
      return d.answered(conversationKey);
    },
  };
}

function validatedKv(kv: KvStore): KvStore {
  return {
    async get(key) {
      checkKey(key, 'kv key');
      return kv.get(key);
    },
    async set(key, value) {
      checkKey(key, 'kv key');
      return kv.set(key, value);
    },
  };
}

function validatedJobs(jobs: JobStore): JobStore {
  return {
    list: async () => (await jobs.list()).sort((a, b) => byString(a.id, b.id)),
    async get(id) {
      checkKey(id, JOB);
      return jobs.get(id);
    },
    async put(job) {
      checkJob(job);
      checkKey(job.id, JOB);
      return jobs.put(job);
    },
    async update(id, patch) {
      checkKey(id, JOB);
      return jobs.update(id, patch);
    },
    async remove(id) {
      checkKey(id, JOB);
      return jobs.remove(id);
    },
    async appendLog(entry) {
      checkKey(entry.jobId, JOB);
      return jobs.appendLog(entry);
    },
    async logs(jobId, limit) {
      checkKey(jobId, JOB);
      // No entries for a limit of nothing (0, negative or not a number); a fraction counts whole entries.
      if (limit !== undefined && !(limit >= 1)) return [];
      return jobs.logs(jobId, limit === undefined ? undefined : Math.floor(limit));
    },
    ...(jobs.claimTick
      ? {
          async claimTick(jobId: string, slot: string) {
            checkKey(jobId, JOB);
            checkKey(slot, 'slot');
            return jobs.claimTick!(jobId, slot);
          },
        }
      : {}),
  };
}

function checkSubject(s: UsageSubject): void {
  checkKey('conversationKey' in s ? s.conversationKey : 'userKey' in s ? s.userKey : s.spaceKey, 'usage subject');
}

function validatedUsage(usage: UsageStore): UsageStore {
  return {
    async add(c, o) {
      checkSubject({ conversationKey: c.conversationKey });
      if (c.userKey) checkSubject({ userKey: c.userKey });
      if (c.spaceKey) checkSubject({ spaceKey: c.spaceKey });
      // The same object goes on: a retried add is told apart by it (UsageStore.add).
      return usage.add(c, o);
    },
    async get(subject, day) {
      checkSubject(subject);
      return usage.get(subject, day);
    },
    async daily(from, to) {
      usageSpan(from, to); // a bad span is refused the same way by every backend
      return usage.daily(from, to);
    },
  };
}

function validatedApprovals(a: ApprovalStore): ApprovalStore {
  return {
    async put(record) {
      checkKey(record.id, 'approval id');
      return a.put(record);
    },
    async get(id) {
      checkKey(id, 'approval id');
      return a.get(id);
    },
    async decide(id, decision, at, by) {
      checkKey(id, 'approval id');
      return a.decide(id, decision, at, by);
    },
    async update(id, patch) {
      checkKey(id, 'approval id');
      return a.update(id, patch);
    },
    pending: () => a.pending(),
    forMessage: (inboundId) => a.forMessage(inboundId),
    async recent(limit) {
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new StoreError('invalid', `approvals.recent: limit must be a whole number from 1 to 10000, got ${limit}`);
      return a.recent(limit);
    },
  };
}

function checkScope(scope: MemoryScope): void {
  if (scope.kind === 'user') checkKey(scope.userKey, 'user key');
  else checkKey(scope.conversationKey, CONVERSATION);
}

function validatedMemories(m: MemoryStore): MemoryStore {
  return {
    async list(scope) {
      checkScope(scope);
      return m.list(scope);
    },
    async add(record) {
      checkKey(record.id, 'memory id');
      checkScope(record.scope);
      return m.add(record);
    },
    async remove(scope, id) {
      checkScope(scope);
      checkKey(id, 'memory id');
      return m.remove(scope, id);
    },
    async clear(scope) {
      checkScope(scope);
      return m.clear(scope);
    },
  };
}

function validatedLeases(l: LeaseStore): LeaseStore {
  return {
    async acquire(name, holder, ttlMs) {
      checkKey(name, 'lease name');
      checkKey(holder, 'lease holder');
      return l.acquire(name, holder, ttlMs);
    },
    async release(name, holder) {
      checkKey(name, 'lease name');
      return l.release(name, holder);
    },
  };
}

function validatedRateGates(g: RateGateStore): RateGateStore {
  return {
    async pause(bot, ms) {
      checkKey(bot, 'bot name');
      return g.pause(bot, ms);
    },
    async remaining(bot) {
      checkKey(bot, 'bot name');
      return g.remaining(bot);
    },
  };
}

function validatedHookDeliveries(h: HookDeliveryStore): HookDeliveryStore {
  return {
    async claim(hook, id, ttlMs, event) {
      checkKey(hook, 'hook name');
      checkKey(id, 'delivery id');
      if (event) {
        checkKey(event.jobId, 'job id');
        checkKey(event.runId, 'run id');
      }
      return h.claim(hook, id, ttlMs, event);
    },
    async release(hook, id) {
      checkKey(hook, 'hook name');
      checkKey(id, 'delivery id');
      return h.release(hook, id);
    },
    async finish(hook, id) {
      checkKey(hook, 'hook name');
      checkKey(id, 'delivery id');
      return h.finish(hook, id);
    },
    async unfinished(hook) {
      checkKey(hook, 'hook name');
      return h.unfinished(hook);
    },
  };
}

/** A SHA-256 digest in hex (a login token's or a session secret's). */
const HASH = /^[0-9a-f]{64}$/;
/** A session's public id. */
const SESSION_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** The longest User-Agent a session keeps. */
const MAX_USER_AGENT = 200;

function checkIdentity(identity: string): void {
  try {
    decodeUserKey(identity);
  } catch (e) {
    throw new StoreError('invalid', `invalid web identity: ${(e as Error).message}`);
  }
}

function checkHash(hash: string, what: string): void {
  if (!HASH.test(hash)) throw new StoreError('invalid', `invalid ${what}: expected a SHA-256 digest in hex`);
}

function checkTimes(o: { createdAt: number; expiresAt: number }, what: string): void {
  if (!Number.isFinite(o.createdAt) || !Number.isFinite(o.expiresAt) || o.expiresAt < o.createdAt)
    throw new StoreError('invalid', `invalid ${what}: createdAt and expiresAt must be times, expiry not first`);
}

function validatedWebSessions(w: WebSessionStore): WebSessionStore {
  return {
    async addLogin(login) {
      checkHash(login.tokenHash, 'login token hash');
      checkIdentity(login.identity);
      checkTimes(login, 'login');
      return w.addLogin({ ...login });
    },
    async redeemLogin(tokenHash) {
      // A malformed hash names no login: nothing to redeem, nothing to say to a guesser.
      return HASH.test(tokenHash) ? w.redeemLogin(tokenHash) : undefined;
    },
    async createSession(session) {
      if (!SESSION_ID.test(session.id)) throw new StoreError('invalid', 'invalid web session id');
      checkHash(session.secretHash, 'session secret hash');
      checkIdentity(session.identity);
      checkTimes(session, 'session');
      const userAgent = session.userAgent?.slice(0, MAX_USER_AGENT);
      const { userAgent: _, ...rest } = session;
      return w.createSession({ ...rest, ...(userAgent ? { userAgent } : {}) });
    },
    async sessionBySecret(secretHash) {
      return HASH.test(secretHash) ? w.sessionBySecret(secretHash) : undefined;
    },
    async listSessions(identity) {
      if (identity !== undefined) checkIdentity(identity);
      return w.listSessions(identity);
    },
    async revokeSession(id) {
      return SESSION_ID.test(id) ? w.revokeSession(id) : false;
    },
    async revokeIdentity(identity) {
      checkIdentity(identity);
      return w.revokeIdentity(identity);
    },
  };
}

/** A sign-in's address as the socket gives it (IPv4, IPv6, an IPv4-mapped IPv6, with a zone); '' when unknown. */
const ADDRESS = /^[0-9A-Za-z:.%_-]{0,100}$/;

function checkWindow(ms: number, what: string): void {
  if (!Number.isFinite(ms) || ms <= 0)
    throw new StoreError('invalid', `invalid ${what}: expected a positive time in ms`);
}

function validatedAdminSessions(a: AdminSessionStore): AdminSessionStore {
  const checkAddress = (address: string) => {
    if (!ADDRESS.test(address)) throw new StoreError('invalid', 'invalid sign-in address: expected an IP address');
  };
  return {
    async create(session, maxSessions) {
      checkHash(session.idHash, 'dashboard session id hash');
      if (!SESSION_ID.test(session.csrf)) throw new StoreError('invalid', 'invalid dashboard CSRF token');
      checkTimes(session, 'dashboard session');
      if (!Number.isFinite(session.lastUsedAt) || session.lastUsedAt < session.createdAt)
        throw new StoreError('invalid', 'invalid dashboard session: lastUsedAt must be a time, not before createdAt');
      if (!Number.isInteger(maxSessions) || maxSessions < 1)
        throw new StoreError('invalid', 'invalid maxSessions: expected a whole number of at least 1');
      const { idHash, csrf, createdAt, lastUsedAt, expiresAt } = session;
      return a.create({ idHash, csrf, createdAt, lastUsedAt, expiresAt }, maxSessions);
    },
    async use(idHash, idleMs) {
      checkWindow(idleMs, 'idle time');
      // A malformed hash names no session: nothing found, nothing to say to a guesser.
      return HASH.test(idHash) ? a.use(idHash, idleMs) : undefined;
    },
    async remove(idHash) {
      return HASH.test(idHash) ? a.remove(idHash) : false;
    },
    count: () => a.count(),
    async addFailure(address, windowMs) {
      checkAddress(address);
      checkWindow(windowMs, 'sign-in window');
      return a.addFailure(address, windowMs);
    },
    async failures(address, windowMs) {
      checkAddress(address);
      checkWindow(windowMs, 'sign-in window');
      return a.failures(address, windowMs);
    },
  };
}

/** `events` checked (each an object naming its type) and cut to the newest that fit the caps. */
function keepShown(events: unknown): ShownEvent[] {
  if (!Array.isArray(events)) throw new StoreError('invalid', 'invalid web chat display: expected a list of events');
  events.forEach((e, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e) || typeof (e as ShownEvent).type !== 'string')
      throw new StoreError('invalid', `invalid web chat display: event ${i} is not an object with a type`);
  });
  const kept = (events as ShownEvent[]).slice(-MAX_SHOWN_EVENTS);
  let chars = JSON.stringify(kept).length;
  let first = 0;
  while (chars > MAX_SHOWN_CHARS && first < kept.length) chars -= JSON.stringify(kept[first++]).length + 1;
  return first ? kept.slice(first) : kept;
}

function validatedWebDisplay(d: WebDisplayStore): WebDisplayStore {
  const check = (session: string) => {
    if (typeof session !== 'string' || !SESSION_ID.test(session))
      throw new StoreError('bad-key', 'web chat session must be 8-64 letters, digits, _ or -');
  };
  return {
    async read(session) {
      check(session);
      return d.read(session);
    },
    async update(session, fn) {
      check(session);
      return d.update(session, (cur) => keepShown(fn(cur)));
    },
  };
}

const CHANNEL = 'channel';

function validatedChannelLog(l: ChannelLogStore): ChannelLogStore {
  return {
    async put(entries) {
      // One entry per message: the same id twice in one put (a message edited while a backfill
      // read it) keeps the last, as two puts would.
      const last = new Map<string, ChannelLogEntry>();
      for (const e of entries) {
        checkKey(e.channel, CHANNEL);
        checkKey(e.messageId, MESSAGE);
        const k = `${e.channel}\n${e.messageId}`;
        last.delete(k);
        last.set(k, e);
      }
      return l.put(last.size === entries.length ? entries : [...last.values()]);
    },
    async edit(channel, edit) {
      checkKey(channel, CHANNEL);
      checkKey(edit.messageId, MESSAGE);
      return l.edit(channel, edit);
    },
    async remove(channel, messageId, at) {
      checkKey(channel, CHANNEL);
      checkKey(messageId, MESSAGE);
      return l.remove(channel, messageId, at);
    },
    async list(channel, range) {
      checkKey(channel, CHANNEL);
      return l.list(channel, range);
    },
    async oldest(channel) {
      checkKey(channel, CHANNEL);
      return l.oldest(channel);
    },
    channels: () => l.channels(),
    async prune(channel, before) {
      checkKey(channel, CHANNEL);
      return l.prune(channel, before);
    },
  };
}
