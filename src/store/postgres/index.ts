// The PostgreSQL backend: the same Store contract as the file backend, for teams that run several
// gateway replicas on one database. `openPostgresStore` connects and migrates before it resolves.
// Keys, defaults and the other shared rules are the wrapper's (validated.ts): the rows here assume
// checked input.
import type { Store, StoreOptions } from '../types.ts';
import { type BackendStore, type ResolvedStoreOptions, validated, withDefaults } from '../validated.ts';
import { createPgAdminSessions } from './admin-sessions.ts';
import { createPgApprovals } from './approvals.ts';
import { createPgChannelLog } from './channel-log.ts';
import { createPgConversations } from './conversations.ts';
import { createDb, type Db } from './db.ts';
import { createPgDelivery, pruneFailedOutbox } from './delivery.ts';
import { createPgHookDeliveries } from './hook-deliveries.ts';
import { createPgJobs } from './jobs.ts';
import { createPgKv } from './kv.ts';
import { createPgLeases } from './leases.ts';
import { createPgMemories } from './memories.ts';
import { migrate } from './migrations.ts';
import { createPgRateGates } from './rate-gates.ts';
import { createPgUsage } from './usage.ts';
import { createPgWebDisplay } from './web-display.ts';
import { createPgWebSessions } from './web-sessions.ts';

export { describeUrl } from './db.ts';
export { MIGRATIONS } from './migrations.ts';

/** A store on an open pool whose schema is current. */
export function createPostgresStore(db: Db, opts: StoreOptions = {}): Store {
  return validated(build(db, withDefaults(opts)));
}

function build(db: Db, opts: ResolvedStoreOptions): BackendStore {
  const { now } = opts;
  return {
    conversations: createPgConversations(db, now),
    delivery: createPgDelivery(db, now, opts.dedupe, opts.failedOutbox),
    kv: createPgKv(db),
    jobs: createPgJobs(db, opts.jobLogLimit),
    memories: createPgMemories(db),
    channelLog: createPgChannelLog(db),
    leases: createPgLeases(db),
    rateGates: createPgRateGates(db),
    usage: createPgUsage(db),
    approvals: createPgApprovals(db, now),
    hookDeliveries: createPgHookDeliveries(db, now),
    webSessions: createPgWebSessions(db, now),
    adminSessions: createPgAdminSessions(db, now),
    webDisplay: createPgWebDisplay(db, now),
    close: () => db.close(),
  };
}

/**
 * Connects to `url`, applies the migrations this database lacks (under an advisory lock, so
 * replicas starting together apply each once) and returns the store.
 * @example const store = await openPostgresStore(process.env.BOXBOT_DATABASE_URL, { logger });
 */
export async function openPostgresStore(url: string, opts: StoreOptions = {}): Promise<Store> {
  const o = withDefaults(opts);
  const db = createDb(url);
  try {
    const applied = await db.session(migrate);
    if (applied.length) o.logger.info({ versions: applied }, 'database schema migrated');
    // Failed replies that expired while boxbot was down go now, as the file backend's do at start
    // (while running, with the next failure).
    await pruneFailedOutbox((sql, params) => db.query(sql, params), o.now(), o.failedOutbox);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return validated(build(db, o));
}
