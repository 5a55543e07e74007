// Which replica answers a conversation, when several share one database: the one holding the
// conversation's lease (`conv:<key>`). Any replica may accept a message (webhooks arrive
// anywhere; the journal deduplicates); the owner runs the conversation's pending messages in the
// order accepted, renews its leases while it works, and gives a conversation up once its queue
// is empty. A replica that dies stops renewing: its conversations pass to whoever sweeps next.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { LeaseStore } from '../store/index.ts';

/** How replicas share conversations (GatewayOptions.cluster). */
export interface ClusterOptions {
  leases: LeaseStore;
  /** This replica's id (unique among the replicas). */
  holder: string;
  /** How long a conversation's lease lasts unrenewed (default 10 s). */
  ttlMs?: number;
  /** How often unowned pending work is looked for (default 2 s). */
  sweepMs?: number;
}

/** The conversations this replica owns. */
export interface ConversationOwner {
  owns(key: string): boolean;
  /** Takes the conversation's lease: true if this replica owns it now, false if another does. */
  claim(key: string): Promise<boolean>;
  /** Gives the conversation up (its queue is empty). */
  release(key: string): Promise<void>;
  /** Renews every owned lease each ttl/3; a lease found lost is dropped (`onLost`). */
  start(onLost: (key: string) => void): void;
  /** Stops renewing and gives every conversation up, so other replicas take them at once. */
  stop(): Promise<void>;
  readonly sweepMs: number;
}

const leaseName = (key: string): string => `conv:${key}`;

/** Conversation ownership over `o.leases`. */
export function createConversationOwner(o: ClusterOptions, log: Logger): ConversationOwner {
  const ttlMs = o.ttlMs ?? 10_000;
  const owned = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  return {
    sweepMs: o.sweepMs ?? 2000,
    owns: (key) => owned.has(key),
    async claim(key) {
      if (owned.has(key)) return true;
      const fence = await o.leases.acquire(leaseName(key), o.holder, ttlMs);
      if (fence === undefined) return false;
      owned.add(key);
      return true;
    },
    async release(key) {
      if (!owned.delete(key)) return;
      await o.leases.release(leaseName(key), o.holder);
    },
    start(onLost) {
      timer = setInterval(() => {
        for (const key of owned)
          void o.leases.acquire(leaseName(key), o.holder, ttlMs).then(
            (fence) => {
              if (fence !== undefined || !owned.delete(key)) return;
              log.warn({ conversation: key }, 'conversation lease lost to another replica');
              onLost(key);
            },
            (e: unknown) => log.warn({ conversation: key, err: errorMessage(e) }, 'conversation lease not renewed'),
          );
      }, ttlMs / 3);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      const keys = [...owned];
      owned.clear();
      await Promise.allSettled(keys.map((k) => o.leases.release(leaseName(k), o.holder)));
    },
  };
}
