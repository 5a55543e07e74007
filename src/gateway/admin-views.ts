// The admin API's routes behind the dashboard's pages: the overview, conversation search, pending
// and decided approvals (decided from the web through the gateway's approval desk), the effective
// policy of any user in any conversation, memory notes by scope, spending per day (by channel,
// user, model and conversation), and the effective config with secrets masked. Mounted by
// createAdminApi when main supplies these sources.
import { type Request, type Response, Router } from 'express';
import { decodeConversationKey, decodeUserKey, platformOf } from '../adapters/index.ts';
import { PERMISSION_LEVELS, type PermissionLevel, permits } from '../agent/tools/grants.ts';
import type { Config } from '../config/schema.ts';
import { errorMessage } from '../core/errors.ts';
import { resolvePolicy } from '../runner/policy.ts';
import type { MemoryScope, Store } from '../store/index.ts';
import type { AdminPrincipal } from './admin-auth.ts';
import { principalName } from './admin-auth.ts';
import { budgetUse, jobRows } from './admin-budgets.ts';
import type { DecisionResult } from './approvals.ts';
import { usageSeries } from './usage-series.ts';

/** A channel's state as the overview shows it. */
export interface ChannelState {
  platform: string;
  up: boolean;
  detail?: string;
}

/** The gateway's state for the overview. */
export interface GatewayState {
  channels: ChannelState[];
  runsInFlight: number;
  queueDepth: number;
  errors: { scope: string; count: number }[];
}

/** What the dashboard's routes read. */
export interface AdminViewsOptions {
  store: Store;
  config: Config;
  state: () => Promise<GatewayState>;
  tools: () => { tools: { name: string; level: string }[] };
  /** Decides a pending approval as an admin from the dashboard. */
  decideApproval: (id: string, approve: boolean, by: string) => Promise<DecisionResult>;
  /** Names of the secret variables (shown set or not, never their values). */
  secretsSet: () => Record<string, boolean>;
}

const SECRET_KEY = /token|secret|password|passwd|apikey|api_key|authorization|credential|private/i;

/** `value` with anything that looks like a secret replaced (keys named like one; credentials in URLs). */
export function maskSecrets(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, key));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, k)]));
  if (typeof value !== 'string') return value;
  // `apiKeyEnv`, `secretEnv`: the names of variables, not their values.
  if (SECRET_KEY.test(key.replace(/-/g, '_')) && !/Env$/.test(key)) return '••••••';
  return value.replace(/(\w+:\/\/)([^/@\s:]+):([^/@\s]+)@/g, '$1$2:••••••@');
}

const limitOf = (q: unknown, dflt: number, max: number): number => {
  const n = typeof q === 'string' ? Number(q) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : dflt;
};

/** The text of a stored message's content, whatever its shape. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join(' ');
  return '';
}

const days = (n: number, end = new Date()): string[] =>
  Array.from({ length: n }, (_, i) => new Date(end.getTime() - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));

/** Every `budget` setting in the config, by where it is (`channels.telegram.chats.-100123.budget`). */
export function budgetsIn(value: unknown, path = ''): { path: string; budget: unknown }[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'budget' ? [{ path: path ? `${path}.${k}` : k, budget: v }] : budgetsIn(v, path ? `${path}.${k}` : k),
  );
}

