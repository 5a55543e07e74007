// The dashboard's sign-in state: its sessions (kept by the SHA-256 of the cookie's id, so a copy
// of the store signs nobody in) and the failed sign-ins per address (the rate limit). In the store,
// not in one process, so replicas on one database share both and a restart signs nobody out. Both
// are few (admins, and addresses that failed this minute): one document each on the file backend
// (`admin-sessions.json`, `admin-sign-in-failures.json`), a table each on PostgreSQL.
import { z } from 'zod';
import { constantTimeEqual } from '../core/constant-time-equal.ts';
import { type DocSpec, type Documents, UNCHANGED } from './documents.ts';

/** A signed-in dashboard browser. */
export interface AdminSession {
  /** SHA-256 of the cookie's session id, hex. */
  idHash: string;
  /** The CSRF token its changing requests carry (worth nothing without the cookie). */
  csrf: string;
  createdAt: number;
  /**
   * Moved on use, at most once a minute (ADMIN_SESSION_TOUCH_MS) or a quarter of the idle limit if
   * shorter: the idle limit is that coarse.
   */
  lastUsedAt: number;
  /** The latest it may be used, whatever its use. */
  expiresAt: number;
}

/** How often a session's use is written (a request within this of the last write writes nothing). */
export const ADMIN_SESSION_TOUCH_MS = 60_000;
/** Most addresses whose failed sign-ins are remembered; past it the oldest are forgotten. */
export const ADMIN_FAILURE_ADDRESSES = 10_000;

/** Dashboard sessions and failed sign-ins. */
export interface AdminSessionStore {
  /** Keeps a new session; expired ones go, and past `maxSessions` live ones the oldest go first. */
  create(session: AdminSession, maxSessions: number): Promise<void>;
  /** The unexpired session whose id hashes to `idHash`, unless unused for `idleMs` (then removed); marks it used. */
  use(idHash: string, idleMs: number): Promise<AdminSession | undefined>;
  /** Ends a session; false when there was none. */
  remove(idHash: string): Promise<boolean>;
  /** Live sessions. */
  count(): Promise<number>;
  /**
   * Counts one failed sign-in from `address` and returns its failures in the current window: one
   * that began over `windowMs` ago starts again at this failure.
   */
  addFailure(address: string, windowMs: number): Promise<number>;
  /** Failed sign-ins from `address` in its current window (0 once the window is over). */
  failures(address: string, windowMs: number): Promise<number>;
}

const sessionSchema = z.object({
  idHash: z.string(),
  csrf: z.string(),
  createdAt: z.number(),
  lastUsedAt: z.number(),
  expiresAt: z.number(),
});
const failureSchema = z.object({ address: z.string(), since: z.number(), count: z.number() });
const SESSIONS: DocSpec = {
  path: 'admin-sessions.json',
  schema: z.object({ sessions: z.array(sessionSchema) }).passthrough(),
};
const FAILURES: DocSpec = {
  path: 'admin-sign-in-failures.json',
  schema: z.object({ failures: z.array(failureSchema) }).passthrough(),
};
type SessionDoc = { sessions: AdminSession[] };
type Failure = z.infer<typeof failureSchema>;
type FailureDoc = { failures: Failure[] };

/** Whether a use of `s` at `at` is written: at most once a minute, and often enough for a short idle limit. */
export const adminTouchDue = (s: AdminSession, at: number, idleMs: number): boolean =>
  at - s.lastUsedAt >= Math.min(ADMIN_SESSION_TOUCH_MS, idleMs / 4);

/** Whether `s` may be used at `at` (not expired, not idle past `idleMs`). */
export const adminSessionLive = (s: AdminSession, at: number, idleMs: number): boolean =>
  s.expiresAt > at && at - s.lastUsedAt <= idleMs;

/** The dashboard's sign-in state as documents (files and memory backends). */
export function createAdminSessions(docs: Documents, now: () => number): AdminSessionStore {
  const unexpired = (doc: SessionDoc | undefined, at: number) => (doc?.sessions ?? []).filter((s) => s.expiresAt > at);
  return {
    async create(session, maxSessions) {
      await docs.update<SessionDoc>(SESSIONS, (cur) => {
        const kept = unexpired(cur, now()).sort((a, b) => a.createdAt - b.createdAt);
        return { sessions: [...kept.slice(Math.max(0, kept.length - maxSessions + 1)), session] };
      });
    },
    async use(idHash, idleMs) {
      const at = now();
      const found = (await docs.read<SessionDoc>(SESSIONS))?.sessions.find((s) => constantTimeEqual(s.idHash, idHash));
      if (!found) return undefined;
      if (!adminSessionLive(found, at, idleMs)) {
        // Ended: gone from the document (and from `count`), unless used meanwhile by another process.
        await docs.update<SessionDoc>(SESSIONS, (cur) => {
          const kept = (cur?.sessions ?? []).filter(
            (x) => x.idHash !== found.idHash || x.lastUsedAt !== found.lastUsedAt,
          );
          return kept.length === cur?.sessions.length ? UNCHANGED : { sessions: kept };
        });
        return undefined;
      }
      if (!adminTouchDue(found, at, idleMs)) return found;
      let used: AdminSession | undefined;
      await docs.update<SessionDoc>(SESSIONS, (cur) => {
        const s = cur?.sessions.find((x) => x.idHash === found.idHash);
        if (!s || !adminSessionLive(s, at, idleMs)) return UNCHANGED; // signed out meanwhile
        used = { ...s, lastUsedAt: at };
        return { sessions: unexpired(cur, at).map((x) => (x.idHash === s.idHash ? used! : x)) };
      });
      return used;
    },
    async remove(idHash) {
      let found = false;
      await docs.update<SessionDoc>(SESSIONS, (cur) => {
        const all = cur?.sessions ?? [];
        const kept = all.filter((s) => !constantTimeEqual(s.idHash, idHash));
        found = kept.length < all.length;
        return found ? { sessions: kept } : UNCHANGED;
      });
      return found;
    },
    async count() {
      return unexpired(await docs.read<SessionDoc>(SESSIONS), now()).length;
    },
    async addFailure(address, windowMs) {
      let count = 0;
      await docs.update<FailureDoc>(FAILURES, (cur) => {
        const at = now();
        const current = (cur?.failures ?? []).filter((f) => at - f.since <= windowMs);
        const mine = current.find((f) => f.address === address);
        count = (mine?.count ?? 0) + 1;
        const others = current.filter((f) => f !== mine).sort((a, b) => a.since - b.since);
        const room = others.slice(Math.max(0, others.length - ADMIN_FAILURE_ADDRESSES + 1));
        return { failures: [...room, { address, since: mine?.since ?? at, count }] };
      });
      return count;
    },
    async failures(address, windowMs) {
      const at = now();
      const f = (await docs.read<FailureDoc>(FAILURES))?.failures.find((x) => x.address === address);
      return f && at - f.since <= windowMs ? f.count : 0;
    },
  };
}
