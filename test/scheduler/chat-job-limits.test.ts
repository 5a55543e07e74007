// Jobs made from chat have limits a model cannot talk its way past: a shortest time between runs,
// read from the cron's fire times (not its spelling), and a number per conversation, held under
// parallel calls. The scheduler's own API (the CLI's and the admin API's) keeps seconds-level cron.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentDeps, runAgent } from '../../src/agent/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createScheduler, createScheduleTool, type Scheduler } from '../../src/scheduler/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { noSandbox, noWasm, policy } from '../agent/loop/helpers.ts';
import { callTools, reply, scriptedModel } from '../agent/loop/scripted.ts';

const HERE = 'slack:T1:C1';

function scheduler(): Scheduler {
  const loaded = { config: configSchema.parse({}), file: undefined, dataDir: '/nonexistent-data' };
  return createScheduler({
    store: createMemoryStore(),
    loaded,
    secrets: {},
    reloadMs: 0,
    isKnownTarget: (key) => (key.startsWith('slack:') ? true : `no ${key.split(':')[0]} channel is running`),
  });
}

test('the model asks for a job every 6 seconds: refused, naming the limit; the CLI and admin API may', async (t) => {
  const s = scheduler();
  const tool = createScheduleTool(s, { conversationKey: HERE, userId: 'U1' });
  const provider = scriptedModel(t, [
    callTools([['schedule', { action: 'create', name: 'ping', cron: '*/6 * * * * *', prompt: 'say ping' }]]),
    reply('I could not schedule that.'),
  ]);
  const deps: AgentDeps = {
    resolveModel: () => ({ provider, model: 'm', id: 'scripted/m' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
    builtins: [tool],
  };
  const r = await runAgent({ input: 'say ping every 6 seconds', policy: policy('full'), deps });
  assert.equal(r.outcome, 'final');
  const result = provider.requests[1]!.messages.at(-1)!.content[0]!;
  assert.ok(result.type === 'tool-result' && result.isError);
  assert.match(
    result.content,
    /^"\*\/6 \* \* \* \* \*" runs every 6 seconds at times; jobs made from chat may run at most every 5 minutes/,
  );
  assert.deepEqual(await s.list(), []);
  assert.match(tool.description, /A job made here runs at most every 5 minutes/);

  // Read from the fire times: every spelling of "often" counts, a rare pair of close runs too.
  for (const [cron, every] of [
    ['0-59 * * * *', '1 minute'],
    ['0,1 9 * * *', '1 minute'],
    ['*/2 * * * *', '2 minutes'],
    ['0,59 0,23 * * *', '1 minute'],
  ] as const) {
    const refused = await tool.run({ action: 'create', cron, prompt: 'hi' }, {});
    assert.equal(refused.isError, true, cron);
    assert.match(refused.content, new RegExp(`runs every ${every} at times`), cron);
  }
  for (const cron of ['*/5 * * * *', '@hourly', '0 9 * * MON-FRI', '0 0 1 1 *']) {
    const made = await tool.run({ action: 'create', cron, prompt: 'hi' }, {});
    assert.equal(made.isError, false, `${cron}: ${made.content}`);
  }
  // A bad expression still gets the validator's words.
  assert.match((await tool.run({ action: 'create', cron: '0 25 * * *', prompt: 'hi' }, {})).content, /^cron: /);

  // The scheduler's own API (what `boxbot job add` and the admin API call) is not limited.
  const cli = await s.add({ name: 'fast', cron: '*/6 * * * * *', prompt: 'tick', target: HERE });
  assert.equal(cli.cron, '*/6 * * * * *');
});

test('the shortest interval is configurable', async () => {
  const s = scheduler();
  const chatJobs = { minIntervalMinutes: 1, maxPerConversation: 10 };
  const tool = createScheduleTool(s, { conversationKey: HERE, userId: 'U1', chatJobs });
  assert.equal((await tool.run({ action: 'create', cron: '* * * * *', prompt: 'hi' }, {})).isError, false);
  const seconds = await tool.run({ action: 'create', cron: '*/30 * * * * *', prompt: 'hi' }, {});
  assert.match(seconds.content, /runs every 30 seconds at times; jobs made from chat may run at most every 1 minute /);
});

test('a conversation holds at most maxPerConversation jobs made from chat, also when created in parallel', async () => {
  const s = scheduler();
  const chatJobs = { minIntervalMinutes: 5, maxPerConversation: 3 };
  const tool = createScheduleTool(s, { conversationKey: HERE, userId: 'U1', chatJobs });
  // A job added with the CLI does not count against the chat's jobs.
  await s.add({ name: 'cli', cron: '0 6 * * *', prompt: 'morning', target: HERE });
  // Another run's tool instance, in the same conversation, at the same time.
  const other = createScheduleTool(s, { conversationKey: HERE, userId: 'U2', chatJobs });
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      (i % 2 ? other : tool).run({ action: 'create', name: `j${i}`, cron: `${i} 9 * * *`, prompt: 'hi' }, {}),
    ),
  );
  assert.equal(results.filter((r) => !r.isError).length, 3);
  const refused = results.filter((r) => r.isError);
  assert.equal(refused.length, 2);
  for (const r of refused)
    assert.equal(
      r.content,
      'this conversation already has 3 jobs made from chat; at most 3 are allowed ' +
        '(scheduler.chatJobs.maxPerConversation); remove one first (list, then remove)',
    );
  assert.equal((await s.list()).filter((j) => j.target === HERE).length, 4);
  // Room again once one is removed.
  const gone = (await s.list()).find((j) => j.createdBy)!;
  await tool.run({ action: 'remove', id: gone.id }, {});
  assert.equal((await tool.run({ action: 'create', cron: '30 9 * * *', prompt: 'hi' }, {})).isError, false);
});