/** Builds the dashboard's routes. */
export function adminViews(o: AdminViewsOptions): Router {
  const r = Router();
  const fail = (res: Response, e: unknown, status = 400) => void res.status(status).json({ error: errorMessage(e) });

  /** The latest job runs that did not end with an answer (the last 5 runs of at most 200 jobs), newest first. */
  const failedRuns = async () => {
    const jobs = (await o.store.jobs.list()).slice(0, 200);
    const runs = await Promise.all(jobs.map(async (j) => ({ j, logs: await o.store.jobs.logs(j.id, 5) })));
    return runs
      .flatMap(({ j, logs }) =>
        logs
          .filter((l) => l.outcome !== 'final' || l.error)
          .map((l) => ({ job: j.name, outcome: l.outcome, error: l.error ?? null, at: l.finishedAt })),
      )
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, 10);
  };

  r.get('/overview', async (_req, res) => {
    const [state, outbox, failed, pending, jobRuns] = await Promise.all([
      o.state(),
      o.store.delivery.pendingOutbox(),
      o.store.delivery.failedOutbox(),
      o.store.approvals.pending(),
      failedRuns(),
    ]);
    res.json({
      model: o.config.model ?? null,
      fallbackModel: o.config.fallbackModel ?? null,
      ...state,
      outboxPending: outbox.length,
      approvalsPending: pending.length,
      recentFailures: failed.slice(0, 10).map((f) => ({
        id: f.id,
        conversationKey: f.conversationKey,
        error: f.error,
        at: f.failedAt,
      })),
      failedJobRuns: jobRuns,
    });
  });

  // Every conversation (keys, then text when `q` is given), newest first; at most `limit`.
  r.get('/conversations', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().toLowerCase().slice(0, 200) : '';
    const limit = limitOf(req.query.limit, 200, 1000);
    const keys = (await o.store.conversations.keys()).slice(0, 5000);
    const found = [];
    for (const key of keys) {
      const c = await o.store.conversations.get(key).catch(() => undefined);
      const texts = (c?.messages ?? []).map((m) => textOf(m.content));
      const hit = q ? texts.find((t) => t.toLowerCase().includes(q)) : undefined;
      if (q && !key.toLowerCase().includes(q) && hit === undefined) continue;
      found.push({
        key,
        platform: platformOf(key),
        messages: c?.messages.length ?? 0,
        updatedAt: c?.updatedAt ?? null,
        ...(hit !== undefined ? { match: hit.slice(0, 200) } : {}),
      });
    }
    found.sort((a, b) => String(b.updatedAt ?? '').localeCompare(String(a.updatedAt ?? '')));
    res.json({ conversations: found.slice(0, limit), total: found.length });
  });

  r.get('/approvals', async (req, res) => {
    const limit = limitOf(req.query.limit, 50, 500);
    const [pending, decided] = await Promise.all([o.store.approvals.pending(), o.store.approvals.recent(limit)]);
    res.json({ pending, history: decided });
  });
  r.post('/approvals/:id/:decision', async (req: Request<{ id: string; decision: string }>, res) => {
    const { id, decision } = req.params;
    if (decision !== 'approve' && decision !== 'deny')
      return void res.status(404).json({ error: `no such decision "${decision}": approve or deny` });
    const by = `dashboard:${principalName(res.locals.admin as AdminPrincipal)}`;
    try {
      const out = await o.decideApproval(id, decision === 'approve', by);
      res.status(out.ok ? 200 : 409).json(out);
    } catch (e) {
      fail(res, e, 500);
    }
  });

  // The policy a user gets in a conversation (`/whoami` for anyone), and which tools it permits.
  r.get('/policy', (req, res) => {
    try {
      const conv = decodeConversationKey(String(req.query.conversation ?? ''));
      const user = decodeUserKey(String(req.query.user ?? ''));
      if (user.platform !== conv.platform)
        return void res.status(400).json({ error: `user ${user.platform} and conversation ${conv.platform} differ` });
      const policy = resolvePolicy(o.config, {
        platform: conv.platform,
        chatId: conv.chatId,
        ...(conv.threadId ? { threadId: conv.threadId } : {}),
        userId: user.userId,
      });
      const tools = o.tools().tools.map((t) => {
        const level = (PERMISSION_LEVELS as readonly string[]).includes(t.level)
          ? (t.level as PermissionLevel)
          : 'Execute';
        const p = permits(policy, t.name, level);
        return { name: t.name, level: t.level, permitted: p.ok, ...(p.ok ? {} : { reason: p.reason }) };
      });
      res.json({
        policy: maskSecrets(policy),
        tools,
        admin: o.config.admins.includes(`${user.platform}:${user.userId}`),
      });
    } catch (e) {
      fail(res, e);
    }
  });

  // Memory notes of one scope: `?conversation=<key>` or `?user=<platform>:<id>`.
  const scopeOf = (req: Request): MemoryScope => {
    if (typeof req.query.conversation === 'string' && req.query.conversation)
      return { kind: 'conversation', conversationKey: req.query.conversation };
    if (typeof req.query.user === 'string' && req.query.user) return { kind: 'user', userKey: req.query.user };
    throw new Error('name a scope: ?conversation=<key> or ?user=<platform>:<id>');
  };
  r.get('/memories', async (req, res) => {
    try {
      res.json({ notes: await o.store.memories.list(scopeOf(req)) });
    } catch (e) {
      fail(res, e);
    }
  });
  r.delete('/memories/:id', async (req: Request<{ id: string }>, res) => {
    try {
      const removed = await o.store.memories.remove(scopeOf(req), req.params.id);
      res.status(removed ? 200 : 404).json(removed ? { removed: req.params.id } : { error: 'no such note' });
    } catch (e) {
      fail(res, e);
    }
  });

  // Cost and tokens per day (UTC) of the last `days` days by channel, user, model and conversation,
  // read from the per-day totals the charges already keep (no per-day document of its own).
  r.get('/usage/daily', async (req, res) => {
    const span = days(limitOf(req.query.days, 14, 60));
    try {
      const daily = await o.store.usage.daily(span[0]!, span.at(-1)!);
      const { cut, ...series } = usageSeries(daily.days);
      const today = span.at(-1)!;
      const budgets = budgetsIn(o.config);
      const jobs = (await o.store.jobs.list()).filter((j) => j.budgetUsd !== undefined).slice(0, 200);
      const jobLogs = await Promise.all(jobs.map(async (job) => ({ job, logs: await o.store.jobs.logs(job.id, 50) })));
      const use = [
        ...budgetUse(
          o.config,
          daily.days.find((d) => d.day === today),
          budgets,
        ),
        ...jobRows(jobLogs, today),
      ];
      res.json({ days: span, ...series, truncated: daily.truncated, summed: cut, budgets, budgetUse: use });
    } catch (e) {
      fail(res, e, 500);
    }
  });

  r.get('/config', (_req, res) => void res.json({ config: maskSecrets(o.config), secrets: o.secretsSet() }));
  return r;
}
