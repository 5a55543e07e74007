// The gateway's HTTP server (express): /healthz, /metrics, platform webhooks (raw bodies for
// signature checks), webhooks that start jobs (/hooks/<name>), the web chat, and the admin JSON
// API behind BOXBOT_ADMIN_TOKEN. It binds 127.0.0.1 unless configured otherwise, and refuses any
// other address without an admin token.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import type { AdapterRoute } from '../adapters/index.ts';
import { isLoopbackHostHeader } from '../adapters/web/index.ts';
import { constantTimeEqual } from '../core/constant-time-equal.ts';
import { BoxbotError, errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import { isLoopback } from '../core/loopback.ts';
import { type AdminAuth, createAdminAuth } from './admin-auth.ts';
import { attachDashboard } from './dashboard.ts';
import type { Metrics } from './metrics.ts';

/** The server refused to start (bind rule, port in use). */
export class HttpServerError extends BoxbotError<'http'> {
  constructor(message: string) {
    super('http', message);
  }
}

/** What the server serves. */
export interface HttpServerOptions {
  host: string;
  port: number;
  adminToken?: string;
  metrics: Metrics;
  routes: AdapterRoute[];
  /** Mounts the web chat (and anything else that needs the raw app). */
  attach?: ((app: Express) => void)[];
  /** Admin API routers, mounted under /admin/api behind the token (or a dashboard session). */
  admin?: Router;
  /** Who is an admin (default: the admin token alone); the dashboard's sessions live here. */
  adminAuth?: AdminAuth;
  /** Serves the dashboard at /admin from this built bundle (absent: no dashboard). */
  dashboard?: { dir?: string };
  /** Webhooks that start jobs: `POST /hooks/<name>`, raw body of at most `maxBytes` (413 beyond). */
  hooks?: {
    maxBytes: number;
    handle(req: { hook: string; headers: IncomingHttpHeaders; rawBody: Buffer }): Promise<{
      status: number;
      body: Record<string, unknown>;
      headers?: Record<string, string>;
    }>;
  };
  /** Extra fields for /healthz. */
  health?: () => Record<string, unknown>;
  log?: Logger;
}

/** A listening server. */
export interface HttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Express middleware: a Bearer admin token, compared in constant time. */
export function requireAdmin(token: string | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!token) return void res.status(403).json({ error: 'the admin API is off: set BOXBOT_ADMIN_TOKEN and restart' });
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!constantTimeEqual(given, token))
      return void res.status(401).json({ error: 'admin API: missing or wrong bearer token' });
    next();
  };
}

/** Starts the server. */
export async function startHttpServer(o: HttpServerOptions): Promise<HttpServer> {
  const log = o.log ?? silentLogger;
  if (!isLoopback(o.host) && !o.adminToken) {
    throw new HttpServerError(
      `http.host is ${o.host}, which other machines can reach; set BOXBOT_ADMIN_TOKEN first (or use http.host ` +
        `127.0.0.1)`,
    );
  }
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  const started = Date.now();
  // On loopback, /healthz and /metrics answer only loopback Host headers, as the web chat does:
  // a page on another site that rebinds its name to 127.0.0.1 cannot read them.
  const hostCheck = (req: Request, res: Response, next: NextFunction) => {
    if (isLoopback(o.host) && !isLoopbackHostHeader(req.headers.host)) {
      return void res
        .status(403)
        .type('text/plain')
        .send(`refused Host ${JSON.stringify(req.headers.host ?? '')}: use http://127.0.0.1:<port>/`);
    }
    next();
  };

  app.get('/healthz', hostCheck, (_req, res) => {
    res.json({ ok: true, uptimeSeconds: Math.round((Date.now() - started) / 1000), ...o.health?.() });
  });
  app.get(
    '/metrics',
    hostCheck,
    (req, res, next) => (o.adminToken ? requireAdmin(o.adminToken)(req, res, next) : next()),
    async (_req, res) => {
      res.type(o.metrics.contentType).send(await o.metrics.render());
    },
  );
  for (const route of o.routes) {
    const handler = async (req: Request, res: Response) => {
      try {
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const out = await route.handle({ headers: req.headers, rawBody });
        res
          .status(out.status)
          .set(out.headers ?? {})
          .send(out.body ?? '');
      } catch (e) {
        o.metrics.errors.inc({ scope: 'webhook' });
        log.error({ path: route.path, err: errorMessage(e) }, 'webhook failed');
        res.status(500).send('');
      }
    };
    const raw = express.raw({ type: () => true, limit: '1mb' });
    if (route.method === 'POST') app.post(route.path, raw, handler);
    else app.get(route.path, handler);
  }
  if (o.hooks) {
    const hooks = o.hooks;
    // One byte over the cap is read, so the handler sees the body is too large and says so.
    const raw = express.raw({ type: () => true, limit: hooks.maxBytes + 1 });
    app.post('/hooks/:name', raw, async (req: Request<{ name: string }>, res: Response) => {
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const out = await hooks.handle({ hook: req.params.name, headers: req.headers, rawBody });
      res
        .status(out.status)
        .set(out.headers ?? {})
        .json(out.body);
    });
    // A body past the cap never reaches the handler: the same answer it would give, and nothing started.
    app.use('/hooks', (err: Error & { status?: number }, _req: Request, res: Response, next: NextFunction) => {
      if (err.status !== 413) return next(err);
      res.status(413).json({ error: `the body is larger than this hook takes (at most ${hooks.maxBytes} bytes)` });
    });
  }
  for (const attach of o.attach ?? []) attach(app);
  const auth = o.adminAuth ?? createAdminAuth({ ...(o.adminToken ? { token: o.adminToken } : {}), admins: [] });
  if (o.dashboard) attachDashboard(app, { auth, hostCheck, ...(o.dashboard.dir ? { dir: o.dashboard.dir } : {}) });
  if (o.admin) app.use('/admin/api', auth.require(), express.json({ limit: '256kb' }), o.admin);
  app.use('/admin/api', auth.require(), (_req, res) => void res.status(404).json({ error: 'no such admin route' }));
  app.use((_req, res) => void res.status(404).type('text/plain').send('not found'));
  // Malformed bodies and thrown handlers: a clear JSON error, never a stack trace.
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500) log.error({ err: err.message }, 'http handler failed');
    res.status(status).json({ error: status === 500 ? 'internal error' : `bad request: ${err.type ?? err.message}` });
  });

  // node:http directly: express 5's listen() also calls its callback on errors.
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new HttpServerError(
          e.code === 'EADDRINUSE'
            ? `port ${o.port} on ${o.host} is in use (another boxbot running? set http.port in boxbot.config.json)`
            : `cannot listen on ${o.host}:${o.port}: ${e.message}`,
        ),
      ),
    );
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
