// Signing a browser in to the web chat as a user of a chat platform (`/web` sends a one-time
// link) or as a web-only user (`boxbot web invite NAME`). A link's token is kept only as its
// SHA-256 hash, for 10 minutes, and used up atomically by the store. Opening the link (GET) only
// shows a button: link previews (Telegram, Slack unfurls) fetch URLs, and must not use it up.
// The button POSTs from this origin (checked by Origin), so the session cookie can be
// SameSite=Strict, and a page elsewhere cannot sign a visitor in as someone else.
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { UserKey } from '../identity.ts';
import { decodeUserKey, encodeUserKey } from '../identity.ts';

/** The cookie holding a signed-in browser's session secret. */
export const SESSION_COOKIE = 'boxbot_session';
/** How long a login link works. */
export const LOGIN_TTL_MS = 10 * 60_000;
/** Default life of a session (config `channels.web.sessionDays`). */
export const DEFAULT_SESSION_DAYS = 30;
/** Login attempts one address may make per window before it is refused for the rest of it. */
export const LOGIN_ATTEMPTS = 10;
const LOGIN_WINDOW_MS = 10 * 60_000;
const TOKEN = /^[A-Za-z0-9_-]{32,64}$/;

/** A login link as kept (the store's WebLogin). */
export interface LoginRecord {
  tokenHash: string;
  identity: string;
  createdAt: number;
  expiresAt: number;
}

/** A signed-in browser as kept (the store's WebSession). */
export interface SessionRecord {
  id: string;
  secretHash: string;
  identity: string;
  createdAt: number;
  expiresAt: number;
  userAgent?: string;
}

