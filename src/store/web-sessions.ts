// The web chat's sign-in state: one-time login links (only their SHA-256 hashes are kept) and the
// browser sessions they open (kept by the hash of the cookie's secret, so a copy of the store
// signs nobody in). Both are few (people, not conversations): one document each
// (`web-logins.json`, `web-sessions.json`) on the file backend, a table each on PostgreSQL.
import { z } from 'zod';
import { constantTimeEqual } from '../core/constant-time-equal.ts';
import type { DocSpec, Documents } from './documents.ts';

/** A one-time login link as kept: the hash of its token, whom it signs in, until when. */
export interface WebLogin {
  /** SHA-256 of the token, hex. */
  tokenHash: string;
  /** The user key it signs in as (`telegram:4242`, `web:ana`). */
  identity: string;
  createdAt: number;
  expiresAt: number;
}

/** A signed-in browser. */
export interface WebSession {
  /** A public id (listing, revoking); not the cookie's secret. */
  id: string;
  /** SHA-256 of the cookie's secret, hex. */
  secretHash: string;
  identity: string;
  createdAt: number;
  expiresAt: number;
  /** The browser's User-Agent as it signed in (capped), to tell sessions apart in a list. */
  userAgent?: string;
}

/** Login links and browser sessions of the web chat. */
export interface WebSessionStore {
  /** Keeps a new login link. */
  addLogin(login: WebLogin): Promise<void>;
  /**
   * Uses up the login whose token hashes to `tokenHash`: its record the first time, while it has
   * not expired; undefined otherwise. Exactly one caller wins across every process on the store.
   */
  redeemLogin(tokenHash: string): Promise<WebLogin | undefined>;
  /** Keeps a new session. */
  createSession(session: WebSession): Promise<void>;
  /** The unexpired session whose secret hashes to `secretHash`. */
  sessionBySecret(secretHash: string): Promise<WebSession | undefined>;
  /** Unexpired sessions, newest first (all, or one identity's). */
  listSessions(identity?: string): Promise<WebSession[]>;
  /** Ends the session `id`; false when there was none. */
  revokeSession(id: string): Promise<boolean>;
  /** Ends every session of `identity` and drops its unused logins; the number of sessions ended. */
  revokeIdentity(identity: string): Promise<number>;
}

const loginSchema = z.object({
  tokenHash: z.string(),
  identity: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
});
const sessionSchema = z.object({
  id: z.string(),
  secretHash: z.string(),
  identity: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  userAgent: z.string().optional(),
});
// `boxbot web invite` and `web revoke` write these beside the running gateway: updates take the
// files' cross-process locks, or one process's write would drop the other's.
const LOGINS: DocSpec = {
  path: 'web-logins.json',
  schema: z.object({ logins: z.array(loginSchema) }).passthrough(),
  shared: true,
};
const SESSIONS: DocSpec = {
  path: 'web-sessions.json',
  schema: z.object({ sessions: z.array(sessionSchema) }).passthrough(),
  shared: true,
};
type LoginDoc = { logins: WebLogin[] };
type SessionDoc = { sessions: WebSession[] };

/** Newest first. */
export const newestFirst = (a: WebSession, b: WebSession) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1);

/** The web sign-in state as documents (files and memory backends). */
export function createWebSessions(docs: Documents, now: () => number): WebSessionStore {
  const liveSessions = (doc: SessionDoc | undefined, at: number) =>
    (doc?.sessions ?? []).filter((s) => s.expiresAt > at);
  return {
    async addLogin(login) {
      await docs.update<LoginDoc>(LOGINS, (cur) => ({
        logins: [...(cur?.logins ?? []).filter((l) => l.expiresAt > now()), login],
      }));
    },
    async redeemLogin(tokenHash) {
      let won: WebLogin | undefined;
      // The update runs under the document's lock: of two redeemers, the second sees it gone.
      await docs.update<LoginDoc>(LOGINS, (cur) => {
        const at = now();
        const kept: WebLogin[] = [];
        for (const l of cur?.logins ?? []) {
          if (l.expiresAt <= at) continue;
          if (!won && constantTimeEqual(l.tokenHash, tokenHash)) won = l;
          else kept.push(l);
        }
        return { logins: kept };
      });
      return won;
    },
    async createSession(session) {
      await docs.update<SessionDoc>(SESSIONS, (cur) => ({ sessions: [...liveSessions(cur, now()), session] }));
    },
    async sessionBySecret(secretHash) {
      const doc = await docs.read<SessionDoc>(SESSIONS);
      return liveSessions(doc, now()).find((s) => constantTimeEqual(s.secretHash, secretHash));
    },
    async listSessions(identity) {
      const doc = await docs.read<SessionDoc>(SESSIONS);
      return liveSessions(doc, now())
        .filter((s) => identity === undefined || s.identity === identity)
        .sort(newestFirst);
    },
    async revokeSession(id) {
      let found = false;
      await docs.update<SessionDoc>(SESSIONS, (cur) => {
        const all = liveSessions(cur, now());
        const kept = all.filter((s) => s.id !== id);
        found = kept.length < all.length;
        return { sessions: kept };
      });
      return found;
    },
    async revokeIdentity(identity) {
      let ended = 0;
      await docs.update<SessionDoc>(SESSIONS, (cur) => {
        const all = liveSessions(cur, now());
        const kept = all.filter((s) => s.identity !== identity);
        ended = all.length - kept.length;
        return { sessions: kept };
      });
      await docs.update<LoginDoc>(LOGINS, (cur) => ({
        logins: (cur?.logins ?? []).filter((l) => l.identity !== identity && l.expiresAt > now()),
      }));
      return ended;
    },
  };
}
