// Who may use /admin and its JSON API: a Bearer admin token (scripts), a dashboard session made by
// signing in with that token (browsers), or a signed-in identity named in the config's `admins`
// (through `identityOf`, which the web sign-in supplies). The session cookie holds a random id,
// never the token; sessions live in the store (by the id's SHA-256), so replicas share them and a
// restart keeps them, and expire after `idleMs` unused or `maxAgeMs` in all. Failed sign-ins are
// counted per address in the store too, so a guesser spreading tries over replicas gets no more
// of them. Requests that change something and ride on a cookie must come from the dashboard's
// own origin (Origin, else Sec-Fetch-Site) and carry the session's CSRF token in `x-boxbot-csrf`:
// another site can make a browser send the cookie, not read the token.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { UserKey } from '../adapters/index.ts';
import { constantTimeEqual } from '../core/constant-time-equal.ts';
import { type AdminSessionStore, createMemoryStore, type KvStore } from '../store/index.ts';

/** The dashboard's session cookie (scoped to /admin). */
export const ADMIN_COOKIE = 'boxbot_admin';
/** The header that carries the CSRF token on requests that change something. */
export const CSRF_HEADER = 'x-boxbot-csrf';

/** How a request proved it is an admin. */
export type AdminPrincipal =
  | { via: 'token' }
  | { via: 'session'; sessionId: string; csrf: string }
  | { via: 'identity'; identity: UserKey; csrf: string };

/** What the access check needs. */
export interface AdminAuthOptions {
  /** BOXBOT_ADMIN_TOKEN; without it, only `identityOf` admins get in. */
  token?: string;
  /** The config's `admins` (`telegram:4242`, `slack:T1:U1`, or a bare user id). */
  admins: readonly string[];
  /** The platform identity a browser signed in as (the web sign-in); default: none. */
  identityOf?: (req: IncomingMessage) => Promise<UserKey | undefined>;
  /** A session unused this long ends (default 30 minutes). */
  idleMs?: number;
  /** A session ends this long after sign-in whatever its use (default 8 hours). */
  maxAgeMs?: number;
  /** Failed sign-ins per address per minute before further tries are refused (default 10). */
  maxFailuresPerMinute?: number;
  /** Where sessions and failed sign-ins are kept (the store's `adminSessions`); default: this process's memory. */
  sessions?: AdminSessionStore;
  /** Most live sessions; past it, signing in ends the oldest (default 1000). */
  maxSessions?: number;
  /**
   * The key the CSRF tokens of identity sign-ins are made with, the same on every replica (see
   * `storedCsrfKey`); default: a random key of this process.
   */
  csrfKey?: () => Promise<string>;
  now?: () => number;
}

