// The two backends: files under a data directory (the default, through lowdb) and memory
// (tests). Both run the same store logic over a different byte layer.
import { silentLogger } from '../core/log.ts';
import { createApprovals } from './approvals.ts';
import { createChannelLog } from './channel-log.ts';
import { createConversations } from './conversations.ts';
import { createDeliveryLog, DEFAULT_FAILED_OUTBOX } from './delivery-log.ts';
import { createDiskFiles } from './disk-files.ts';
import { createDocuments, type DocumentCache } from './documents.ts';
import type { Files } from './files.ts';
import { createJobs } from './jobs.ts';
import { createKv } from './kv.ts';
import { createMemories } from './memories.ts';
import { createMemoryFiles, type MemoryFilesState } from './memory-files.ts';
import { createSequence } from './sequence.ts';
import type { Store, StoreOptions } from './types.ts';
import { createUsage } from './usage.ts';

/** Default dedupe retention: ids are remembered for 3 days, at most 20,000 of them. */
export const DEFAULT_DEDUPE = { maxAgeMs: 3 * 24 * 3600_000, maxCount: 20_000 } as const;
/** Default number of run logs kept per job. */
export const DEFAULT_JOB_LOG_LIMIT = 50;

/**
 * The documents a run reads and writes back stay in memory while recently used: its
 * conversation's history, its usage (each model call's charge is a read-modify-write of the
 * conversation's and the user's), the notes of its memory digest and the kv document (read at every run
 * for its workspace's record). Room for about a thousand
 * busy conversations with their users; the characters cap bounds the memory whatever the count.
 */
export const DOCUMENT_CACHE: DocumentCache = {
  prefixes: ['conversations/', 'usage/', 'memories/', 'kv.json'],
  max: 4000,
  maxChars: 32 * 1024 * 1024,
};

function build(files: Files, opts: StoreOptions, now: () => number): Store {
  const logger = opts.logger ?? silentLogger;
  const docs = createDocuments(files, { logger, onCorrupt: opts.onCorrupt, cache: DOCUMENT_CACHE });
  const conversations = createConversations(docs, now);
  const { close: closeDelivery, ...delivery } = createDeliveryLog(docs, {
    now,
    seq: createSequence(now),
    logger,
    maxAgeMs: opts.dedupe?.maxAgeMs ?? DEFAULT_DEDUPE.maxAgeMs,
    maxCount: opts.dedupe?.maxCount ?? DEFAULT_DEDUPE.maxCount,
    failed: { ...DEFAULT_FAILED_OUTBOX, ...opts.failedOutbox },
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
  return {
    conversations,
    delivery: {
      ...delivery,
      async answered(key) {
        const c = await conversations.get(key).catch(() => undefined);
        return !!c && c.messages.some((m) => m.role === 'assistant');
      },
    },
    kv: createKv(docs),
    jobs: createJobs(docs, opts.jobLogLimit ?? DEFAULT_JOB_LOG_LIMIT),
    usage: createUsage(docs),
    approvals: createApprovals(docs, now),
    memories: createMemories(docs),
    channelLog: createChannelLog(docs),
    async close() {
      await closeDelivery();
      await docs.close();
    },
  };
}

/**
 * The default store: JSON files under `dataDir` (conversations sharded one file each, kv, jobs,
 * job logs) and the delivery log (seen ids, inbound journal, outbox).
 * @example const store = createFileStore(config.dataDir, { logger: log.child({ scope: 'store' }) });
 */
export function createFileStore(dataDir: string, opts: StoreOptions = {}): Store {
  const now = opts.now ?? Date.now;
  return build(createDiskFiles(dataDir, { now, beforeCommit: opts.beforeCommit }), opts, now);
}

/** A fresh, empty state for `createMemoryStore`; pass the same one again to "restart". */
export function createMemoryState(): MemoryFilesState {
  return new Map();
}

/** A store kept in memory (tests); `state` survives the store, like a data directory. */
export function createMemoryStore(opts: StoreOptions & { state?: MemoryFilesState } = {}): Store {
  const now = opts.now ?? Date.now;
  return build(
    createMemoryFiles(opts.state ?? createMemoryState(), { now, beforeCommit: opts.beforeCommit }),
    opts,
    now,
  );
}
