// One leader among the replicas on a shared store, for the work only one may do: the scheduler,
// long polling, a gateway websocket, Socket Mode. The lease is renewed every `everyMs`; a leader
// that cannot renew (a lost database, a long pause) steps down after half of `ttlMs`, before
// another replica can take the lease, so two never lead at once by their own account, and the
// fence tells a late write from a deposed leader apart (job tick claims do the same for runs).
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { LeaseStore } from '../store/index.ts';

/** Options of `createLeadership`. */
export interface LeadershipOptions {
  leases: LeaseStore;
  /** This process's id among the replicas (unique; e.g. host, pid and a random part). */
  holder: string;
  /** Lease name (default `leader`). */
  name?: string;
  /** How long a lease lasts unrenewed (default 6 s: a dead leader is replaced within about 8 s). */
  ttlMs?: number;
  /** How often the lease is taken or renewed (default 2 s). */
  everyMs?: number;
  /** Called when this replica becomes leader, with the fence; awaited before the next renewal. */
  onLead(fence: number): Promise<void>;
  /** Called when this replica stops leading (lost lease, stop). */
  onFollow(): Promise<void>;
  log: Logger;
}

/** A running election. */
export interface Leadership {
  /** Whether this replica leads now. */
  leading(): boolean;
  /** Tries once at once, then keeps trying every `everyMs`. */
  start(): Promise<void>;
  /** Steps down (if leading), releases the lease so another replica takes over at once, and stops trying. */
  stop(): Promise<void>;
}

/** Joins the election for `name`. */
export function createLeadership(o: LeadershipOptions): Leadership {
  const name = o.name ?? 'leader';
  const ttlMs = o.ttlMs ?? 6000;
  const everyMs = o.everyMs ?? 2000;
  let fence: number | undefined;
  let heldSince = 0; // when the last successful acquire was asked (its lease runs ttlMs from then)
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let round: Promise<void> = Promise.resolve();

  async function stepDown(why: string): Promise<void> {
    if (fence === undefined) return;
    fence = undefined;
    o.log.warn({ lease: name, why }, 'no longer the leader');
    await o.onFollow().catch((e: unknown) => o.log.error({ err: errorMessage(e) }, 'stepping down failed'));
  }

  async function once(): Promise<void> {
    const asked = Date.now();
    let got: number | undefined;
    try {
      got = await o.leases.acquire(name, o.holder, ttlMs);
    } catch (e) {
      // Unknown whether the lease was renewed: lead on only while the last one surely runs, with
      // half the lease to spare (timers run late on a busy machine; fencing covers the rest).
      if (fence !== undefined && Date.now() - heldSince > ttlMs / 2)
        await stepDown(`the lease could not be renewed: ${errorMessage(e)}`);
      else o.log.warn({ lease: name, err: errorMessage(e) }, 'lease not renewed; trying again');
      return;
    }
    if (stopped) return;
    if (got === undefined) {
      await stepDown('another replica holds the lease');
      return;
    }
    heldSince = asked;
    if (fence === got) return;
    fence = got;
    o.log.info({ lease: name, fence: got }, 'this replica leads');
    try {
      await o.onLead(got);
    } catch (e) {
      // A leader that could not take up its work (a connection refused) hands the lease on
      // rather than leading with nothing running; a later round may take it again.
      o.log.error({ lease: name, err: errorMessage(e) }, 'could not take up the leader work');
      await stepDown('taking up the leader work failed');
      await o.leases.release(name, o.holder).catch(() => {});
    }
  }

  function schedule(): void {
    timer = setTimeout(() => {
      round = once().finally(() => {
        if (!stopped) schedule();
      });
    }, everyMs);
    timer.unref();
  }

  return {
    leading: () => fence !== undefined,
    async start() {
      round = once();
      await round;
      if (!stopped) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
      const was = fence !== undefined;
      await stepDown('stopping');
      if (was) await o.leases.release(name, o.holder).catch(() => {});
    },
  };
}
