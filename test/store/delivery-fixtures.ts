// Messages and replies as the gateway hands them to the store's delivery state.
import type { InboundMessage } from '../../src/adapters/index.ts';
import type { OutboxEntry, Store } from '../../src/store/index.ts';

/** An inbound message with event id `id` (and a raw payload, which is never stored). */
export function inbound(id: string, conversationKey = 'web:a', over: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id,
    platform: 'web',
    conversationKey,
    chatId: conversationKey.split(':')[1] ?? 'a',
    userId: 'u1',
    userName: 'Ann',
    text: 'hi',
    isDirect: true,
    mentionsBot: true,
    attachments: [],
    receivedAt: '2026-11-01T00:00:00.000Z',
    raw: { secret: 'platform payload' },
    ...over,
  };
}

/** A reply of `chunks` to send to `conversationKey`, none sent yet. */
export function reply(
  id: string,
  conversationKey: string,
  chunks: string[],
  over: Partial<OutboxEntry> = {},
): OutboxEntry {
  return {
    id,
    conversationKey,
    target: { conversationKey, chatId: conversationKey.split(':')[1] ?? 'a' },
    chunks,
    receipts: chunks.map(() => null),
    createdAt: '2026-11-01T00:00:00.000Z',
    ...over,
  };
}

/** Marks event id `id` seen as a handled message does (accepted, then answered); false if it was seen already. */
export async function seen(s: Store, id: string): Promise<boolean> {
  const fresh = await s.delivery.accept(inbound(id));
  if (fresh) await s.delivery.finish(id);
  return fresh;
}

/** The event ids of the pending messages, in the order accepted. */
export async function pendingIds(s: Store): Promise<string[]> {
  return (await s.delivery.pending()).map((p) => p.message.id);
}
