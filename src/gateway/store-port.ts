// The gateway's durable state on the real store: `accept` marks the event id seen and journals
// the message in one write; the outbox keeps chunks with receipts. Raw platform payloads are
// not persisted.
import type { InboundMessage, OutboundTarget } from '../adapters/index.ts';
import type { JsonObject, Store } from '../store/index.ts';
import type { GatewayStore, OutboxEntry } from './ports.ts';

const toJson = (v: unknown): JsonObject => JSON.parse(JSON.stringify(v)) as JsonObject;

/** Adapts a Store to what the gateway needs. */
export function gatewayStoreOf(store: Store): GatewayStore {
  return {
    async accept(message) {
      const { raw: _raw, ...rest } = message;
      return (await store.inbound.acceptOnce({ id: message.id, conversationKey: message.conversationKey, message: toJson(rest) })) !== undefined;
    },
    async finish(id) {
      await store.inbound.done(id);
    },
    async pending() {
      return (await store.inbound.pending()).map((r) => ({
        message: { ...(r.message as unknown as Omit<InboundMessage, 'raw'>), raw: null },
        ...(r.previewMessageId ? { previewMessageId: r.previewMessageId } : {}),
      }));
    },
    async notePreview(id, previewMessageId) {
      await store.inbound.notePreview(id, previewMessageId);
    },
    async putOutbox(entry) {
      const target = toJson({ ...entry.target, ...(entry.streamMessageId ? { streamMessageId: entry.streamMessageId } : {}) });
      await store.outbox.put({ id: entry.id, conversationKey: entry.conversationKey, target, chunks: entry.chunks });
    },
    async receipt(id, index, platformMessageId) {
      await store.outbox.recordReceipt(id, index, platformMessageId);
    },
    async finishOutbox(id, answered) {
      await store.outbox.markDone(id, answered === undefined ? undefined : { answered });
    },
    async failOutbox(id, error, answered) {
      // The message first: a crash between the two writes resumes the entry (refused again,
      // the user told twice) rather than running the message again.
      if (answered !== undefined) await store.inbound.done(answered);
      if (await store.outbox.get(id)) await store.outbox.markFailed(id, error);
    },
    async answered(key) {
      const c = await store.conversations.get(key).catch(() => undefined);
      return !!c && c.messages.some((m) => m.role === 'assistant');
    },
    async pendingOutbox() {
      return (await store.outbox.pending())
        .filter((e) => e.state === 'pending')
        .map((e): OutboxEntry => {
          const { streamMessageId, ...target } = e.target as unknown as OutboundTarget & { streamMessageId?: string };
          return {
            id: e.id,
            conversationKey: e.conversationKey,
            target,
            chunks: e.chunks.map((c) => c.text),
            receipts: e.chunks.map((c) => c.receipt?.messageId ?? null),
            ...(streamMessageId ? { streamMessageId } : {}),
            createdAt: e.createdAt,
          };
        });
    },
  };
}