/** The dashboard's sessions and the access check. */
export interface AdminAuth {
  /** Exchanges the admin token for a session; undefined when the token is wrong or the address tried too often. */
  signIn(
    given: string,
    address: string,
  ): Promise<{ sessionId: string; csrf: string; maxAgeSeconds: number } | 'refused' | 'limited'>;
  signOut(sessionId: string): Promise<void>;
  /** The admin behind `req`, or undefined. */
  principal(req: Request): Promise<AdminPrincipal | undefined>;
  /**
   * Express middleware: 401/403 unless `req` is an admin (and, for cookie requests that change
   * things, same-origin with the CSRF token).
   */
  require(): (req: Request, res: Response, next: NextFunction) => void;
  /** Live sessions (for tests and the overview). */
  size(): Promise<number>;
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** Whether `identity` is named in `admins` (full key, or a bare user id as the chat commands accept). */
export function isAdminIdentity(admins: readonly string[], identity: UserKey): boolean {
  const bare = identity.slice(identity.indexOf(':') + 1);
  return admins.some((a) => a === identity || a === bare);
}

/** True when the browser says the request comes from the page's own origin. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }
  return req.headers['sec-fetch-site'] === 'same-origin';
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Creates the access check and the session table. */
export function createAdminAuth(o: AdminAuthOptions): AdminAuth {
  const now = o.now ?? Date.now;
  const idleMs = o.idleMs ?? 30 * 60_000;
  const maxAgeMs = o.maxAgeMs ?? 8 * 3600_000;
  const maxFailures = o.maxFailuresPerMinute ?? 10;
  const maxSessions = o.maxSessions ?? 1000;
  const sessions = o.sessions ?? createMemoryStore({ now }).adminSessions;
  const hashOf = (id: string) => createHash('sha256').update(id).digest('hex');
  // CSRF tokens of identity sign-ins: stable per identity within this process, unguessable outside it.
  const ownKey = randomBytes(32).toString('base64url');
  const csrfKey = o.csrfKey ?? (async () => ownKey);
  const identityCsrf = async (k: UserKey) =>
    createHmac('sha256', await csrfKey())
      .update(`csrf:${k}`)
      .digest('base64url');

  const MINUTE = 60_000;
  const auth: AdminAuth = {
    async signIn(given, address) {
      if ((await sessions.failures(address, MINUTE)) >= maxFailures) return 'limited';
      if (!o.token || !constantTimeEqual(given, o.token)) {
        await sessions.addFailure(address, MINUTE);
        return 'refused';
      }
      const sessionId = randomBytes(32).toString('base64url');
      const csrf = randomBytes(24).toString('base64url');
      const at = now();
      await sessions.create(
        { idHash: hashOf(sessionId), csrf, createdAt: at, lastUsedAt: at, expiresAt: at + maxAgeMs },
        maxSessions,
      );
      return { sessionId, csrf, maxAgeSeconds: Math.floor(maxAgeMs / 1000) };
    },
    signOut: async (id) => void (await sessions.remove(hashOf(id))),
    async principal(req) {
      const header = req.headers.authorization ?? '';
      if (o.token && header.startsWith('Bearer ') && constantTimeEqual(header.slice(7), o.token))
        return { via: 'token' };
      const id = cookieValue(req.headers.cookie, ADMIN_COOKIE);
      const s = id ? await sessions.use(hashOf(id), idleMs) : undefined;
      if (id && s) return { via: 'session', sessionId: id, csrf: s.csrf };
      const identity = await o.identityOf?.(req).catch(() => undefined);
      if (identity && isAdminIdentity(o.admins, identity))
        return { via: 'identity', identity, csrf: await identityCsrf(identity) };
      return undefined;
    },
    require() {
      return (req, res, next) => {
        auth.principal(req).then(
          (p) => {
            if (!p) {
              // Off: no token, and nobody who could sign in as one of the config's admins.
              const off = !o.token && (!o.identityOf || o.admins.length === 0);
              return void res.status(off ? 403 : 401).json({
                error: off
                  ? 'the admin API is off: set BOXBOT_ADMIN_TOKEN and restart'
                  : 'admin API: missing or wrong bearer token (or sign in at /admin)',
              });
            }
            if (p.via !== 'token' && MUTATING.has(req.method)) {
              if (!sameOrigin(req))
                return void res.status(403).json({ error: 'refused: not from the dashboard origin' });
              const given = req.headers[CSRF_HEADER];
              if (typeof given !== 'string' || !constantTimeEqual(given, p.csrf))
                return void res.status(403).json({ error: `refused: missing or wrong ${CSRF_HEADER} header` });
            }
            res.locals.admin = p;
            next();
          },
          (e: unknown) => next(e),
        );
      };
    },
    size: () => sessions.count(),
  };
  return auth;
}

const CSRF_KEY = 'admin.csrfKey';

/**
 * The CSRF key of identity sign-ins kept in the store's kv, so every replica (and a restart) makes
 * the same token for an identity: made at random by the first to need it. Read again at most once a
 * minute: two replicas starting at once may each write one, and the last written wins for both.
 */
export function storedCsrfKey(kv: KvStore, now: () => number = Date.now): () => Promise<string> {
  let cached: { key: string; at: number } | undefined;
  return async () => {
    if (cached && now() - cached.at < 60_000) return cached.key;
    let key = await kv.get(CSRF_KEY);
    if (typeof key !== 'string' || key.length < 32) {
      key = randomBytes(32).toString('base64url');
      await kv.set(CSRF_KEY, key);
    }
    cached = { key, at: now() };
    return key;
  };
}

/** Who the principal is, in words for the dashboard. */
export function principalName(p: AdminPrincipal): string {
  return p.via === 'identity' ? p.identity : p.via === 'token' ? 'admin token' : 'admin token (session)';
}
