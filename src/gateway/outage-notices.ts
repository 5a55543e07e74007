// The "could not save your message" notice while the store fails: one per conversation per
// outage (held copies, a platform's redeliveries and the conversation's next messages share it),
// and taken over by that conversation's next answer as its preview, so the answer replaces it
// instead of leaving it in the chat.

/** Sends a notice; resolves with its platform message id (undefined when it was not delivered). */
export type SendNotice = () => Promise<string | undefined>;

/** The notices out in this process, by conversation. */
export interface OutageNotices {
  /** Sends the conversation's notice unless one is out already (and not yet taken or expired). */
  tell(conversationKey: string, send: SendNotice): void;
  /** The conversation's notice, for its next answer to replace (once); undefined when there is none. */
  take(conversationKey: string): Promise<string | undefined>;
}

/**
 * Notices kept `ttlMs`: one never taken here (the message was accepted by another replica, which
 * answered it) stops standing for the outage after that and a later outage gets its own.
 */
export function createOutageNotices(ttlMs: number, now: () => number = Date.now): OutageNotices {
  const out = new Map<string, { id: Promise<string | undefined>; at: number }>();
  const live = (key: string) => {
    const n = out.get(key);
    if (n && now() - n.at > ttlMs) out.delete(key);
    return out.get(key);
  };
  return {
    tell(key, send) {
      if (live(key)) return;
      out.set(key, { id: send().catch(() => undefined), at: now() });
    },
    async take(key) {
      const n = live(key);
      if (!n) return undefined;
      out.delete(key);
      return n.id;
    },
  };
}
