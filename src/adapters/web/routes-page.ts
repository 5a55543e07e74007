// The web chat's page and its way in: the sign-in links, the page itself (with the browser's
// cookie that owns its local conversations), its assets, and the settings a tab fetches again
// after a restart.
import { randomBytes } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { webAsset } from './assets.ts';
import {
  BROWSER_COOKIE,
  browserSecretOf,
  type HttpGuard,
  isLoopbackHostHeader,
  sessionOwner,
  type Viewer,
} from './http-guard.ts';
import { chatPage, type PageBoot } from './page.ts';
import { DEFAULT_SESSION_DAYS, type SignIn } from './sign-in.ts';

/** What the page routes need from the adapter. */
export interface PageRoutes {
  guard: HttpGuard;
  signIn: SignIn | undefined;
  /** Serve any Host header. */
  anyHost: boolean;
  sessionDays: number | undefined;
  secureCookies: boolean;
  /** The page's settings for `owner`. */
  bootOf(owner: string, access: string, viewer: Viewer): PageBoot;
}

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src " +
  "'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Mounts the page routes under `base`. */
export function attachPageRoutes(app: Express, base: string, o: PageRoutes): void {
  const { guard, signIn } = o;
  // Sign-in links work beyond loopback without the access token: they are the way in.
  const hostOk = (req: Request, res: Response) => {
    if (o.anyHost || isLoopbackHostHeader(req.headers.host)) return true;
    res.status(403).type('text/plain').send('web chat: refused Host: open it as http://127.0.0.1:<port>/');
    return false;
  };
  app.get(`${base}/login/:token`, (req, res) => {
    if (!hostOk(req, res)) return;
    if (!signIn) return void res.status(404).type('text/plain').send('sign-in is off (no store)');
    signIn.loginPage(req, res);
  });
  app.post(`${base}/login/:token`, async (req, res) => {
    if (!hostOk(req, res)) return;
    if (!signIn) return void res.status(404).type('text/plain').send('sign-in is off (no store)');
    await signIn.login(req, res, `${base}/`);
  });
  app.post(`${base}/chat/logout`, async (req, res) => {
    if (!(await guard.check(req, res, { apiToken: true }))) return;
    res.json({ loggedOut: signIn ? await signIn.logout(req, res) : false });
  });
  app.get(`${base}/`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: false, page: true });
    if (!viewer) return;
    res.set('Content-Security-Policy', CSP);
    res.set('X-Content-Type-Options', 'nosniff');
    // A browser without a (valid) cookie gets a new secret; its sessions are its own from now on.
    // The cookie lasts (Max-Age, renewed at each visit) so its conversations survive a browser restart.
    const secret = browserSecretOf(req) ?? randomBytes(24).toString('base64url');
    const maxAge = Math.round((o.sessionDays ?? DEFAULT_SESSION_DAYS) * 24 * 3600);
    res.append(
      'Set-Cookie',
      `${BROWSER_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}` +
        (o.secureCookies ? '; Secure' : ''),
    );
    const local = viewer.identity ? viewer : { owner: sessionOwner(secret) };
    res.set('Cache-Control', 'no-store');
    res.type('html').send(chatPage(o.bootOf(local.owner!, String(req.query.access ?? ''), local)));
  });
  app.get(`${base}/chat/assets/:name`, async (req, res) => {
    if (!(await guard.check(req, res, { apiToken: false }))) return;
    const asset = webAsset(String(req.params.name));
    if (!asset) return void res.status(404).type('text/plain').send('no such asset');
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Cache-Control', 'no-cache');
    res.type(asset.type).send(asset.body);
  });
  app.get(`${base}/favicon.ico`, async (req, res) => {
    if (!(await guard.check(req, res, { apiToken: false }))) return;
    res.type('image/svg+xml').send(webAsset('favicon.svg')!.body);
  });
  // The page's settings again, for a tab open across a restart (the page token is per process).
  app.get(`${base}/chat/boot`, async (req, res) => {
    const viewer = await guard.check(req, res, { apiToken: false });
    if (!viewer) return;
    const owner = guard.ownerOf(viewer, res);
    if (!owner) return;
    res.set('Cache-Control', 'no-store');
    res.json(o.bootOf(owner, String(req.query.access ?? ''), viewer));
  });
}
