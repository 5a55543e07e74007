// The delivery log: seen event ids, the inbound journal and the outbox (the gateway's
// DeliveryStore), kept in memory and backed by one append-only file (`delivery.log`, one JSON
// record per line, deliveryRecordSchema) through the journal (append-log.ts: durable appends,
// group commit, compaction, torn-line recovery). What each line means is delivery-state.ts; the
// copies of the files a reply sends are outbox-copies.ts. This file holds the calls and their
// order of steps.
// Accepting a message marks its id seen and journals it in the same line; the id of the answer's
// preview message is journaled beside it once sent (`preview`), so a run again edits that message;
// that a preview is about to be sent is journaled first (`previewing`): a crash between the two
// leaves a preview nothing can find again, and the run again knows it (PendingMessage.previewSending).
// An outbox file's upload under way is journaled (`handle`) before the platform can show it.
// Data written by earlier versions is folded in once, then removed (delivery-legacy.ts).
// A failed entry is never delivered again and is kept only for inspection: the oldest go once there
// are too many or they are too old (no line needed: the same rule drops the same entries again at
// load), and the next rewrite frees them.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { createJournal } from './append-log.ts';
import { foldInLegacy, removeLegacy } from './delivery-legacy.ts';
import {
  applyDeliveryRecord,
  deliverySnapshot,
  emptyDeliveryState,
  failedView,
  liveRecords,
  outboxView,
  pruneFailed,
  pruneSeen,
} from './delivery-state.ts';
import type { Documents } from './documents.ts';
import { StoreError } from './errors.ts';
import { createOutboxCopies } from './outbox-copies.ts';
import { type DeliveryRecord, deliveryRecordSchema, type StoredInbound, type StoredOutbox } from './schemas.ts';
import type { JsonObject } from './types.ts';
import type { BackendDelivery, Retention, StoredMessage } from './validated.ts';

const PATH = 'delivery.log';

/** The gateway's delivery state the log backs (all but `answered`, which the conversations know), and its shutdown. */
export interface DeliveryLog extends Omit<BackendDelivery, 'answered'> {
  /** Waits for appends in flight and closes the file. */
  close(): Promise<void>;
}

/** What the log needs from the store around it. */
export interface DeliveryLogOptions {
  now: () => number;
  seq: () => number;
  logger: Logger;
  /** Dedupe retention: ids older than `maxAgeMs` or beyond the newest `maxCount` are forgotten. */
  maxAgeMs: number;
  maxCount: number;
  /** Failed entries refused longer than `maxAgeMs` ago, or beyond the `maxCount` refused last, are dropped. */
  failed: Retention;
  /**
   * Reads only (another process, such as the CLI beside a running gateway): the log is loaded but
   * never rewritten, repaired or swept, and every change is refused.
   */
  readOnly?: boolean;
}

