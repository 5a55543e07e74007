// The delivery log: seen event ids, the inbound journal and the outbox (the gateway's
// DeliveryStore), kept in memory and backed by one append-only file (`delivery.log`, one JSON
// record per line, deliveryRecordSchema). Every change is one appended line made durable
// (fdatasync) before its call resolves; changes that arrive while a sync is in flight share the
// next one (group commit), so a busy gateway pays one sync for many messages and a quiet one pays
// one small append per step instead of a file rewrite.
// Accepting a message marks its id seen and journals it in the same line; the id of the answer's
// preview message is journaled beside it once sent (`preview`), so a run again edits that message;
// that a preview is about to be sent is journaled first (`previewing`): a crash between the two
// leaves a preview nothing can find again, and the run again knows it (PendingMessage.previewSending).
// An outbox file's upload under way is journaled (`handle`) before the platform can show it.
//
// The file is rewritten atomically (a snapshot of what is live) once it holds twice what is
// live, and after a failed append (a torn line is never followed by more). A half-written last
// line (a crash while appending: the start of a record, no newline) was never acknowledged and
// is dropped. Any other unreadable line, the last one included, is reported and a copy of the
// file set aside for an admin; every readable line is kept.
// Data written by earlier versions is folded in once, then removed (delivery-legacy.ts).
// The bytes of files a reply sends are copied to `outbox-files/` before the entry's line is
// written, and removed once the entry is finished or failed; copies no pending entry names (a
// crash between those steps) are removed at load. A failed entry is never delivered again and is
// kept only for inspection: the oldest go once there are too many or they are too old (no line
// needed: the same rule drops the same entries again at load), and the next rewrite frees them.
import type { OutboundTarget } from '../adapters/index.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { foldInLegacy, removeLegacy } from './delivery-legacy.ts';
import type { Documents } from './documents.ts';
import { StoreError } from './errors.ts';
import type { AppendLog } from './files.ts';
import { encodeName } from './names.ts';
import { type DeliveryRecord, deliveryRecordSchema, type StoredInbound, type StoredOutbox } from './schemas.ts';
import { isTornJson } from './torn-line.ts';
import type { FailedReply, JsonObject, OutboxEntry } from './types.ts';
import type { BackendDelivery, Retention, StoredMessage } from './validated.ts';

const PATH = 'delivery.log';
/** Where the copies of outbound files wait until their entry is done. */
const FILES_DIR = 'outbox-files';

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

