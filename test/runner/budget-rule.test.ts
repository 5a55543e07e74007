// The one daily budget rule of chat turns and job runs: whom a call is charged to, which limits
// it is held against before it is made, and what a limit has left.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { budgetHooks, chargedSubjects, createBudgetRule, dailyLimits } from '../../src/runner/budget-rule.ts';
import { createDailySpend, type DailyLimit } from '../../src/runner/daily-spend.ts';
import type { Persist } from '../../src/runner/persist.ts';
import { createMemoryStore } from '../../src/store/index.ts';

const once: Persist = (_what, write) => write();
const NOW = Date.parse('2026-11-27T12:00:00Z');
const usage = { inputTokens: 10, outputTokens: 1 };

function ledger() {
  const store = createMemoryStore();
  return { store, spend: createDailySpend(store.usage, { now: () => NOW, log: silentLogger }) };
}

test('a thread is charged with its channel and the person; the conversation budget counts the whole channel', () => {
  const payer = { conversationKey: 'slack:T1:C9:1712.33', userKey: 'slack:T1:U1' };
  assert.deepEqual(chargedSubjects(payer), [
    { conversationKey: 'slack:T1:C9:1712.33' },
    { userKey: 'slack:T1:U1' },
    { spaceKey: 'slack:T1:C9' },
  ]);
  assert.deepEqual(dailyLimits(payer, { conversationUsdPerDay: 1, userUsdPerDay: 2 }), [
    { kind: 'conversation', subjects: [{ conversationKey: 'slack:T1:C9' }, { spaceKey: 'slack:T1:C9' }], usd: 1 },
    { kind: 'user', subjects: [{ userKey: 'slack:T1:U1' }], usd: 2 },
  ]);
  // A job made by nobody (the CLI) has no person to charge or limit.
  assert.deepEqual(chargedSubjects({ conversationKey: 'telegram:5' }), [{ conversationKey: 'telegram:5' }]);
  assert.deepEqual(dailyLimits({ conversationKey: 'telegram:5' }, { userUsdPerDay: 2 }), []);
});

test('a chat call in flight and a job’s call of the same person hold against one budget', async () => {
  const { spend } = ledger();
  const budget = { userUsdPerDay: 0.05 };
  const chat = createBudgetRule(spend, { conversationKey: 'telegram:7', userKey: 'telegram:42' }, budget, () => NOW);
  const job = createBudgetRule(spend, { conversationKey: 'telegram:-100', userKey: 'telegram:42' }, budget, () => NOW);
  await Promise.all([chat.prepare(), job.prepare()]);
  const refusals: DailyLimit[] = [];
  const chatHooks = budgetHooks(chat, once);
  const jobHooks = budgetHooks(job, once, (l) => refusals.push(l));
  const held = chatHooks.reserve(0.05);
  assert.ok(held, 'the chat call is held');
  assert.equal(jobHooks.reserve(0.01), undefined, 'the job’s call is refused while the chat call holds the budget');
  assert.deepEqual(
    refusals.map((l) => l.kind),
    ['user'],
  );
  assert.deepEqual(
    job.takenUp().map((t) => [t.limit.kind, t.spent, t.held]),
    [['user', 0, 0.05]],
  );
  // The chat call spent less than it held: the job's call goes ahead, and counts for both.
  chatHooks.onCharge('openai/gpt-4o', usage, 0.02);
  held.release();
  const jobCall = jobHooks.reserve(0.01);
  assert.ok(jobCall);
  jobHooks.onCharge('openai/gpt-4o', usage, 0.01);
  jobCall.release();
  assert.equal(chat.left('user'), 0.05 - 0.03);
  assert.equal(job.left('conversation'), undefined, 'no conversation budget');
  assert.equal(chatHooks.overBudget(), false);
  chatHooks.onCharge('openai/gpt-4o', usage, 0.02);
  assert.equal(jobHooks.overBudget(), true, 'the person’s day is spent, whichever run spent it');
  await spend.flush();
});

test('charges reach the store for the conversation, its channel and the person, at the rule’s clock', async () => {
  const { store, spend } = ledger();
  const rule = createBudgetRule(
    spend,
    { conversationKey: 'discord:g1:c2:t3', userKey: 'discord:99' },
    undefined,
    () => NOW,
  );
  rule.charge('anthropic/claude-sonnet-4-5', usage, 0.25, once);
  rule.charge('anthropic/claude-sonnet-4-5', usage, undefined, once);
  await spend.flush();
  const day = '2026-11-27';
  assert.equal((await store.usage.get({ conversationKey: 'discord:g1:c2:t3' }, day)).day.costUsd, 0.25);
  assert.equal((await store.usage.get({ spaceKey: 'discord:g1:c2' }, day)).day.costUsd, 0.25);
  assert.equal((await store.usage.get({ userKey: 'discord:99' }, day)).day.costUsd, 0.25);
  assert.deepEqual(rule.limits, [], 'no budget, no limit: nothing is ever refused');
  assert.ok(rule.reserve(1000) && !('refused' in rule.reserve(1000)));
});