/** What sign-in needs from the store (its `webSessions`). */
export interface WebSessionSource {
  addLogin(login: LoginRecord): Promise<void>;
  redeemLogin(tokenHash: string): Promise<LoginRecord | undefined>;
  createSession(session: SessionRecord): Promise<void>;
  sessionBySecret(secretHash: string): Promise<SessionRecord | undefined>;
  revokeSession(id: string): Promise<boolean>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The owner prefix of a signed-in identity's web conversations: the same in every browser it signs in from. */
export function identityOwner(identity: string): string {
  return createHash('sha256').update(`boxbot-web-identity:${identity}`).digest('base64url').slice(0, 16);
}

/**
 * Makes a one-time link that signs a browser in as `identity`, valid 10 minutes.
 * @example await issueLoginLink(store.webSessions, 'telegram:4242', 'https://bot.example.com')
 */
export async function issueLoginLink(
  store: Pick<WebSessionSource, 'addLogin'>,
  identity: UserKey,
  publicUrl: string,
  now: () => number = Date.now,
): Promise<{ url: string; expiresAt: number }> {
  decodeUserKey(identity);
  const token = randomBytes(32).toString('base64url');
  const at = now();
  const expiresAt = at + LOGIN_TTL_MS;
  await store.addLogin({ tokenHash: sha256(token), identity, createdAt: at, expiresAt });
  return { url: `${publicUrl.replace(/\/+$/, '')}/login/${token}`, expiresAt };
}

/**
 * The identity a request's browser signed in as (its session cookie, unexpired), for other pages
 * on the gateway (the dashboard).
 * @example const who = await webIdentityOf(store.webSessions, req) // 'telegram:4242' | undefined
 */
export async function webIdentityOf(
  store: Pick<WebSessionSource, 'sessionBySecret'>,
  req: Pick<Request, 'headers'>,
): Promise<UserKey | undefined> {
  const secret = cookieOf(req, SESSION_COOKIE);
  if (!secret || !TOKEN.test(secret)) return undefined;
  const s = await store.sessionBySecret(sha256(secret));
  return s ? encodeUserKey(decodeUserKey(s.identity)) : undefined;
}

/** Options of the sign-in routes. */
export interface SignInOptions {
  store: WebSessionSource;
  sessionDays: number;
  /** Cookies only over HTTPS (when the public URL is https). */
  secure: boolean;
  now: () => number;
}

/** The sign-in routes' work and the session lookup the other routes use. */
export interface SignIn {
  /** The unexpired session of the request's cookie. */
  sessionOf(req: Request): Promise<SessionRecord | undefined>;
  /** GET /login/:token: a page with the button that signs in (nothing used up). */
  loginPage(req: Request, res: Response): void;
  /** POST /login/:token: uses the link up, sets the cookie, back to the chat. */
  login(req: Request, res: Response, chatPath: string): Promise<void>;
  /** Ends the request's session and clears its cookie; false when it had none. */
  logout(req: Request, res: Response): Promise<boolean>;
  /** `Max-Age` of the cookies, in seconds. */
  readonly maxAgeSeconds: number;
}

/** A cookie's value in a request. */
export function cookieOf(req: Pick<Request, 'headers'>, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A small page of its own (no script at all), for the sign-in steps and refusals. */
export function plainPage(res: Response, status: number, title: string, body: string): void {
  res.status(status);
  res.set({
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    // same-origin, not no-referrer: with no-referrer a form's POST carries `Origin: null`, which the login refuses.
    'Referrer-Policy': 'same-origin',
  });
  res
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
        `content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font:16px/1.5 ` +
        'system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1rem}' +
        `</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

/** What a browser that is not signed in is told (beyond loopback). */
export function signInHelp(res: Response): void {
  plainPage(
    res,
    401,
    'Sign in to the web chat',
    '<p>This web chat is for signed-in users.</p><ul><li>In a chat with the bot (Telegram, Discord or Slack), ' +
      'send <code>/web</code>: it sends you a one-time sign-in link privately.</li><li>No chat platform? Ask the ' +
      'admin for an invite link (<code>boxbot web invite NAME</code>).</li></ul>',
  );
}

/** The sign-in routes over `o.store`. */
export function createSignIn(o: SignInOptions): SignIn {
  const maxAgeSeconds = Math.round(o.sessionDays * 24 * 3600);
  // Attempts per address in the current window: a guesser gets LOGIN_ATTEMPTS tries, then waits.
  const attempts = new Map<string, { start: number; count: number }>();
  const limited = (req: Request, res: Response): boolean => {
    const at = o.now();
    for (const [k, v] of attempts) if (at - v.start >= LOGIN_WINDOW_MS) attempts.delete(k);
    const address = req.socket.remoteAddress ?? 'unknown';
    const a = attempts.get(address) ?? { start: at, count: 0 };
    a.count++;
    attempts.set(address, a);
    if (a.count <= LOGIN_ATTEMPTS) return false;
    const wait = Math.ceil((a.start + LOGIN_WINDOW_MS - at) / 1000);
    res.set('Retry-After', String(wait));
    plainPage(res, 429, 'Too many sign-in attempts', `<p>Try again in ${Math.ceil(wait / 60)} minutes.</p>`);
    return true;
  };
  const cookie = (value: string, maxAge: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${o.secure ? '; Secure' : ''}`;
  const refused = (res: Response) =>
    plainPage(
      res,
      410,
      'This sign-in link does not work',
      '<p>It is unknown, already used or expired (links work once, for 10 minutes). Send <code>/web</code> in ' +
        'your chat with the bot for a new one.</p>',
    );

  return {
    maxAgeSeconds,
    async sessionOf(req) {
      const secret = cookieOf(req, SESSION_COOKIE);
      if (!secret || !TOKEN.test(secret)) return undefined;
      return o.store.sessionBySecret(sha256(secret));
    },
    loginPage(req, res) {
      if (limited(req, res)) return;
      const token = String(req.params.token ?? '');
      if (!TOKEN.test(token)) return refused(res);
      plainPage(
        res,
        200,
        'Sign in to the web chat',
        `<form method="post" action="${escapeHtml(token)}"><p>This link signs this browser in once. ` +
          'Only continue if you asked for it.</p><button type="submit">Sign in</button></form>',
      );
    },
    async login(req, res, chatPath) {
      if (limited(req, res)) return;
      // Only the page above may post here: a form elsewhere would sign the visitor in as its author.
      const origin = req.headers.origin;
      if (!origin || origin === 'null' || new URL(origin).host !== req.headers.host)
        return plainPage(res, 403, 'Sign-in refused', '<p>Open the sign-in link itself and press the button.</p>');
      const token = String(req.params.token ?? '');
      const login = TOKEN.test(token) ? await o.store.redeemLogin(sha256(token)) : undefined;
      if (!login) return refused(res);
      const secret = randomBytes(32).toString('base64url');
      const at = o.now();
      const userAgent = String(req.headers['user-agent'] ?? '').slice(0, 200);
      await o.store.createSession({
        id: randomBytes(12).toString('base64url'),
        secretHash: sha256(secret),
        identity: login.identity,
        createdAt: at,
        expiresAt: at + maxAgeSeconds * 1000,
        ...(userAgent ? { userAgent } : {}),
      });
      res.append('Set-Cookie', cookie(secret, maxAgeSeconds));
      res.set('Cache-Control', 'no-store');
      res.redirect(303, chatPath);
    },
    async logout(req, res) {
      const session = await this.sessionOf(req);
      res.append('Set-Cookie', cookie('', 0));
      if (!session) return false;
      return o.store.revokeSession(session.id);
    },
  };
}
