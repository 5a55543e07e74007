// Messages this process was handed but could not save (refused while the store failed, for the
// platform to deliver again): until one is saved, a later message of its conversation must not
// be accepted ahead of it, or it would be answered first once the store is back.
import { compareOrder, type InboundMessage } from '../adapters/index.ts';

/** Known unsaved messages, by conversation. */
export interface UnsavedMessages {
  /** `msg` was refused unsaved. */
  note(msg: InboundMessage): void;
  /** `msg` is saved (here, or found saved by another process). */
  saved(msg: Pick<InboundMessage, 'id' | 'conversationKey'>): void;
  /** The known unsaved messages that come before `msg` in its conversation's platform order. */
  before(msg: InboundMessage): InboundMessage[];
}

/**
 * Each is remembered `ttlMs` at most: a platform that stopped redelivering one (or another
 * replica that saved it and answered it) must not hold its conversation for ever.
 */
export function createUnsavedMessages(ttlMs: number, now: () => number = Date.now): UnsavedMessages {
  const byKey = new Map<string, Map<string, { msg: InboundMessage; at: number }>>();
  return {
    note(msg) {
      if (msg.order === undefined) return; // without a platform order there is no "before"
      let m = byKey.get(msg.conversationKey);
      if (!m) byKey.set(msg.conversationKey, (m = new Map()));
      if (!m.has(msg.id)) m.set(msg.id, { msg, at: now() });
    },
    saved(msg) {
      const m = byKey.get(msg.conversationKey);
      m?.delete(msg.id);
      if (m?.size === 0) byKey.delete(msg.conversationKey);
    },
    before(msg) {
      const m = byKey.get(msg.conversationKey);
      if (!m || msg.order === undefined) return [];
      const out: InboundMessage[] = [];
      for (const [id, u] of m) {
        if (now() - u.at > ttlMs) m.delete(id);
        else if (id !== msg.id && compareOrder(u.msg.order!, msg.order) < 0) out.push(u.msg);
      }
      if (m.size === 0) byKey.delete(msg.conversationKey);
      return out;
    },
  };
}
