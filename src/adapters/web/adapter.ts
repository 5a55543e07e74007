// The built-in web chat: a page served by the gateway's HTTP server, messages in by POST,
// answers out by Server-Sent Events (sends, streamed edits, typing). Each tab keeps a session id;
// its conversation key is `web:<sessionId>`. A per-process token embedded in the page guards the
// API, and only loopback Host headers are served (no DNS rebinding). Sessions belong to a browser:
// the page's first load sets an HttpOnly cookie holding a random browser secret, and a session id
// starts with the digest of that secret (`<owner>-<tab>`), so a request whose cookie does not own
// the session is refused (403) even with the page token, and ownership survives restarts.
import { createHash, randomBytes } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import express from 'express';
import { constantTimeEqual } from '../../constant-time-equal.ts';
import { errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { silentLogger } from '../../log.ts';
import { AdapterApiError, alreadyStarted } from '../errors.ts';
import type { AdapterCapabilities, ChannelAdapter, InboundSink, OutboundTarget } from '../types.ts';
import { normalizeWebMessage, WEB_ID } from './normalize.ts';
import { chatPage } from './page.ts';

/** The web chat: streamed by edits every 100 ms, typing shown, long answers kept whole. */
export const WEB_CAPABILITIES: AdapterCapabilities = Object.freeze({
  edit: true,
  typing: true,
  threads: false,
  maxTextLength: 20_000,
  editIntervalMs: 100,
  typingIntervalMs: 3000,
});

/** Options of the web chat adapter. */
export interface WebAdapterOptions {
  logger?: Logger;
  /** When the server listens beyond loopback, the page and API need this token (BOXBOT_ADMIN_TOKEN). */
  accessToken?: string;
  /** Serve any Host header (only when the server is not on loopback and accessToken is set). */
  anyHost?: boolean;
  /** Messages kept per session for reconnecting tabs. */
  backlog?: number;
}

/** The web chat adapter, plus `attach` to mount its routes on the gateway's express app. */
export interface WebAdapter extends ChannelAdapter {
  attach(app: Express, basePath?: string): void;
  /** The per-process API token the page carries (tests use it). */
  readonly apiToken: string;
}

type WebEvent = { type: 'message' | 'edit' | 'user'; id: string; text: string } | { type: 'typing' };

interface Session {
  clients: Set<Response>;
  backlog: { seq: number; event: WebEvent }[];
  seq: number;
}

const SESSION = WEB_ID;
/** The cookie holding the browser secret. */
export const BROWSER_COOKIE = 'boxbot_browser';
const SECRET = /^[A-Za-z0-9_-]{32,64}$/;

/** The owner prefix of a browser's session ids: 16 characters of the digest of its secret. */
export function sessionOwner(browserSecret: string): string {
  return createHash('sha256').update(`boxbot-web-session:${browserSecret}`).digest('base64url').slice(0, 16);
}

/** The browser secret of a request's cookie, if it has a well-formed one. */
function browserSecretOf(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === BROWSER_COOKIE) {
      const v = part.slice(at + 1).trim();
      return SECRET.test(v) ? v : undefined;
    }
  }
  return undefined;
}
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i;

/** Whether a request's Host header names this machine (a DNS-rebinding page arrives with its own name). */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  return LOOPBACK_HOST.test(host ?? '');
}

