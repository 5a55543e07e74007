// The `schedule` tool as chat uses it: a user with full access asks for "every weekday at 9 a
// digest of this channel here"; the job targets the current conversation; other targets need an
// admin; users list and remove only their conversation's jobs; read-only chats never see it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentDeps, runAgent } from '../../src/agent/index.ts';
import { createToolSet } from '../../src/agent/loop/tool-set.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createScheduler, createScheduleTool, type Scheduler } from '../../src/scheduler/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { noSandbox, noWasm, policy } from '../agent/loop/helpers.ts';
import { callTools, reply, scriptedModel } from '../agent/loop/scripted.ts';

const HERE = 'slack:T1:C1';

function scheduler(): Scheduler {
  const store = createMemoryStore();
  const loaded = { config: configSchema.parse({}), file: undefined, dataDir: '/nonexistent-data' };
  return createScheduler({
    store,
    loaded,
    secrets: {},
    reloadMs: 0,
    isKnownTarget: (key) =>
      key.startsWith('slack:') || key.startsWith('telegram:') ? true : `no ${key.split(':')[0]} channel is running`,
  });
}

test('only full access sees the tool: it is a Write-level tool', () => {
  const tool = createScheduleTool(scheduler(), { conversationKey: HERE, userId: 'U1' });
  assert.equal(tool.permissionLevel, 'Write');
  const names = (access: 'full' | 'read-only' | 'chat-only') =>
    createToolSet({ wasm: noWasm, builtins: [tool], policy: policy(access), sandbox: noSandbox }).permittedNames();
  assert.deepEqual(names('full'), ['schedule']);
  assert.deepEqual(names('read-only'), []);
  assert.deepEqual(names('chat-only'), []);
  assert.match(tool.description, /the target is this conversation unless the user is an admin/);
});

const everyWeekday9Title =
  '"every weekday at 9 post a digest of this channel here" through the agent creates a job for this conversation';
test(everyWeekday9Title, async (t) => {
  const s = scheduler();
  const tool = createScheduleTool(s, { conversationKey: HERE, userId: 'U1' });
  const provider = scriptedModel(t, [
    callTools([
      [
        'schedule',
        {
          action: 'create',
          name: 'channel digest',
          cron: '0 9 * * 1-5',
          prompt: '/daily-digest',
          timezone: 'Europe/Berlin',
        },
      ],
    ]),
    reply('Done: a digest of this channel every weekday at 9:00.'),
  ]);
  const deps: AgentDeps = {
    resolveModel: () => ({ provider, model: 'm', id: 'scripted/m' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
    builtins: [tool],
  };
  const r = await runAgent({
    input: 'every weekday at 9 post a digest of this channel here',
    policy: policy('full'),
    deps,
  });
  assert.equal(r.outcome, 'final');
  const jobs = await s.list();
  assert.equal(jobs.length, 1);
  assert.deepEqual(
    {
      name: jobs[0]!.name,
      cron: jobs[0]!.cron,
      timezone: jobs[0]!.timezone,
      prompt: jobs[0]!.prompt,
      target: jobs[0]!.target,
      access: jobs[0]!.access,
    },
    {
      name: 'channel digest',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      prompt: '/daily-digest',
      target: HERE,
      access: 'read-only',
    },
  );
  const result = provider.requests[1]!.messages.at(-1)!.content[0]!;
  assert.ok(result.type === 'tool-result' && !result.isError);
  assert.match(
    result.content,
    new RegExp(
      `^Scheduled\\. ${jobs[0]!.id} "channel digest": 0 9 \\* \\* 1-5 \\(Europe/Berlin\\) → this conversation; ` +
        `next run \\d{4}-\\d\\d-\\d\\d 09:00 Europe/Berlin;`,
    ),
  );
});

test('targets: this conversation only, unless the user is an admin; bad input is refused with the field', async () => {
  const s = scheduler();
  const user = createScheduleTool(s, { conversationKey: HERE, userId: 'U1', admins: ['slack:UADMIN'] });
  const admin = createScheduleTool(s, { conversationKey: HERE, userId: 'UADMIN', admins: ['slack:UADMIN'] });
  const elsewhere = await user.run({ action: 'create', cron: '0 9 * * *', prompt: 'hi', target: 'telegram:5' }, {});
  assert.equal(elsewhere.isError, true);
  assert.match(elsewhere.content, /^only admins may schedule posts to another conversation/);
  assert.equal((await s.list()).length, 0);

  const badCron = await user.run({ action: 'create', cron: '0 25 * * *', prompt: 'hi' }, {});
  assert.equal(badCron.isError, true);
  assert.match(badCron.content, /^cron: "0 25 \* \* \*" is not a valid cron expression/);
  const badTarget = await admin.run({ action: 'create', cron: '0 9 * * *', prompt: 'hi', target: 'discord:1:2' }, {});
  assert.equal(badTarget.content, 'target: no discord channel is running');

  const theirs = await admin.run(
    { action: 'create', name: 'ops', cron: '0 8 * * *', prompt: 'status', target: 'telegram:5' },
    {},
  );
  assert.equal(theirs.isError, false, theirs.content);
  const mine = await user.run({ action: 'create', name: 'mine', cron: '0 9 * * *', prompt: 'hello' }, {});
  assert.equal(mine.isError, false, mine.content);

  const listed = await user.run({ action: 'list' }, {});
  assert.match(listed.content, /"mine"/);
  assert.doesNotMatch(listed.content, /"ops"/, "users see only this conversation's jobs");
  assert.match((await admin.run({ action: 'list' }, {})).content, /"ops"[\s\S]*telegram:5|telegram:5[\s\S]*"ops"/);

  const opsId = (await s.list()).find((j) => j.name === 'ops')!.id;
  const mineId = (await s.list()).find((j) => j.name === 'mine')!.id;
  const refused = await user.run({ action: 'remove', id: opsId }, {});
  assert.equal(refused.isError, true);
  assert.match(refused.content, /no job .* for this conversation/);
  assert.equal((await user.run({ action: 'remove', id: mineId }, {})).content, `Removed job ${mineId} "mine".`);
  assert.deepEqual(
    (await s.list()).map((j) => j.name),
    ['ops'],
  );
  assert.equal((await user.run({ action: 'list' }, {})).content, 'No jobs are scheduled for this conversation.');
  assert.equal((await user.run({ action: 'remove', id: '../x' }, {})).isError, true);
});

test("a job made from a conversation keeps its policy, with access capped at the conversation's", async () => {
  const s = scheduler();
  const policy = {
    access: 'read-only' as const,
    tools: { deny: ['web_fetch'] },
    network: { allow: ['https://api.example.com'] },
    model: 'openai/gpt-4o-mini',
  };
  const tool = createScheduleTool(s, { conversationKey: HERE, userId: 'U1', policy });
  const r = await tool.run({ action: 'create', cron: '0 9 * * *', prompt: 'hi', access: 'full' }, {});
  assert.equal(r.isError, false, r.content);
  assert.match(r.content, /It runs read-only, as this conversation is/);
  const [job] = await s.list();
  assert.equal(job!.access, 'read-only');
  assert.deepEqual(job!.policy, policy);
});
