// The admin JSON API (mounted under /admin/api behind the admin token): sessions, spending,
// signed-in web chat browsers, tools, skills, and whatever routers other parts add (the
// scheduler's jobs).
import { Router } from 'express';
import { platformOf } from '../adapters/index.ts';
import { type Store, StoreError } from '../store/index.ts';
import { type AdminViewsOptions, adminViews } from './admin-views.ts';

/** What the admin API reads. */
export interface AdminApiOptions {
  store: Store;
  tools: () => {
    tools: { name: string; level: string; about: string; source: string; version: string }[];
    problems: { file: string; message: string }[];
  };
  skills: () => { skills: { name: string; description: string }[]; problems: { file: string; reason: string }[] };
  /** The dashboard's sources (overview, approvals, policy, memory, usage, config); absent: those routes are off. */
  views?: Omit<AdminViewsOptions, 'store' | 'tools'>;
  /** More routers by mount path (e.g. `/jobs`). */
  extra?: Record<string, Router>;
}

/** Builds the admin router. */
export function createAdminApi(o: AdminApiOptions): Router {
  const r = Router();
  r.get('/sessions', async (_req, res) => {
    const keys = await o.store.conversations.keys();
    const sessions = [];
    for (const key of keys.slice(0, 1000)) {
      const c = await o.store.conversations.get(key).catch(() => undefined);
      sessions.push({
        key,
        platform: platformOf(key),
        messages: c?.messages.length ?? 0,
        updatedAt: c?.updatedAt ?? null,
      });
    }
    res.json({ sessions, total: keys.length });
  });
  r.get('/sessions/:key', async (req, res) => {
    const c = await o.store.conversations.get(req.params.key!);
    if (!c) return void res.status(404).json({ error: `no session ${req.params.key}` });
    res.json(c);
  });
  // Spending today (UTC, or ?day=YYYY-MM-DD) and in total, of a conversation or a user (`<platform>:<id>`).
  const dayOf = (q: unknown) =>
    typeof q === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(q) ? q : new Date().toISOString().slice(0, 10);
  r.get('/usage/conversations/:key', async (req, res) => {
    const day = dayOf(req.query.day);
    const u = await o.store.usage.get({ conversationKey: req.params.key! }, day);
    res.json({ key: req.params.key, date: day, today: u.day, total: u.total });
  });
  r.get('/usage/users/:user', async (req, res) => {
    const day = dayOf(req.query.day);
    const u = await o.store.usage.get({ userKey: req.params.user! }, day);
    res.json({ user: req.params.user, date: day, today: u.day, total: u.total });
  });
  r.delete('/sessions/:key', async (req, res) => {
    await o.store.conversations.reset(req.params.key!);
    res.json({ reset: req.params.key });
  });
  // Replies a platform refused for good, newest first (kept for inspection within their retention).
  r.get('/outbox/failed', async (_req, res) => void res.json({ failed: await o.store.delivery.failedOutbox() }));
  // Signed-in web chat browsers, newest first (?identity=telegram:4242 for one user's), and ending one.
  r.get('/web-sessions', async (req, res) => {
    const identity = typeof req.query.identity === 'string' ? req.query.identity : undefined;
    try {
      const list = await o.store.webSessions.listSessions(identity);
      res.json({ sessions: list.map(({ secretHash: _, ...shown }) => shown) });
    } catch (e) {
      if (!(e instanceof StoreError) || e.code !== 'invalid') throw e;
      res.status(400).json({ error: e.message });
    }
  });
  r.delete('/web-sessions/:id', async (req, res) => {
    if (!(await o.store.webSessions.revokeSession(req.params.id!)))
      return void res.status(404).json({ error: `no web session ${req.params.id}` });
    res.json({ revoked: req.params.id });
  });
  r.get('/tools', (_req, res) => void res.json(o.tools()));
  r.get('/skills', (_req, res) => void res.json(o.skills()));
  if (o.views) r.use(adminViews({ ...o.views, store: o.store, tools: o.tools }));
  for (const [path, router] of Object.entries(o.extra ?? {})) r.use(path, router);
  return r;
}
