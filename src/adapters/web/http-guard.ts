// Who may use the web chat's HTTP routes: the Host check (no DNS rebinding), the access token
// when the server is reachable beyond loopback, the per-process page token, and the browser
// cookie that owns a session (`<owner>-<tab>`, owner = digest of the cookie's secret).
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { constantTimeEqual } from '../../core/constant-time-equal.ts';

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

/** The checks of one adapter instance. */
export interface HttpGuard {
  /** Refuses requests from foreign Hosts and without the access token (and the page token when asked). */
  allowed(req: Request, res: Response, needApiToken: boolean): boolean;
  /**
   * Refuses (403) a request for `sessionId` whose browser cookie does not own it; else the owner,
   * who is the web chat's user (memory, budgets and approvals are theirs).
   */
  owns(req: Request, res: Response, sessionId: string): string | undefined;
  /** The owner prefix of the request's browser, or undefined after a 403. */
  ownerOf(req: Request, res: Response): string | undefined;
}

/** Creates the checks for an adapter with `apiToken` (and `accessToken` when exposed). */
export function httpGuard(o: { apiToken: string; accessToken?: string; anyHost?: boolean }): HttpGuard {
  const ownerOf = (req: Request, res: Response): string | undefined => {
    const secret = browserSecretOf(req);
    if (!secret) {
      res.status(403).json({ error: 'web chat: no browser cookie: reload the page' });
      return undefined;
    }
    return sessionOwner(secret);
  };
  return {
    ownerOf,
    owns(req, res, sessionId) {
      const owner = ownerOf(req, res);
      if (!owner) return undefined;
      if (!sessionId.startsWith(`${owner}-`)) {
        res.status(403).json({ error: 'web chat: this conversation belongs to another browser' });
        return undefined;
      }
      return owner;
    },
    allowed(req, res, needApiToken) {
      const host = req.headers.host ?? '';
      if (!o.anyHost && !isLoopbackHostHeader(host)) {
        res
          .status(403)
          .type('text/plain')
          .send(`web chat: refused Host ${JSON.stringify(host)}: open it as http://127.0.0.1:<port>/`);
        return false;
      }
      if (o.accessToken) {
        const given = String(req.query.access ?? req.headers['x-boxbot-access'] ?? '');
        if (!constantTimeEqual(given, o.accessToken)) {
          res
            .status(401)
            .type('text/plain')
            .send(
              'web chat: this server is reachable beyond this machine, so open the page with ' +
                '?access=<BOXBOT_ADMIN_TOKEN>',
            );
          return false;
        }
      }
      if (needApiToken) {
        const given = String(req.headers['x-boxbot-token'] ?? req.query.token ?? '');
        if (!constantTimeEqual(given, o.apiToken)) {
          res.status(401).json({ error: 'missing or wrong page token: reload the page' });
          return false;
        }
      }
      return true;
    },
  };
}
