// The Usage page's budget rows: each budget the config sets, with today's spending of each channel
// and person under it (limits resolved as the runner resolves them: a chat over its platform, a
// person's own override over both, a channel counting its threads), the budgets nobody spent under
// today, and each job's cap per run against its largest run today.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { budgetUse, jobRows } from '../../src/gateway/admin-budgets.ts';
import { budgetsIn } from '../../src/gateway/admin-views.ts';
import type { JobRecord, UsageDay, UsageTotals } from '../../src/store/index.ts';

const config = configSchema.parse({
  channels: {
    telegram: {
      budget: { userUsdPerDay: 1 },
      chats: { '-100': { budget: { conversationUsdPerDay: 2 } }, '77': { budget: { conversationUsdPerDay: 9 } } },
      users: { '7': { budget: { userUsdPerDay: 0.5 } } },
    },
    slack: { channels: { C9: { budget: { conversationUsdPerDay: 3 } } } },
  },
});
const spent = (costUsd: number): UsageTotals => ({
  inputTokens: 1,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  calls: 1,
  unknownCostCalls: 0,
  costUsd,
});
const today: UsageDay = {
  day: '2026-11-28',
  conversations: {
    'telegram:-100': spent(0.5),
    'telegram:-100:12': spent(1), // a topic counts toward its chat's budget
    'telegram:5': spent(4), // no channel budget there
    'slack:T1:C9:1712.33': spent(0.75),
    'irc:#x': spent(1), // a hand-edited key: no policy, no row
  },
  users: { 'telegram:7': spent(0.25), 'telegram:8': spent(1.5), 'web:ann': spent(3) },
  models: {},
};

test('each channel and person that spent today under a budget, with the config path that set it, fullest first', () => {
  const rows = budgetUse(config, today, budgetsIn(config));
  assert.deepEqual(
    rows.map((r) => [r.kind, r.source, r.subject ?? null, r.limitUsd, r.spentUsd]),
    [
      ['user', 'channels.telegram.budget', 'telegram:8', 1, 1.5],
      ['channel', 'channels.telegram.chats.-100.budget', 'telegram:-100', 2, 1.5],
      ['user', 'channels.telegram.users.7.budget', 'telegram:7', 0.5, 0.25],
      ['channel', 'channels.slack.channels.C9.budget', 'slack:T1:C9', 3, 0.75],
      ['channel', 'channels.telegram.chats.77.budget', null, 9, 0],
    ],
  );
  assert.ok(
    rows.every((r) => r.per === 'day'),
    'daily budgets',
  );
});

test('no budget in the config: no rows, whatever was spent; nothing spent today: every budget at zero', () => {
  assert.deepEqual(budgetUse(configSchema.parse({}), today, []), []);
  assert.deepEqual(
    budgetUse(config, undefined, budgetsIn(config))
      .map((r) => `${r.source} ${r.limitUsd} ${r.spentUsd}`)
      .sort(),
    [
      'channels.slack.channels.C9.budget 3 0',
      'channels.telegram.budget 1 0',
      'channels.telegram.chats.-100.budget 2 0',
      'channels.telegram.chats.77.budget 9 0',
      'channels.telegram.users.7.budget 0.5 0',
    ],
  );
});

test("a job's cap per run against its largest run today; jobs without a cap have no row", () => {
  const job = (name: string, budgetUsd?: number): JobRecord => ({
    id: name,
    name,
    cron: '0 9 * * *',
    prompt: 'p',
    target: 'telegram:1',
    access: 'read-only',
    timeoutMs: 1000,
    enabled: true,
    overlap: 'skip',
    ...(budgetUsd !== undefined ? { budgetUsd } : {}),
  });
  const run = (startedAt: string, costUsd: number) => ({
    jobId: 'x',
    startedAt,
    finishedAt: startedAt,
    outcome: 'final',
    delivered: null,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd,
  });
  const rows = jobRows(
    [
      { job: job('digest', 0.2), logs: [run('2026-11-27T09:00:00Z', 0.19), run('2026-11-28T09:00:00Z', 0.05)] },
      { job: job('idle', 1), logs: [] },
      { job: job('uncapped'), logs: [run('2026-11-28T09:00:00Z', 5)] },
    ],
    '2026-11-28',
  );
  assert.deepEqual(
    rows.map((r) => [r.source, r.subject, r.limitUsd, r.spentUsd, r.per, r.runs]),
    [
      ['jobs.digest.budgetUsd', 'digest', 0.2, 0.05, 'run', 1],
      ['jobs.idle.budgetUsd', 'idle', 1, 0, 'run', 0],
    ],
  );
});
