// Who may use the web chat's HTTP routes: the Host check (no DNS rebinding), a signed-in session
// (sign-in.ts) or, on loopback, the browser cookie of the one local user; beyond loopback without
// a session, only the operator's access token. Then the per-process page token, and ownership of
// a conversation (`<owner>-<tab>`: owner = digest of the signed-in identity, else of the browser
// cookie's secret).
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { constantTimeEqual } from '../../core/constant-time-equal.ts';
import type { UserKey } from '../identity.ts';
import { decodeUserKey, encodeUserKey } from '../identity.ts';
import { SESSION_RULE, WEB_ID } from './normalize.ts';
import { identityOwner, type SessionRecord, signInHelp } from './sign-in.ts';

/** The cookie holding the browser secret. */
export const BROWSER_COOKIE = 'boxbot_browser';
const SECRET = /^[A-Za-z0-9_-]{32,64}$/;
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i;

/** The owner prefix of a browser's session ids: 16 characters of the digest of its secret. */
export function sessionOwner(browserSecret: string): string {
  return createHash('sha256').update(`boxbot-web-session:${browserSecret}`).digest('base64url').slice(0, 16);
}

/** The browser secret of a request's cookie, if it has a well-formed one. */
export function browserSecretOf(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === BROWSER_COOKIE) {
      const v = part.slice(at + 1).trim();
      return SECRET.test(v) ? v : undefined;
    }
  }
  return undefined;
}

/** Whether a request's Host header names this machine (a DNS-rebinding page arrives with its own name). */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  return LOOPBACK_HOST.test(host ?? '');
}

/** Who a request comes from. */
export interface Viewer {
  /** The owner prefix of its conversations; undefined for a local browser without its cookie yet. */
  owner: string | undefined;
  /** The identity it signed in as. */
  identity?: UserKey;
  /** Its session's public id. */
  sessionId?: string;
}

/** The checks of one adapter instance. */
export interface HttpGuard {
  /**
   * Refuses requests from foreign Hosts, beyond loopback those neither signed in nor carrying the
   * access token (a page saying how to sign in when `page`), and without the page token when
   * `apiToken`; else who is asking.
   */
  check(req: Request, res: Response, o: { apiToken: boolean; page?: boolean }): Promise<Viewer | undefined>;
  /** Refuses (403) a viewer without an owner (no browser cookie: reload the page). */
  ownerOf(viewer: Viewer, res: Response): string | undefined;
  /**
   * Refuses (403) a request for `sessionId` that `viewer` does not own; else the owner, who is
   * the web chat's user (memory, budgets and approvals are theirs).
   */
  owns(viewer: Viewer, res: Response, sessionId: string): string | undefined;
  /** The `session` query of `req`, when well-formed and `viewer`'s own; else answered (400/403) and undefined. */
  ownedSession(req: Request, res: Response, viewer: Viewer): string | undefined;
}

/** Creates the checks for an adapter with `apiToken` (and `accessToken` when exposed). */
export function httpGuard(o: {
  apiToken: string;
  accessToken?: string;
  anyHost?: boolean;
  sessionOf?: (req: Request) => Promise<SessionRecord | undefined>;
}): HttpGuard {
  const ownerOf = (viewer: Viewer, res: Response): string | undefined => {
    if (viewer.owner) return viewer.owner;
    res.status(403).json({ error: 'web chat: no browser cookie: reload the page' });
    return undefined;
  };
  const signedIn = async (req: Request, res: Response): Promise<Viewer | undefined | 'failed'> => {
    try {
      const s = await o.sessionOf?.(req);
      if (!s) return undefined;
      const identity = encodeUserKey(decodeUserKey(s.identity));
      return { owner: identityOwner(identity), identity, sessionId: s.id };
    } catch {
      res.status(503).json({ error: 'web chat: sessions cannot be read now, try again' });
      return 'failed';
    }
  };
  const owns = (viewer: Viewer, res: Response, sessionId: string): string | undefined => {
    const owner = ownerOf(viewer, res);
    if (!owner) return undefined;
    if (!sessionId.startsWith(`${owner}-`)) {
      res.status(403).json({ error: 'web chat: this conversation belongs to another user' });
      return undefined;
    }
    return owner;
  };
  return {
    ownerOf,
    owns,
    ownedSession(req, res, viewer) {
      const id = String(req.query.session ?? '');
      if (!WEB_ID.test(id)) return void res.status(400).json({ error: SESSION_RULE });
      return owns(viewer, res, id) ? id : undefined;
    },
    async check(req, res, c) {
      const host = req.headers.host ?? '';
      if (!o.anyHost && !isLoopbackHostHeader(host)) {
        res
          .status(403)
          .type('text/plain')
          .send(`web chat: refused Host ${JSON.stringify(host)}: open it as http://127.0.0.1:<port>/`);
        return undefined;
      }
      const session = await signedIn(req, res);
      if (session === 'failed') return undefined;
      let viewer: Viewer | undefined = session;
      if (!viewer) {
        if (o.accessToken) {
          const given = String(req.query.access ?? req.headers['x-boxbot-access'] ?? '');
          if (!constantTimeEqual(given, o.accessToken)) {
            if (c.page) signInHelp(res);
            else res.status(401).json({ error: 'web chat: not signed in: send /web in your chat with the bot' });
            return undefined;
          }
        }
        const secret = browserSecretOf(req);
        viewer = { owner: secret ? sessionOwner(secret) : undefined };
      }
      if (c.apiToken) {
        const given = String(req.headers['x-boxbot-token'] ?? req.query.token ?? '');
        if (!constantTimeEqual(given, o.apiToken)) {
          res.status(401).json({ error: 'missing or wrong page token: reload the page' });
          return undefined;
        }
      }
      return viewer;
    },
  };
}
