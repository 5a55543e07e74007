// What the delivery log's lines mean: the live state (seen ids, the inbound journal, the outbox)
// and how one record changes it, with no clock, disk or randomness, so replaying the same lines
// always gives the same state, and the rules can be tested without a file. The log
// (delivery-log.ts) applies each record here both when it is made and when it is read back.
import type { OutboundTarget } from '../adapters/index.ts';
import type { DeliveryRecord, StoredInbound, StoredOutbox } from './schemas.ts';
import type { FailedReply, OutboxEntry } from './types.ts';
import type { Retention } from './validated.ts';

/** The delivery log's live state. */
export interface DeliveryState {
  /** id → ms; insertion order = time order. */
  seen: Map<string, number>;
  inbound: Map<string, StoredInbound>;
  outbox: Map<string, StoredOutbox>;
}

/** An empty state. */
export function emptyDeliveryState(): DeliveryState {
  return { seen: new Map(), inbound: new Map(), outbox: new Map() };
}

/**
 * The state after `r`. It depends on nothing but its arguments; the maps are updated in place
 * and `state` returned (a copy per record would make loading a long log quadratic). The entries
 * themselves are replaced, never edited, so a caller holding an entry from before can restore it.
 */
export function applyDeliveryRecord(state: DeliveryState, r: DeliveryRecord): DeliveryState {
  const { seen, inbound, outbox } = state;
  switch (r.op) {
    case 'seen':
      seen.delete(r.id);
      seen.set(r.id, r.at);
      break;
    case 'accept':
      seen.delete(r.record.id);
      seen.set(r.record.id, r.at);
      inbound.set(r.record.id, r.record);
      break;
    case 'done':
      inbound.delete(r.id);
      break;
    case 'put':
      outbox.set(r.entry.id, r.entry);
      break;
    case 'receipt': {
      const e = outbox.get(r.id);
      if (!e?.chunks[r.index]) break;
      const chunks = e.chunks.map((c, i) =>
        i === r.index ? { ...c, receipt: { messageId: r.messageId, sentAt: r.at } } : c,
      );
      outbox.set(r.id, { ...e, chunks, updatedAt: r.at });
      break;
    }
    case 'file': {
      const e = outbox.get(r.id);
      if (!e?.files?.[r.index]) break;
      const files = e.files.map((f, i) =>
        i === r.index ? { ...f, receipt: { messageId: r.messageId, sentAt: r.at } } : f,
      );
      outbox.set(r.id, { ...e, files, updatedAt: r.at });
      break;
    }
    case 'handle': {
      const e = outbox.get(r.id);
      if (!e?.files?.[r.index]) break;
      const files = e.files.map((f, i) => (i === r.index ? { ...f, handle: r.handle } : f));
      outbox.set(r.id, { ...e, files, updatedAt: r.at });
      break;
    }
    case 'sent':
      outbox.delete(r.id);
      if (r.answered) inbound.delete(r.answered);
      break;
    case 'failed': {
      const e = outbox.get(r.id);
      if (e) outbox.set(r.id, { ...e, state: 'failed', error: r.error, updatedAt: r.at });
      if (r.answered) inbound.delete(r.answered);
      break;
    }
    case 'preview': {
      const m = inbound.get(r.id);
      if (m) {
        const { previewSending: _sending, ...rest } = m;
        inbound.set(r.id, { ...rest, previewMessageId: r.messageId });
      }
      break;
    }
    case 'previewing': {
      const m = inbound.get(r.id);
      // A preview already journaled stays the one to edit.
      if (m && !m.previewMessageId) inbound.set(r.id, { ...m, previewSending: true });
      break;
    }
    case 'media-work': {
      const m = inbound.get(r.id);
      if (!m) break;
      const { [r.index]: count = 0, ...rest } = m.mediaWork ?? {};
      const mediaWork = r.started ? { ...rest, [r.index]: count + 1 } : rest;
      inbound.set(r.id, { ...m, mediaWork });
      break;
    }
  }
  return state;
}

/**
 * Forgets seen ids older than `dedupe.maxAgeMs` or beyond the newest `dedupe.maxCount`; an unanswered
 * message stays.
 */
export function pruneSeen({ seen, inbound }: DeliveryState, now: number, dedupe: Retention): void {
  for (const [id, at] of seen) {
    if (seen.size <= dedupe.maxCount && at >= now - dedupe.maxAgeMs) break;
    if (!inbound.has(id))
      seen.delete(id); // an unanswered message stays a duplicate
    else break;
  }
}

/** Drops failed entries past their retention (never a pending one: it may still be delivered); true if any. */
export function pruneFailed({ outbox }: DeliveryState, now: number, keep: Retention): boolean {
  const failed = [...outbox.values()].filter((e) => e.state === 'failed');
  if (!failed.length) return false;
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

/** The lines that rebuild `state` (a compacted log): seen ids, then the journal and the outbox in their order. */
export function deliverySnapshot({ seen, inbound, outbox }: DeliveryState): string {
  let text = '';
  for (const [id, at] of seen) if (!inbound.has(id)) text += `${JSON.stringify({ op: 'seen', id, at })}\n`;
  for (const record of [...inbound.values()].sort((a, b) => a.seq - b.seq)) {
    text += `${JSON.stringify({ op: 'accept', at: seen.get(record.id) ?? Date.parse(record.acceptedAt), record })}\n`;
  }
  for (const entry of [...outbox.values()].sort((a, b) => a.seq - b.seq))
    text += `${JSON.stringify({ op: 'put', entry })}\n`;
  return text;
}

/** How many records the snapshot of `state` roughly holds (the log is compacted at twice this). */
export const liveRecords = ({ seen, outbox }: DeliveryState): number => seen.size + outbox.size;

/** A pending entry as the gateway resumes it (receipts beside the chunks, the streamed message out of the target). */
export function outboxView(e: StoredOutbox): OutboxEntry {
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
}

/** A failed entry as an operator inspects it. */
export function failedView(e: StoredOutbox): FailedReply {
  return {
    id: e.id,
    conversationKey: e.conversationKey,
    text: e.chunks.map((c) => c.text).join(''),
    files: (e.files ?? []).map((f) => f.name),
    error: e.error ?? '',
    createdAt: e.createdAt,
    failedAt: e.updatedAt,
  };
}
