// The admin API's routes behind the dashboard, over a real (in-memory) store through the HTTP
// server with its bearer token: overview, conversation search, approvals (history and decisions),
// any user's effective policy, memory notes by scope, spending per day, the masked config.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createAdminApi } from '../../src/gateway/admin-api.ts';
import { maskSecrets } from '../../src/gateway/admin-views.ts';
import { startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { type ApprovalRecord, createMemoryStore } from '../../src/store/index.ts';

const TOKEN = 'views-token-0123456789';

async function serve(t: { after(fn: () => unknown): void }) {
  const store = createMemoryStore();
  const config = configSchema.parse({
    model: 'openai/gpt-4o-mini',
    admins: ['telegram:4242'],
    channels: {
      telegram: { access: 'full', chats: { '-100': { access: 'read-only', budget: { conversationUsdPerDay: 2 } } } },
    },
    store: { url: 'postgres://boxbot:hunter2@db.internal/boxbot' },
  });
  const decisions: [string, boolean, string][] = [];
  const admin = createAdminApi({
    store,
    tools: () => ({
      tools: [
        { name: 'read', level: 'ReadOnly', about: 'reads', source: 'bundled', version: '1' },
        { name: 'bash', level: 'Execute', about: 'runs', source: 'bundled', version: '1' },
      ],
      problems: [],
    }),
    skills: () => ({ skills: [], problems: [] }),
    views: {
      config,
      state: async () => ({
        channels: [{ platform: 'telegram', up: true }],
        runsInFlight: 2,
        queueDepth: 3,
        errors: [{ scope: 'webhook', count: 1 }],
      }),
      decideApproval: async (id, approve, by) => {
        decisions.push([id, approve, by]);
        return { ok: true, text: approve ? 'Approved' : 'Denied' };
      },
      secretsSet: () => ({ OPENAI_API_KEY: true, TELEGRAM_BOT_TOKEN: false }),
    },
  });
  const s = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(),
    routes: [],
    adminToken: TOKEN,
    admin,
  });
  t.after(() => s.close());
  const call = async <T>(path: string, method = 'GET') => {
    const res = await fetch(`${s.url}/admin/api${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: res.status, body: (await res.json()) as T };
  };
  return { store, call, decisions };
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

test('overview: model, channels, work in hand, outbox, pending approvals and errors', async (t) => {
  const { store, call } = await serve(t);
  const job = { name: 'digest', prompt: 'p', target: 'telegram:1', access: 'read-only' as const, timeoutMs: 1000 };
  await store.jobs.put({ ...job, id: 'j1', cron: '0 9 * * *', enabled: true, overlap: 'skip' });
  const run = { jobId: 'j1', delivered: null, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0 };
  const times = (min: number) => ({
    startedAt: new Date(Date.UTC(2026, 0, 1, 9, min)).toISOString(),
    finishedAt: new Date(Date.UTC(2026, 0, 1, 9, min, 30)).toISOString(),
  });
  await store.jobs.appendLog({ ...run, ...times(1), outcome: 'final' });
  await store.jobs.appendLog({ ...run, ...times(2), outcome: 'timeout', error: 'the run took longer than 1 s' });
  const { body } = await call<Record<string, unknown>>('/overview');
  assert.equal(body.model, 'openai/gpt-4o-mini');
  assert.deepEqual(body.channels, [{ platform: 'telegram', up: true }]);
  assert.equal(body.runsInFlight, 2);
  assert.equal(body.queueDepth, 3);
  assert.equal(body.outboxPending, 0);
  assert.equal(body.approvalsPending, 0);
  assert.deepEqual(body.errors, [{ scope: 'webhook', count: 1 }]);
  assert.deepEqual(body.failedJobRuns, [
    { job: 'digest', outcome: 'timeout', error: 'the run took longer than 1 s', at: '2026-01-01T09:02:30.000Z' },
  ]);
});

test('conversations: all of them newest first, and a search finds words inside messages', async (t) => {
  const { store, call } = await serve(t);
  await store.conversations.setMessages('telegram:1', [{ role: 'user', content: text('where is the invoice?') }]);
  await store.conversations.setMessages('slack:T1:C1', [{ role: 'user', content: text('deploy on friday') }]);
  const all = await call<{ conversations: { key: string }[]; total: number }>('/conversations');
  assert.equal(all.body.total, 2);
  assert.deepEqual(all.body.conversations.map((c) => c.key).sort(), ['slack:T1:C1', 'telegram:1']);
  const found = await call<{ conversations: { key: string; match?: string }[] }>('/conversations?q=INVOICE');
  assert.deepEqual(
    found.body.conversations.map((c) => [c.key, c.match]),
    [['telegram:1', 'where is the invoice?']],
  );
});

test('approvals: pending and history; a decision goes to the gateway as the dashboard admin', async (t) => {
  const { store, call, decisions } = await serve(t);
  const base: ApprovalRecord = {
    id: 'ab12',
    conversationKey: 'telegram:1',
    inboundId: 'telegram:1:9',
    requesterId: '7',
    approvers: ['7'],
    tool: 'write',
    input: { file_path: 'a.txt' },
    question: 'May I?',
    target: { conversationKey: 'telegram:1', chatId: '1' },
    state: 'pending',
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  };
  await store.approvals.put(base);
  await store.approvals.put({ ...base, id: 'cd34' });
  await store.approvals.decide('cd34', 'denied', new Date().toISOString(), '7');
  const list = await call<{ pending: ApprovalRecord[]; history: ApprovalRecord[] }>('/approvals');
  assert.deepEqual(
    list.body.pending.map((a) => [a.id, a.input]),
    [['ab12', { file_path: 'a.txt' }]],
  );
  assert.deepEqual(
    list.body.history.map((a) => [a.id, a.state]),
    [['cd34', 'denied']],
  );
  assert.equal((await call('/approvals/ab12/approve', 'POST')).status, 200);
  assert.deepEqual(decisions, [['ab12', true, 'dashboard:admin token']]);
  assert.equal((await call('/approvals/ab12/maybe', 'POST')).status, 404);
});

test('policy: any user in any conversation, with the tools it permits and why not', async (t) => {
  const { call } = await serve(t);
  type Out = { policy: { access: string }; tools: { name: string; permitted: boolean; reason?: string }[] };
  const dm = await call<Out>('/policy?user=telegram:7&conversation=telegram:7');
  assert.equal(dm.body.policy.access, 'full');
  assert.ok(dm.body.tools.every((x) => x.permitted));
  const group = await call<Out>('/policy?user=telegram:7&conversation=telegram:-100');
  assert.equal(group.body.policy.access, 'read-only');
  assert.deepEqual(
    group.body.tools.map((x) => [x.name, x.permitted]),
    [
      ['read', true],
      ['bash', false],
    ],
  );
  assert.match(group.body.tools[1]!.reason ?? '', /needs Execute access/);
  const bad = await call<{ error: string }>('/policy?user=nobody&conversation=telegram:1');
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /user key/i);
});

test('memory: the notes of a scope, and deleting one', async (t) => {
  const { store, call } = await serve(t);
  const scope = { kind: 'user' as const, userKey: 'telegram:7' };
  await store.memories.add({ id: 'm-1', scope, text: 'likes tea', createdAt: new Date().toISOString() });
  await store.memories.add({ id: 'm-2', scope, text: 'lives in Lyon', createdAt: new Date().toISOString() });
  const listed = await call<{ notes: { id: string; text: string }[] }>('/memories?user=telegram:7');
  assert.deepEqual(
    listed.body.notes.map((n) => n.text),
    ['likes tea', 'lives in Lyon'],
  );
  assert.equal((await call('/memories/m-1?user=telegram:7', 'DELETE')).status, 200);
  assert.equal((await call('/memories/m-1?user=telegram:7', 'DELETE')).status, 404);
  assert.deepEqual(
    (await store.memories.list(scope)).map((n) => n.id),
    ['m-2'],
  );
  assert.equal((await call('/memories')).status, 400, 'no scope named');
});

test('usage: cost and tokens per day by channel, user, model and conversation, today, budgets', async (t) => {
  const { store, call } = await serve(t);
  const now = new Date();
  const at = now.toISOString();
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString();
  const usage = { inputTokens: 100, outputTokens: 20 };
  const gpt = 'openai/gpt-4o-mini';
  await store.usage.add({ conversationKey: 'telegram:1', userKey: 'telegram:7', model: gpt, usage, costUsd: 0.25, at });
  await store.usage.add({ conversationKey: 'telegram:2', userKey: 'telegram:8', model: gpt, usage, costUsd: 0.5, at });
  const claude = 'anthropic/claude-sonnet-4-5';
  await store.usage.add({ conversationKey: 'web:x', userKey: 'web:ann', model: claude, usage, costUsd: 1, at });
  // A job's run (no user), yesterday.
  await store.usage.add({ conversationKey: 'telegram:2', model: claude, usage, costUsd: 2, at: yesterday });
  type Series = { costUsd: number[]; tokens: number[]; inputTokens: number[]; outputTokens: number[]; calls: number[] };
  type Out = {
    days: string[];
    byChannel: Record<string, Series>;
    byUser: Record<string, Series>;
    byModel: Record<string, Series>;
    conversations: ({ key: string } & Series)[];
    today: { date: string; costUsd: number; tokens: number; calls: number };
    budgets: { path: string }[];
    budgetUse: { kind: string; source: string; subject?: string; limitUsd: number; spentUsd: number }[];
    truncated: boolean;
  };
  const { status, body } = await call<Out>('/usage/daily?days=7');
  assert.equal(status, 200);
  assert.equal(body.days.length, 7);
  assert.equal(body.days.at(-1), at.slice(0, 10));
  assert.deepEqual(Object.keys(body.byChannel), ['telegram', 'web'], 'the biggest spender first');
  assert.deepEqual(body.byChannel.telegram!.costUsd.slice(-2), [2, 0.75]);
  assert.deepEqual(body.byChannel.telegram!.tokens.slice(-2), [120, 240]);
  assert.equal(body.byChannel.telegram!.costUsd[0], 0);
  assert.deepEqual(Object.keys(body.byUser), ['web:ann', 'telegram:8', 'telegram:7']);
  assert.deepEqual(body.byUser['telegram:8']!.costUsd.slice(-2), [0, 0.5], 'the job’s call is nobody’s');
  assert.deepEqual(body.byModel[claude]!.costUsd.slice(-2), [2, 1]);
  assert.deepEqual(body.byModel[gpt]!.calls.slice(-2), [0, 2]);
  assert.deepEqual(body.byModel[gpt]!.inputTokens.slice(-1), [200]);
  assert.deepEqual(body.byModel[gpt]!.outputTokens.slice(-1), [40]);
  assert.deepEqual(
    body.conversations.map((c) => [c.key, c.costUsd.reduce((a, b) => a + b, 0)]),
    [
      ['telegram:2', 2.5],
      ['web:x', 1],
      ['telegram:1', 0.25],
    ],
  );
  assert.deepEqual(body.today, { date: at.slice(0, 10), costUsd: 1.75, tokens: 360, calls: 3 });
  assert.equal(body.truncated, false);
  assert.deepEqual(
    body.budgets.map((b) => b.path),
    ['channels.telegram.chats.-100.budget'],
  );
  assert.deepEqual(
    body.budgetUse,
    [{ kind: 'channel', source: 'channels.telegram.chats.-100.budget', limitUsd: 2, spentUsd: 0, per: 'day' }],
    'the budget, nobody in that chat spent today',
  );
  assert.equal((await call<Out>('/usage/daily?days=500')).body.days.length, 60, 'at most 60 days');
});

test('usage: past 100 users the smallest spenders are summed into one series', async (t) => {
  const { store, call } = await serve(t);
  const at = new Date().toISOString();
  for (let i = 0; i < 102; i++)
    await store.usage.add({
      conversationKey: 'web:x',
      userKey: `web:u${i}`,
      model: 'openai/gpt-4o-mini',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: (i + 1) / 1024,
      at,
    });
  const { body } = await call<{ byUser: Record<string, { costUsd: number[] }>; summed: boolean }>('/usage/daily');
  assert.equal(Object.keys(body.byUser).length, 101);
  assert.equal(Object.keys(body.byUser)[0], 'web:u101');
  assert.equal(body.byUser['web:u1'], undefined);
  assert.equal(body.byUser['(all others)']!.costUsd.at(-1), 3 / 1024, 'the two smallest together');
  assert.equal(body.summed, true);
});

test('config: the effective config with secrets masked, and which secret variables are set', async (t) => {
  const { call } = await serve(t);
  const { body } = await call<{ config: { store: { url: string }; admins: string[] }; secrets: object }>('/config');
  assert.equal(body.config.store.url, 'postgres://boxbot:••••••@db.internal/boxbot');
  assert.deepEqual(body.config.admins, ['telegram:4242']);
  assert.deepEqual(body.secrets, { OPENAI_API_KEY: true, TELEGRAM_BOT_TOKEN: false });
  assert.deepEqual(maskSecrets({ apiKeyEnv: 'GROQ_API_KEY', botToken: 'x', nested: [{ secret: 's' }] }), {
    apiKeyEnv: 'GROQ_API_KEY',
    botToken: '••••••',
    nested: [{ secret: '••••••' }],
  });
});
