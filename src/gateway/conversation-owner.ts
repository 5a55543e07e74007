// Which replica answers a conversation, when several share one database: the one holding the
// conversation's lease (`conv:<key>`). Any replica may accept a message (webhooks arrive
// anywhere; the journal deduplicates); the owner runs the conversation's pending messages in the
// order accepted, renews its leases while it works, and gives a conversation up once its queue
// is empty. A replica that dies stops renewing: its conversations pass to whoever sweeps next. A
// replica that cannot renew (its database calls stall) stops owning when its lease may run out.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { LeaseFence, LeaseStore } from '../store/index.ts';

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
  /** Whether its lease holds for sure now (renewed within the ttl). */
  owns(key: string): boolean;
  /** Takes the conversation's lease: true if this replica owns it now, false if another does. */
  claim(key: string): Promise<boolean>;
  /** The fence of a write that stands only while this replica owns the conversation (DeliveryStore.putOutbox). */
  fenceOf(key: string): LeaseFence;
  /** Gives the conversation up (its queue is empty). */
  release(key: string): Promise<void>;
  /** Renews every owned lease each ttl/3; a lease found lost, or run out unrenewed, is dropped (`onLost`). */
  start(onLost: (key: string) => void): void;
  /** Stops renewing and gives every conversation up, so other replicas take them at once. */
  stop(): Promise<void>;
  readonly sweepMs: number;
}

const leaseName = (key: string): string => `conv:${key}`;

/** Conversation ownership over `o.leases`. */
export function createConversationOwner(o: ClusterOptions, log: Logger): ConversationOwner {
  const ttlMs = o.ttlMs ?? 10_000;
  // Per owned conversation, until when its lease holds for sure: ttl after the acquire that took or
  // renewed it was sent (the database counts from when it ran, later). A replica whose renewals
  // fail (its database calls stalled, not failed for others) owns nothing past that: another
  // replica may take the conversation from then on, and two would answer it.
  const owned = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let expiry: NodeJS.Timeout | undefined;
  let lost: (key: string) => void = () => undefined;
  const owns = (key: string): boolean => (owned.get(key) ?? 0) > Date.now();
  const drop = (key: string, why: string): void => {
    if (!owned.delete(key)) return;
    log.warn({ conversation: key }, why);
    lost(key);
  };
  const expire = (): void => {
    for (const [key, until] of owned) if (until <= Date.now()) drop(key, 'conversation lease ran out unrenewed');
  };
  /** Expires the first lease to run out when it does (a renewal moving it on makes that a no-op). */
  const arm = (): void => {
    clearTimeout(expiry);
    let first = Infinity; // a loop, not Math.min(...): a replica may own more leases than a call takes arguments
    for (const until of owned.values()) if (until < first) first = until;
    if (!Number.isFinite(first)) return;
    expiry = setTimeout(expire, Math.max(0, first - Date.now()));
    expiry.unref();
  };
  return {
    sweepMs: o.sweepMs ?? 2000,
    owns,
    fenceOf: (key) => ({ lease: leaseName(key), holder: o.holder }),
    async claim(key) {
      if (owns(key)) return true;
      const sent = Date.now();
      const fence = await o.leases.acquire(leaseName(key), o.holder, ttlMs);
      if (fence === undefined) {
        drop(key, 'conversation lease lost to another replica'); // ran out here, then taken
        return false;
      }
      owned.set(key, sent + ttlMs);
      return true;
    },
    async release(key) {
      if (!owned.delete(key)) return;
      await o.leases.release(leaseName(key), o.holder);
    },
    start(onLost) {
      lost = onLost;
      timer = setInterval(() => {
        expire();
        for (const key of owned.keys()) {
          const sent = Date.now();
          void o.leases.acquire(leaseName(key), o.holder, ttlMs).then(
            (fence) => {
              if (fence === undefined) return drop(key, 'conversation lease lost to another replica');
              const until = owned.get(key); // a later renewal may have landed first
              if (until !== undefined) owned.set(key, Math.max(until, sent + ttlMs));
            },
            (e: unknown) => log.warn({ conversation: key, err: errorMessage(e) }, 'conversation lease not renewed'),
          );
        }
        arm();
      }, ttlMs / 3);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      clearTimeout(expiry);
      const keys = [...owned.keys()];
      owned.clear();
      await Promise.allSettled(keys.map((k) => o.leases.release(leaseName(k), o.holder)));
    },
  };
}