/** The delivery log over `docs` (its Files and corruption reporting). */
export function createDeliveryLog(docs: Documents, opts: DeliveryLogOptions): DeliveryLog {
  const files = docs.files;
  const seen = new Map<string, number>(); // id → ms; insertion order = time order
  const inbound = new Map<string, StoredInbound>();
  const outbox = new Map<string, StoredOutbox>();
  let lines = 0;
  let log: AppendLog | undefined;
  let loading: Promise<void> | undefined;
  let closed = false; // no new calls
  let shut = false; // the file is closed: not even a call already under way may write

  // Group commit: lines waiting for the next sync, and who waits for it.
  let buffer: string[] = [];
  let waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;
  let rewriteDue = false;

  const stamp = (): string => new Date(opts.now()).toISOString();

  function prune(now: number): void {
    for (const [id, at] of seen) {
      if (seen.size <= opts.maxCount && at >= now - opts.maxAgeMs) break;
      if (!inbound.has(id))
        seen.delete(id); // an unanswered message stays a duplicate
      else break;
    }
  }

  /** Drops failed entries past their retention (never a pending one: it may still be delivered); true if any. */
  function pruneFailed(now: number): boolean {
    const failed = [...outbox.values()].filter((e) => e.state === 'failed');
    if (!failed.length) return false;
    const keep = opts.failed;
    const cutoff = now - keep.maxAgeMs;
    // Aged by when the send gave up (the `failed` line sets updatedAt), not by when the reply was
    // made: one retried for days and refused just now is kept its full time for an operator.
    const failedAt = (e: StoredOutbox) => Date.parse(e.updatedAt);
    const newestFirst = failed.sort((a, b) => failedAt(b) - failedAt(a) || b.seq - a.seq);
    let dropped = false;
    for (const [i, e] of newestFirst.entries())
      if (i >= keep.maxCount || failedAt(e) < cutoff) dropped = outbox.delete(e.id) || dropped;
    return dropped;
  }

  function apply(r: DeliveryRecord): void {
    switch (r.op) {
      case 'seen':
        seen.delete(r.id);
        seen.set(r.id, r.at);
        return;
      case 'accept':
        seen.delete(r.record.id);
        seen.set(r.record.id, r.at);
        inbound.set(r.record.id, r.record);
        return;
      case 'done':
        inbound.delete(r.id);
        return;
      case 'put':
        outbox.set(r.entry.id, r.entry);
        return;
      case 'receipt': {
        const e = outbox.get(r.id);
        if (!e?.chunks[r.index]) return;
        const chunks = e.chunks.map((c, i) =>
          i === r.index ? { ...c, receipt: { messageId: r.messageId, sentAt: r.at } } : c,
        );
        outbox.set(r.id, { ...e, chunks, updatedAt: r.at });
        return;
      }
      case 'file': {
        const e = outbox.get(r.id);
        if (!e?.files?.[r.index]) return;
        const files = e.files.map((f, i) =>
          i === r.index ? { ...f, receipt: { messageId: r.messageId, sentAt: r.at } } : f,
        );
        outbox.set(r.id, { ...e, files, updatedAt: r.at });
        return;
      }
      case 'handle': {
        const e = outbox.get(r.id);
        if (!e?.files?.[r.index]) return;
        const files = e.files.map((f, i) => (i === r.index ? { ...f, handle: r.handle } : f));
        outbox.set(r.id, { ...e, files, updatedAt: r.at });
        return;
      }
      case 'sent':
        outbox.delete(r.id);
        if (r.answered) inbound.delete(r.answered);
        return;
      case 'failed': {
        const e = outbox.get(r.id);
        if (e) outbox.set(r.id, { ...e, state: 'failed', error: r.error, updatedAt: r.at });
        if (r.answered) inbound.delete(r.answered);
        return;
      }
      case 'preview': {
        const m = inbound.get(r.id);
        if (m) {
          const { previewSending: _sending, ...rest } = m;
          inbound.set(r.id, { ...rest, previewMessageId: r.messageId });
        }
        return;
      }
      case 'previewing': {
        const m = inbound.get(r.id);
        // A preview already journaled stays the one to edit.
        if (m && !m.previewMessageId) inbound.set(r.id, { ...m, previewSending: true });
        return;
      }
      case 'media-work': {
        const m = inbound.get(r.id);
        if (!m) return;
        const { [r.index]: count = 0, ...rest } = m.mediaWork ?? {};
        const mediaWork = r.started ? { ...rest, [r.index]: count + 1 } : rest;
        inbound.set(r.id, { ...m, mediaWork });
        return;
      }
    }
  }

  function snapshot(): string {
    let text = '';
    for (const [id, at] of seen) if (!inbound.has(id)) text += `${JSON.stringify({ op: 'seen', id, at })}\n`;
    for (const record of [...inbound.values()].sort((a, b) => a.seq - b.seq)) {
      text += `${JSON.stringify({ op: 'accept', at: seen.get(record.id) ?? Date.parse(record.acceptedAt), record })}\n`;
    }
    for (const entry of [...outbox.values()].sort((a, b) => a.seq - b.seq))
      text += `${JSON.stringify({ op: 'put', entry })}\n`;
    return text;
  }

  /** The file holds over twice what is live: time to rewrite it. */
  const oversized = (): boolean => lines > 2 * (seen.size + outbox.size) + 64;

  async function rewrite(): Promise<void> {
    const text = snapshot(); // before any await: exactly the changes made so far
    await log?.close();
    log = undefined;
    await files.write(PATH, text);
    lines = text ? text.split('\n').length - 1 : 0;
    rewriteDue = false; // the file is opened for appending at the next change
  }

  async function flush(): Promise<void> {
    while (waiters.length) {
      const text = buffer.join('');
      const batch = waiters;
      buffer = [];
      waiters = [];
      try {
        if (rewriteDue || oversized()) await rewrite();
        else {
          log ??= await files.openLog(PATH);
          await log.append(text);
          lines += batch.length;
        }
        for (const w of batch) w.resolve();
      } catch (e) {
        rewriteDue = true; // whatever reached the file, the next commit replaces it whole
        for (const w of batch.reverse()) w.reject(e); // undone newest first
      }
    }
  }

  /**
   * Applies a change in memory at once (so calls are ordered as made) and resolves when its
   * line is durable; if the write fails, `undo` restores memory and the call rejects.
   */
  function commit(record: DeliveryRecord, undo: () => void): Promise<void> {
    if (shut || opts.readOnly) {
      undo();
      return Promise.reject(
        new StoreError('closed', opts.readOnly ? 'the store is open read-only' : 'the store is closed'),
      );
    }
    const done = new Promise<void>((resolve, reject) => {
      waiters.push({
        resolve,
        reject: (e) => {
          undo();
          reject(
            e instanceof StoreError
              ? e
              : new StoreError('io', `store I/O failed on ${files.describe(PATH)}: ${errorMessage(e)}`, { cause: e }),
          );
        },
      });
    });
    buffer.push(`${JSON.stringify(record)}\n`);
    kick();
    return done;
  }

  function kick(): void {
    if (flushing) return;
    // A commit made after the loop's last check and before this settles starts the next round.
    flushing = flush().finally(() => {
      flushing = undefined;
      if (waiters.length) kick();
    });
  }

  async function load(): Promise<void> {
    const text = (await files.read(PATH)) ?? '';
    const parts = text.split('\n');
    const last = parts.pop()!; // after the last newline: '' when the file ends whole
    const parse = (line: string): DeliveryRecord | undefined => {
      try {
        const parsed = deliveryRecordSchema.safeParse(JSON.parse(line));
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    };
    // Only the start of a line cut short by a crash is a torn append (never acknowledged, so
    // dropped). A whole record that lost only its newline is kept; anything else there is damage.
    const torn = last !== '' && !parse(last) && isTornJson(last);
    if (last !== '' && !torn) parts.push(last);
    if (torn)
      opts.logger.warn(
        { file: files.describe(PATH) },
        'store: dropped a half-written last line of the delivery log (crash while appending)',
      );
    const bad: number[] = [];
    for (const [i, line] of parts.entries()) {
      const record = parse(line);
      if (record) apply(record);
      else bad.push(i + 1);
    }
    lines = parts.length;
    if (opts.readOnly) {
      // The running gateway owns the file: what it would repair or drop is only left out here.
      prune(opts.now());
      pruneFailed(opts.now());
      return;
    }
    if (bad.length) {
      // Reported and kept for an admin; what could be read goes on (nothing readable is dropped).
      // A copy is set aside and the live file stays until the rewrite below replaces it whole:
      // a crash in between leaves the log as it was, not missing.
      await docs.corrupt(
        PATH,
        `unreadable line${bad.length > 1 ? 's' : ''} ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}; ` +
          `the other ${parts.length - bad.length} kept`,
        { keepLive: true },
      );
      rewriteDue = true;
    }
    const legacy = await foldInLegacy(docs, { seen, inbound, outbox }, opts.now);
    if (legacy) rewriteDue = true;
    prune(opts.now());
    // What expired while boxbot was down leaves the file now (while running, with the next rewrite).
    if (pruneFailed(opts.now())) rewriteDue = true;
    if (last !== '' || rewriteDue || oversized()) await rewrite();
    await removeLegacy(docs, legacy);
    await sweepFiles();
  }

  /** Removes file copies no pending entry names (left by a crash before their entry was written or after it ended). */
  async function sweepFiles(): Promise<void> {
    const live = new Set<string>();
    for (const e of outbox.values()) if (e.state === 'pending') for (const f of e.files ?? []) live.add(f.blob);
    for (const name of await files.list(FILES_DIR)) {
      const path = `${FILES_DIR}/${name}`;
      if (!live.has(path)) await files.remove(path);
    }
  }

  /** Runs a file copy's I/O; a failure is a retryable StoreError naming the file. */
  async function io<T>(path: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw new StoreError('io', `store I/O failed on ${files.describe(path)}: ${errorMessage(e)}`, { cause: e });
    }
  }

  /** Removes an ended entry's file copies; one left behind (a failing disk) goes at the next load. */
  async function dropFiles(entry: StoredOutbox | undefined): Promise<void> {
    for (const f of entry?.files ?? []) {
      await files
        .remove(f.blob)
        .catch((e: unknown) =>
          opts.logger.warn({ file: files.describe(f.blob), err: errorMessage(e) }, 'store: an outbox file copy stayed'),
        );
    }
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
    await commit({ op: 'done', id }, () => inbound.set(id, before));
  }

  function outboxEntry(id: string): StoredOutbox {
    const e = outbox.get(id);
    if (!e) throw new StoreError('not-found', `no outbox entry ${JSON.stringify(id)}`);
    return e;
  }

  async function changeOutbox(id: string, record: DeliveryRecord): Promise<void> {
    const before = outboxEntry(id);
    apply(record);
    await commit(record, () => outbox.set(id, before));
  }

  return {
    async accept(message) {
      await ready();
      const now = opts.now();
      prune(now);
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
      await commit({ op: 'accept', at: now, record: stored }, () => {
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
      apply(record);
      await commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
    },
    async startMediaWork(id, index) {
      await ready();
      const before = inbound.get(id);
      if (!before) return 0; // answered meanwhile
      const record: DeliveryRecord = { op: 'media-work', id, index, started: true };
      apply(record);
      await commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
      return before.mediaWork?.[index] ?? 0;
    },
    async endMediaWork(id, index) {
      await ready();
      const before = inbound.get(id);
      if (!before?.mediaWork?.[index]) return; // answered, or nothing to clear
      const record: DeliveryRecord = { op: 'media-work', id, index, started: false };
      apply(record);
      await commit(record, () => {
        if (inbound.has(id)) inbound.set(id, before);
      });
    },
    async notePreviewSending(id) {
      await ready();
      const before = inbound.get(id);
      if (!before) return; // answered meanwhile
      const record: DeliveryRecord = { op: 'previewing', id };
      apply(record);
      await commit(record, () => {
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
      const stem = encodeName(entry.id);
      const stemmed = (entry.files ?? []).map((f, i) => {
        if (!f.bytes)
          throw new StoreError('invalid', `outbox entry ${JSON.stringify(entry.id)}: file ${i} has no bytes`);
        return {
          name: f.name,
          mimeType: f.mimeType,
          ...(f.caption !== undefined ? { caption: f.caption } : {}),
          size: f.bytes.byteLength,
          blob: `${FILES_DIR}/${stem}.${i}`,
          bytes: f.bytes,
        };
      });
      for (const f of stemmed) await io(f.blob, () => files.writeBytes(f.blob, f.bytes));
      if (outbox.has(entry.id)) return; // put meanwhile by another call
      const stored: StoredOutbox = {
        id: entry.id,
        conversationKey: entry.conversationKey,
        target,
        chunks: entry.chunks.map((text) => ({ text })),
        ...(stemmed.length ? { files: stemmed.map(({ bytes: _bytes, ...f }) => f) } : {}),
        state: 'pending',
        createdAt: at,
        updatedAt: at,
        seq: opts.seq(),
      };
      outbox.set(entry.id, stored);
      await commit({ op: 'put', entry: stored }, () => outbox.delete(entry.id));
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
      return io(f.blob, () => files.readBytes(f.blob));
    },
    async finishOutbox(id, answered) {
      await ready();
      const before = outbox.get(id);
      const pending = answered === undefined ? undefined : inbound.get(answered);
      if (!before && !pending) return;
      // One line for both, so a crash can neither answer the message again nor leave the reply half-finished.
      const record: DeliveryRecord = { op: 'sent', id, ...(pending ? { answered } : {}) };
      apply(record);
      await commit(record, () => {
        if (before) outbox.set(id, before);
        if (pending) inbound.set(pending.id, pending);
      });
      await dropFiles(before);
    },
    async failOutbox(id, error, answered) {
      await ready();
      const before = outbox.get(id);
      const pending = answered === undefined ? undefined : inbound.get(answered);
      if (!before && !pending) return;
      // One line for both, as in finishOutbox: a crash can neither resume the refused entry (the
      // user told twice) after the message was marked answered, nor run the message again.
      const record: DeliveryRecord = { op: 'failed', id, error, at: stamp(), ...(pending ? { answered } : {}) };
      apply(record);
      await commit(record, () => {
        if (before) outbox.set(id, before);
        if (pending) inbound.set(pending.id, pending);
      });
      await dropFiles(before);
      pruneFailed(opts.now());
    },
    async pendingOutbox(conversationKey) {
      await ready();
      return [...outbox.values()]
        .filter(
          (e) => e.state === 'pending' && (conversationKey === undefined || e.conversationKey === conversationKey),
        )
        .sort((a, b) => a.seq - b.seq)
        .map((e): OutboxEntry => {
          const { streamMessageId, ...target } = e.target as unknown as OutboundTarget & { streamMessageId?: string };
          return {
            id: e.id,
            conversationKey: e.conversationKey,
            target,
            chunks: e.chunks.map((c) => c.text),
            receipts: e.chunks.map((c) => c.receipt?.messageId ?? null),
            ...(e.files?.length
              ? {
                  files: e.files.map((f) => ({
                    name: f.name,
                    mimeType: f.mimeType,
                    ...(f.caption !== undefined ? { caption: f.caption } : {}),
                  })),
                  fileReceipts: e.files.map((f) => f.receipt?.messageId ?? null),
                  ...(e.files.some((f) => f.handle) ? { fileHandles: e.files.map((f) => f.handle ?? null) } : {}),
                }
              : {}),
            ...(streamMessageId ? { streamMessageId } : {}),
            createdAt: e.createdAt,
          };
        });
    },
    async failedOutbox() {
      await ready();
      return [...outbox.values()]
        .filter((e) => e.state === 'failed')
        .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.seq - a.seq)
        .map(
          (e): FailedReply => ({
            id: e.id,
            conversationKey: e.conversationKey,
            text: e.chunks.map((c) => c.text).join(''),
            files: (e.files ?? []).map((f) => f.name),
            error: e.error ?? '',
            createdAt: e.createdAt,
            failedAt: e.updatedAt,
          }),
        );
    },
    async close() {
      closed = true;
      await loading?.catch(() => undefined);
      while (flushing) await flushing;
      shut = true;
      await log?.close();
      log = undefined;
    },
  };
}