/** Creates the web chat adapter. */
export function createWebAdapter(opts: WebAdapterOptions = {}): WebAdapter {
  const log = (opts.logger ?? silentLogger).child({ scope: 'adapter:web' });
  const apiToken = randomBytes(24).toString('base64url');
  const sessions = new Map<string, Session>();
  const backlogSize = opts.backlog ?? 200;
  let sink: InboundSink | undefined;
  let nextId = 1;

  const session = (id: string): Session => {
    let s = sessions.get(id);
    if (!s) sessions.set(id, (s = { clients: new Set(), backlog: [], seq: 0 }));
    return s;
  };
  const publish = (sessionId: string, event: WebEvent) => {
    const s = session(sessionId);
    const seq = ++s.seq;
    if (event.type !== 'typing') {
      s.backlog.push({ seq, event });
      if (s.backlog.length > backlogSize) s.backlog.splice(0, s.backlog.length - backlogSize);
    }
    for (const res of s.clients) res.write(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  const sessionOf = (target: OutboundTarget) => {
    if (!SESSION.test(target.chatId))
      throw new AdapterApiError('web', 400, `bad web session id ${JSON.stringify(target.chatId)}`);
    return target.chatId;
  };

  /** Refuses (403) a request for `sessionId` whose browser cookie does not own it. */
  const owns = (req: Request, res: Response, sessionId: string): boolean => {
    const secret = browserSecretOf(req);
    if (!secret) {
      res.status(403).json({ error: 'web chat: no browser cookie: reload the page' });
      return false;
    }
    if (!sessionId.startsWith(`${sessionOwner(secret)}-`)) {
      res.status(403).json({ error: 'web chat: this conversation belongs to another browser' });
      return false;
    }
    return true;
  };

  /** Refuses requests from foreign Hosts (DNS rebinding) and without the access token. */
  const guard = (req: Request, res: Response, needApiToken: boolean): boolean => {
    const host = req.headers.host ?? '';
    if (!opts.anyHost && !isLoopbackHostHeader(host)) {
      res
        .status(403)
        .type('text/plain')
        .send(`web chat: refused Host ${JSON.stringify(host)}: open it as http://127.0.0.1:<port>/`);
      return false;
    }
    if (opts.accessToken) {
      const given = String(req.query.access ?? req.headers['x-boxbot-access'] ?? '');
      if (!constantTimeEqual(given, opts.accessToken)) {
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
      if (!constantTimeEqual(given, apiToken)) {
        res.status(401).json({ error: 'missing or wrong page token: reload the page' });
        return false;
      }
    }
    return true;
  };

  const adapter: WebAdapter = {
    platform: 'web',
    capabilities: WEB_CAPABILITIES,
    apiToken,
    async start(s) {
      if (sink) throw alreadyStarted('web');
      sink = s;
    },
    async stop() {
      sink = undefined;
      for (const s of sessions.values()) for (const res of s.clients) res.end();
    },
    async send(target, text) {
      const id = String(nextId++);
      publish(sessionOf(target), { type: 'message', id, text });
      return { messageId: id };
    },
    async edit(target, messageId, text) {
      publish(sessionOf(target), { type: 'edit', id: messageId, text });
    },
    async typing(target) {
      publish(sessionOf(target), { type: 'typing' });
    },
    routes: () => [],
    identity: () => ({ id: 'web', name: 'boxbot' }),
    attach(app, base = '') {
      app.get(`${base}/`, (req, res) => {
        if (!guard(req, res, false)) return;
        res.set(
          'Content-Security-Policy',
          "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src " +
            "'self' data:; frame-ancestors 'none'",
        );
        res.set('X-Content-Type-Options', 'nosniff');
        // A browser without a (valid) cookie gets a new secret; its sessions are its own from now on.
        let secret = browserSecretOf(req);
        if (!secret) {
          secret = randomBytes(24).toString('base64url');
          res.append('Set-Cookie', `${BROWSER_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict`);
        }
        res.set('Cache-Control', 'no-store');
        res.type('html').send(chatPage(apiToken, String(req.query.access ?? ''), sessionOwner(secret)));
      });
      app.get(`${base}/chat/events`, (req, res) => {
        if (!guard(req, res, true)) return;
        const id = String(req.query.session ?? '');
        if (!SESSION.test(id))
          return void res.status(400).json({ error: 'session must be 8-64 letters, digits, _ or -' });
        if (!owns(req, res, id)) return;
        res.writeHead(200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-store',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        });
        res.write(': connected\n\n');
        const s = session(id);
        const after = Number(req.headers['last-event-id'] ?? req.query.after ?? 0);
        for (const b of s.backlog) if (b.seq > after) res.write(`id: ${b.seq}\ndata: ${JSON.stringify(b.event)}\n\n`);
        s.clients.add(res);
        const ping = setInterval(() => res.write(': ping\n\n'), 25_000);
        req.on('close', () => {
          clearInterval(ping);
          s.clients.delete(res);
        });
      });
      app.post(`${base}/chat/messages`, express.json({ limit: '256kb' }), async (req, res) => {
        if (!guard(req, res, true)) return;
        const result = normalizeWebMessage(req.body, new Date());
        if (result.kind !== 'message') return void res.status(400).json({ error: result.reason });
        const msg = result.message;
        if (!owns(req, res, msg.chatId)) return;
        if (!sink) return void res.status(503).json({ error: 'the web chat is not running' });
        try {
          await sink(msg);
          // Echoed so other tabs and a reloaded page show the user's side too.
          publish(msg.chatId, { type: 'user', id: msg.messageId!, text: msg.text });
          res.status(202).json({ accepted: true });
        } catch (e) {
          log.error({ err: errorMessage(e) }, 'web message not accepted');
          res.status(503).json({ error: 'not accepted, try again' });
        }
      });
    },
  };
  return adapter;
}
