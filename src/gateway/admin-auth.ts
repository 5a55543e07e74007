// Who may use /admin and its JSON API: a Bearer admin token (scripts), a dashboard session made by
// signing in with that token (browsers), or a signed-in identity named in the config's `admins`
// (through `identityOf`, which the web sign-in supplies). The session cookie holds a random id,
// never the token; sessions live in this process only and expire after `idleMs` unused or
// `maxAgeMs` in all. Requests that change something and ride on a cookie must come from the
// dashboard's own origin (Origin, else Sec-Fetch-Site) and carry the session's CSRF token in
// `x-boxbot-csrf`: another site can make a browser send the cookie, not read the token.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { UserKey } from '../adapters/index.ts';
import { constantTimeEqual } from '../core/constant-time-equal.ts';

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
  now?: () => number;
}

/** The dashboard's sessions and the access check. */
export interface AdminAuth {
  /** Exchanges the admin token for a session; undefined when the token is wrong or the address tried too often. */
  signIn(
    given: string,
    address: string,
  ): { sessionId: string; csrf: string; maxAgeSeconds: number } | 'refused' | 'limited';
  signOut(sessionId: string): void;
  /** The admin behind `req`, or undefined. */
  principal(req: Request): Promise<AdminPrincipal | undefined>;
  /**
   * Express middleware: 401/403 unless `req` is an admin (and, for cookie requests that change
   * things, same-origin with the CSRF token).
   */
  require(): (req: Request, res: Response, next: NextFunction) => void;
  /** Live sessions (for tests and the overview). */
  size(): number;
}

interface Session {
  csrf: string;
  created: number;
  lastUsed: number;
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
  const sessions = new Map<string, Session>();
  const failures = new Map<string, { count: number; since: number }>();
  // CSRF tokens of identity sign-ins: stable per identity within this process, unguessable outside it.
  const csrfKey = randomBytes(32);
  const identityCsrf = (k: UserKey) => createHmac('sha256', csrfKey).update(`csrf:${k}`).digest('base64url');

  const live = (id: string): Session | undefined => {
    const s = sessions.get(id);
    if (!s) return undefined;
    const t = now();
    if (t - s.lastUsed > idleMs || t - s.created > maxAgeMs) {
      sessions.delete(id);
      return undefined;
    }
    s.lastUsed = t;
    return s;
  };
  const limited = (address: string): boolean => {
    const f = failures.get(address);
    if (!f || now() - f.since > 60_000) return false;
    return f.count >= maxFailures;
  };
  const fail = (address: string) => {
    const f = failures.get(address);
    if (!f || now() - f.since > 60_000) failures.set(address, { count: 1, since: now() });
    else f.count++;
    if (failures.size > 10_000) failures.clear(); // a flood of addresses: forget, never grow without bound
  };

  const auth: AdminAuth = {
    signIn(given, address) {
      if (limited(address)) return 'limited';
      if (!o.token || !constantTimeEqual(given, o.token)) {
        fail(address);
        return 'refused';
      }
      for (const id of [...sessions.keys()]) live(id); // sweeps the expired ones
      if (sessions.size >= 1000) sessions.delete(sessions.keys().next().value!);
      const sessionId = randomBytes(32).toString('base64url');
      const csrf = randomBytes(24).toString('base64url');
      sessions.set(sessionId, { csrf, created: now(), lastUsed: now() });
      return { sessionId, csrf, maxAgeSeconds: Math.floor(maxAgeMs / 1000) };
    },
    signOut: (id) => void sessions.delete(id),
    async principal(req) {
      const header = req.headers.authorization ?? '';
      if (o.token && header.startsWith('Bearer ') && constantTimeEqual(header.slice(7), o.token))
        return { via: 'token' };
      const id = cookieValue(req.headers.cookie, ADMIN_COOKIE);
      const s = id ? live(id) : undefined;
      if (id && s) return { via: 'session', sessionId: id, csrf: s.csrf };
      const identity = await o.identityOf?.(req).catch(() => undefined);
      if (identity && isAdminIdentity(o.admins, identity))
        return { via: 'identity', identity, csrf: identityCsrf(identity) };
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
    size: () => sessions.size,
  };
  return auth;
}

/** Who the principal is, in words for the dashboard. */
export function principalName(p: AdminPrincipal): string {
  return p.via === 'identity' ? p.identity : p.via === 'token' ? 'admin token' : 'admin token (session)';
}
