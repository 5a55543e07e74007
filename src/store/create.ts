// The two backends: files under a data directory (the default, through lowdb) and memory
// (tests). Both run the same store logic over a different byte layer, under the shared rules
// (validated.ts).

import { createAdminSessions } from './admin-sessions.ts';
import { createApprovals } from './approvals.ts';
import { type BulkWriter, createBulkWriter } from './bulk-writer.ts';
import { createChannelLog } from './channel-log.ts';
import { createConversations } from './conversations.ts';
import { createDeliveryLog } from './delivery-log.ts';
import { createDiskFiles, SYNCED_WRITE_MAX } from './disk-files.ts';
import { createDocuments, type DocumentCache } from './documents.ts';
import type { Files } from './files.ts';
import { createHookDeliveries } from './hook-deliveries.ts';
import { createJobs } from './jobs.ts';
import { createKv } from './kv.ts';
import { createMemories } from './memories.ts';
import { createMemoryFiles, type MemoryFilesState } from './memory-files.ts';
import { createSequence } from './sequence.ts';
import type { Store, StoreOptions } from './types.ts';
import { createUsage } from './usage.ts';
import { type BackendStore, type ResolvedStoreOptions, validated, withDefaults } from './validated.ts';
import { createWebDisplay } from './web-display.ts';
import { createWebSessions } from './web-sessions.ts';

/**
 * The documents a run reads and writes back stay in memory while recently used: its
 * conversation's history, its usage (each model call's charge is a read-modify-write of the
 * conversation's and the user's), the notes of its memory digest and its workspace's record (a kv
 * value of its own, read at every run), and the kv document. Room for about a thousand
 * busy conversations with their users; the characters cap bounds the memory whatever the count.
 */
export const DOCUMENT_CACHE: DocumentCache = {
  prefixes: ['conversations/', 'usage/', 'memories/', 'kv/', 'kv.json'],
  max: 4000,
  maxChars: 32 * 1024 * 1024,
};

/**
 * The documents only the gateway writes on a turn's path (histories, usage) are journaled: an
 * update is one group-committed append, their files written in the background (document-wal.ts).
 */
export const DOCUMENT_JOURNAL = { path: 'documents.journal', prefixes: ['conversations/', 'usage/'] };

function build(files: Files, opts: ResolvedStoreOptions, bulk?: BulkWriter): BackendStore {
  const { logger, now } = opts;
  const docs = createDocuments(files, {
    logger,
    onCorrupt: opts.onCorrupt,
    cache: DOCUMENT_CACHE,
    journal: {
      ...DOCUMENT_JOURNAL,
      ...(opts.beforeCommit ? { beforeAppend: opts.beforeCommit } : {}),
      ...(bulk ? { bulk } : {}),
    },
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
  const conversations = createConversations(docs, now);
  const { close: closeDelivery, ...delivery } = createDeliveryLog(docs, {
    now,
    seq: createSequence(now),
    logger,
    maxAgeMs: opts.dedupe.maxAgeMs,
    maxCount: opts.dedupe.maxCount,
    failed: opts.failedOutbox,
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
    jobs: createJobs(docs, opts.jobLogLimit),
    usage: createUsage(docs),
    approvals: createApprovals(docs, now),
    memories: createMemories(docs),
    hookDeliveries: createHookDeliveries(docs, now),
    channelLog: createChannelLog(docs),
    webSessions: createWebSessions(docs, now),
    adminSessions: createAdminSessions(docs, now),
    webDisplay: createWebDisplay(docs),
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
  const o = withDefaults(opts);
  const files = createDiskFiles(dataDir, { now: o.now, beforeCommit: o.beforeCommit });
  // A busy checkpoint's file writes go to a thread of their own; not with a fault-injection hook
  // (it runs between each write and its rename, here) nor for a store that only reads.
  const bulk = o.beforeCommit || o.readOnly ? undefined : createBulkWriter(dataDir, { syncedMax: SYNCED_WRITE_MAX });
  return validated(build(files, o, bulk));
}

/** A fresh, empty state for `createMemoryStore`; pass the same one again to "restart". */
export function createMemoryState(): MemoryFilesState {
  return new Map();
}

/** A store kept in memory (tests); `state` survives the store, like a data directory. */
export function createMemoryStore(opts: StoreOptions & { state?: MemoryFilesState } = {}): Store {
  const o = withDefaults(opts);
  return validated(
    build(createMemoryFiles(opts.state ?? createMemoryState(), { now: o.now, beforeCommit: o.beforeCommit }), o),
  );
}
