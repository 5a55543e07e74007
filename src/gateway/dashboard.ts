// The dashboard at /admin: one HTML shell with no inline script or style, the bundle esbuild made
// at build time (dist/admin: scripts/build-dashboard.js), the sign-in that turns the admin token
// into a session cookie, and /admin/api/me (who is signed in, and the CSRF token the page sends
// back). Every answer carries a CSP that allows this origin's script and style only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { packagePath } from '../core/package-paths.ts';
import { ADMIN_COOKIE, type AdminAuth, cookieValue, principalName, sameOrigin } from './admin-auth.ts';

/** Where the built bundle is, from src/gateway (tsx) or dist/gateway (compiled): <root>/dist/admin either way. */
export const DEFAULT_DASHBOARD_DIR = packagePath('dist', 'admin');

/** The dashboard's Content-Security-Policy. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>boxbot admin</title>
<link rel="stylesheet" href="/admin/assets/app.css">
</head>
<body>
<div id="app"><noscript>The dashboard needs JavaScript.</noscript></div>
<script type="module" src="/admin/assets/app.js"></script>
</body>
</html>
`;

const ASSETS: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** What the dashboard needs. */
export interface DashboardOptions {
  auth: AdminAuth;
  /** The built bundle (default DEFAULT_DASHBOARD_DIR). */
  dir?: string;
  /** Refuses Host headers a rebinding page could send (the loopback rule of the rest of the server). */
  hostCheck: (req: Request, res: Response, next: NextFunction) => void;
}

/** Mounts /admin, its assets, sign-in and sign-out, and /admin/api/me. Call before the admin API. */
export function attachDashboard(app: Express, o: DashboardOptions): void {
  const dir = o.dir ?? DEFAULT_DASHBOARD_DIR;
  const cache = new Map<string, Buffer>();
  const secure = (_req: Request, res: Response, next: NextFunction) => {
    res.set({
      'content-security-policy': DASHBOARD_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
    });
    next();
  };
  app.use('/admin', o.hostCheck, secure);
  app.get(['/admin', '/admin/'], (_req, res) => void res.type('html').send(SHELL));
  app.get('/admin/assets/:name', (req: Request<{ name: string }>, res) => {
    const type = ASSETS[req.params.name];
    if (!type) return void res.status(404).type('text/plain').send('not found');
    let body = cache.get(req.params.name);
    if (!body) {
      try {
        body = readFileSync(join(dir, req.params.name));
      } catch {
        return void res
          .status(503)
          .type('text/plain')
          .send(`the dashboard is not built (no ${join(dir, req.params.name)}): run \`npm run build\``);
      }
      cache.set(req.params.name, body);
    }
    res.type(type).send(body);
  });
  const small = express.json({ limit: '4kb' });
  app.post('/admin/login', small, async (req, res, next) => {
    if (!sameOrigin(req)) return void res.status(403).json({ error: 'refused: not from the dashboard origin' });
    const token = typeof req.body?.token === 'string' ? req.body.token : '';
    let out: Awaited<ReturnType<AdminAuth['signIn']>>;
    try {
      out = await o.auth.signIn(token, req.socket.remoteAddress ?? '');
    } catch (e) {
      return next(e); // the store failed: a clear 500 from the server's error handler, no session
    }
    if (out === 'limited') return void res.status(429).json({ error: 'too many failed sign-ins: wait a minute' });
    if (out === 'refused') return void res.status(401).json({ error: 'wrong admin token' });
    const secureFlag = req.secure ? '; Secure' : '';
    res.set(
      'set-cookie',
      `${ADMIN_COOKIE}=${out.sessionId}; Path=/admin; HttpOnly; SameSite=Strict; ` +
        `Max-Age=${out.maxAgeSeconds}${secureFlag}`,
    );
    res.json({ ok: true, csrf: out.csrf });
  });
  app.post('/admin/logout', async (req, res, next) => {
    if (!sameOrigin(req)) return void res.status(403).json({ error: 'refused: not from the dashboard origin' });
    const id = cookieValue(req.headers.cookie, ADMIN_COOKIE);
    try {
      if (id) await o.auth.signOut(id);
    } catch (e) {
      return next(e);
    }
    res.set('set-cookie', `${ADMIN_COOKIE}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0`);
    res.json({ ok: true });
  });
  app.get('/admin/api/me', o.auth.require(), (_req, res) => {
    const p = res.locals.admin;
    res.json({ name: principalName(p), via: p.via, csrf: p.via === 'token' ? null : p.csrf });
  });
}