/** A line of the log, or undefined when it holds no record. */
function parseLine(line: string): DeliveryRecord | undefined {
  try {
    const parsed = deliveryRecordSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The delivery log over `docs` (its Files and corruption reporting). */
export function createDeliveryLog(docs: Documents, opts: DeliveryLogOptions): DeliveryLog {
  const files = docs.files;
  const state = emptyDeliveryState();
  const { seen, inbound, outbox } = state;
  const dedupe: Retention = { maxAgeMs: opts.maxAgeMs, maxCount: opts.maxCount };
  const journal = createJournal<DeliveryRecord>(docs, {
    path: PATH,
    what: 'delivery log',
    logger: opts.logger,
    parse: parseLine,
    apply: (r) => applyDeliveryRecord(state, r),
    snapshot: () => deliverySnapshot(state),
    live: () => liveRecords(state),
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
  const copies = createOutboxCopies(files, opts.logger);
  let loading: Promise<void> | undefined;
  let closed = false; // no new calls

  const stamp = (): string => new Date(opts.now()).toISOString();

  async function load(): Promise<void> {
    const { unterminated } = await journal.load();
    if (opts.readOnly) {
      // The running gateway owns the file: what it would repair or drop is only left out here.
      pruneSeen(state, opts.now(), dedupe);
      pruneFailed(state, opts.now(), opts.failed);
      return;
    }
    const legacy = await foldInLegacy(docs, state, opts.now);
    if (legacy) journal.rewriteSoon();
    pruneSeen(state, opts.now(), dedupe);
    // What expired while boxbot was down leaves the file now (while running, with the next rewrite).
    if (pruneFailed(state, opts.now(), opts.failed)) journal.rewriteSoon();
    await journal.compact(unterminated);
    await removeLegacy(docs, legacy);
    await copies.sweep(outbox.values());
  }

  /** Loads once; a failed load (not corruption, which is handled) is retried on the next call. */
  async function ready(): Promise<void> {
    if (closed) throw new StoreError('closed', 'the store is closed');
    loading ??= load().catch((e: unknown) => {
      loading = undefined;
      seen.clear();
      inbound.clear();
      outbox.clear();
      if (e instanceof StoreError) throw e;
      throw new StoreError('io', `store I/O failed on ${files.describe(PATH)}: ${errorMessage(e)}`, { cause: e });
    });
    await loading;
  }

  const markSeen = (id: string, at: number): (() => void) => {
    const before = seen.get(id);
    seen.delete(id);
    seen.set(id, at);
    return () => {
      seen.delete(id);
      if (before !== undefined) seen.set(id, before);
    };
  };

  async function done(id: string): Promise<void> {
    const before = inbound.get(id);
    if (!before) return;
    inbound.delete(id);
    await journal.commit({ op: 'done', id }, () => inbound.set(id, before));
  }

  function outboxEntry(id: string): StoredOutbox {
    const e = outbox.get(id);
    if (!e) throw new StoreError('not-found', `no outbox entry ${JSON.stringify(id)}`);
    return e;
  }

  async function changeOutbox(id: string, record: DeliveryRecord): Promise<void> {
    const before = outboxEntry(id);
    applyDeliveryRecord(state, record);
    await journal.commit(record, () => outbox.set(id, before));
  }

  return {
    async accept(message) {
      await ready();
      const now = opts.now();
      pruneSeen(state, now, dedupe);
      if (inbound.has(message.id) || seen.has(message.id)) return false;
      // The one copy on the way in.
      const stored: StoredInbound = {
        id: message.id,
        conversationKey: message.conversationKey,
        acceptedAt: new Date(now).toISOString(),
        seq: opts.seq(),
        message: structuredClone(message) as unknown as JsonObject,
      };
      const unseen = markSeen(message.id, now);
      inbound.set(message.id, stored);
      await journal.commit({ op: 'accept', at: now, record: stored }, () => {
        inbound.delete(message.id);
        unseen();
      });
      return true;
    },
    async finish(id) {
      await ready();
      await done(id);
    },
    async pending(conversationKey) {
      await ready();
      // Filtered before the copies are made: one conversation's read copies that conversation's.
      return [...inbound.values()]
        .filter((r) => conversationKey === undefined || r.conversationKey === conversationKey)
        .sort((a, b) => a.seq - b.seq)
        .map((r) => ({
          message: structuredClone(r.message) as unknown as StoredMessage,
          ...(r.previewMessageId ? { previewMessageId: r.previewMessageId } : {}),
          ...(r.previewSending ? { previewSending: true } : {}),
        }));
    },
    async notePreview(id, messageId) {
      await ready();
      const before = inbound.get(id);
      if (!before) return; // answered meanwhile: nothing left to edit
      const record: DeliveryRecord = { op: 'preview', id, messageId };
      applyDeliveryRecord(state, record);
      await journal.commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
    },
    async startMediaWork(id, index) {
      await ready();
      const before = inbound.get(id);
      if (!before) return 0; // answered meanwhile
      const record: DeliveryRecord = { op: 'media-work', id, index, started: true };
      applyDeliveryRecord(state, record);
      await journal.commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
      return before.mediaWork?.[index] ?? 0;
    },
    async endMediaWork(id, index) {
      await ready();
      const before = inbound.get(id);
      if (!before?.mediaWork?.[index]) return; // answered, or nothing to clear
      const record: DeliveryRecord = { op: 'media-work', id, index, started: false };
      applyDeliveryRecord(state, record);
      await journal.commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
    },
    async notePreviewSending(id) {
      await ready();
      const before = inbound.get(id);
      if (!before) return; // answered meanwhile
      const record: DeliveryRecord = { op: 'previewing', id };
      applyDeliveryRecord(state, record);
      await journal.commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
    },
    async putOutbox(entry) {
      // Refused before the file copies: a read-only opener never writes beside the gateway that owns them.
      if (opts.readOnly) throw new StoreError('closed', 'the store is open read-only');
      await ready();
      if (outbox.has(entry.id)) return; // a repeated put keeps the stored entry and its receipts
      const at = stamp();
      // On disk the streamed message rides in the target (the line format of earlier versions).
      const target = {
        ...entry.target,
        ...(entry.streamMessageId ? { streamMessageId: entry.streamMessageId } : {}),
      } as JsonObject;
      // The copies are durable before the line that names them: a crash in between leaves only
      // copies no entry names, removed at the next load.
      const copied = await copies.write(entry);
      if (outbox.has(entry.id)) return; // put meanwhile by another call
      const stored: StoredOutbox = {
        id: entry.id,
        conversationKey: entry.conversationKey,
        target,
        chunks: entry.chunks.map((text) => ({ text })),
        ...(copied.length ? { files: copied } : {}),
        state: 'pending',
        createdAt: at,
        updatedAt: at,
        seq: opts.seq(),
      };
      outbox.set(entry.id, stored);
      await journal.commit({ op: 'put', entry: stored }, () => outbox.delete(entry.id));
    },
    async receipt(id, index, messageId) {
      await ready();
      const e = outboxEntry(id);
      if (!Number.isInteger(index) || index < 0 || index >= e.chunks.length) {
        throw new StoreError('not-found', `outbox entry ${JSON.stringify(id)} has no chunk ${index}`);
      }
      await changeOutbox(id, { op: 'receipt', id, index, messageId, at: stamp() });
    },
    async fileReceipt(id, index, messageId) {
      await ready();
      const e = outboxEntry(id);
      if (!Number.isInteger(index) || index < 0 || index >= (e.files?.length ?? 0)) {
        throw new StoreError('not-found', `outbox entry ${JSON.stringify(id)} has no file ${index}`);
      }
      await changeOutbox(id, { op: 'file', id, index, messageId, at: stamp() });
    },
    async fileHandle(id, index, handle) {
      await ready();
      const e = outboxEntry(id);
      if (!Number.isInteger(index) || index < 0 || index >= (e.files?.length ?? 0)) {
        throw new StoreError('not-found', `outbox entry ${JSON.stringify(id)} has no file ${index}`);
      }
      await changeOutbox(id, { op: 'handle', id, index, handle, at: stamp() });
    },
    async outboxFile(id, index) {
      await ready();
      const f = outbox.get(id)?.files?.[index];
      if (!f || outbox.get(id)?.state !== 'pending') return undefined;
      return copies.read(f);
    },
    async finishOutbox(id, answered) {
      await ready();
      const before = outbox.get(id);
      const pending = answered === undefined ? undefined : inbound.get(answered);
      if (!before && !pending) return;
      // One line for both, so a crash can neither answer the message again nor leave the reply half-finished.
      const record: DeliveryRecord = { op: 'sent', id, ...(pending ? { answered } : {}) };
      applyDeliveryRecord(state, record);
      await journal.commit(record, () => {
        if (before) outbox.set(id, before);
        if (pending) inbound.set(pending.id, pending);
      });
      await copies.drop(before);
    },
    async failOutbox(id, error, answered) {
      await ready();
      const before = outbox.get(id);
      const pending = answered === undefined ? undefined : inbound.get(answered);
      if (!before && !pending) return;
      // One line for both, as in finishOutbox: a crash can neither resume the refused entry (the
      // user told twice) after the message was marked answered, nor run the message again.
      const record: DeliveryRecord = { op: 'failed', id, error, at: stamp(), ...(pending ? { answered } : {}) };
      applyDeliveryRecord(state, record);
      await journal.commit(record, () => {
        if (before) outbox.set(id, before);
        if (pending) inbound.set(pending.id, pending);
      });
      await copies.drop(before);
      pruneFailed(state, opts.now(), opts.failed);
    },
    async pendingOutbox(conversationKey) {
      await ready();
      return [...outbox.values()]
        .filter(
          (e) => e.state === 'pending' && (conversationKey === undefined || e.conversationKey === conversationKey),
        )
        .sort((a, b) => a.seq - b.seq)
        .map(outboxView);
    },
    async failedOutbox() {
      await ready();
      return [...outbox.values()]
        .filter((e) => e.state === 'failed')
        .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.seq - a.seq)
        .map(failedView);
    },
    async close() {
      closed = true;
      await loading?.catch(() => undefined);
      await journal.close();
    },
  };
}
