// A job never does more than the conversation that scheduled it, nor more than its target
// conversation allows now: through the `schedule` tool, a real worker thread and the LLM emulator.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedModels, resolvePolicy } from '../../src/runner/policy.ts';
import { createScheduleTool } from '../../src/scheduler/index.ts';
import { runLimits } from '../../src/scheduler/run-job.ts';
import { createFileStore, type JobRecord } from '../../src/store/index.ts';
import { type LlmEmulator, llm } from '../emulators/llm/index.ts';
import { dataDir, llmEmulatorForFile, loadedConfig, setup } from './helpers.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

const CHAT = '-100123';
const TARGET = `telegram:${CHAT}`;
const FULL_NO_BASH = {
  channels: { telegram: { enabled: true, chats: { [CHAT]: { access: 'full', tools: { deny: ['bash'] } } } } },
};

/** Runs the job once with the emulator asking for bash; returns the tools offered and the tool result. */
async function runAskingForBash(ctx: ReturnType<typeof setup>, id: string) {
  const n = emu.requests.length;
  emu.script([
    llm.answer([llm.toolCalls(llm.call('bash', { command: 'echo pwned > pwned.txt' }))]),
    llm.say('tried bash'),
  ]);
  const report = await (await ctx.scheduler.runNow(id)).done;
  emu.assertDone();
  const first = emu.requests[n]!.body as { tools?: { function: { name: string } }[] };
  const second = emu.requests[n + 1]!.body as { messages: { role: string; content: string }[] };
  return {
    report,
    offered: (first.tools ?? []).map((t) => t.function.name),
    toolResult: second.messages.find((m) => m.role === 'tool')?.content ?? '',
  };
}

const channelDeniesBashTitle =
  'a channel that denies bash schedules a full-access job: the run is not offered bash and a forced bash call is ' +
  'refused';
test(channelDeniesBashTitle, async () => {
  const dir = dataDir();
  const loaded = loadedConfig(dir, FULL_NO_BASH);
  const ctx = setup(emu, { dir, loaded });
  try {
    const policy = resolvePolicy(loaded.config, { platform: 'telegram', chatId: CHAT, userId: '77' });
    const tool = createScheduleTool(ctx.scheduler, { conversationKey: TARGET, userId: '77', policy });
    const created = await tool.run(
      { action: 'create', name: 'nightly', cron: '0 3 * * *', prompt: 'run bash', access: 'full' },
      {},
    );
    assert.equal(created.isError, false, created.content);
    const [job] = await ctx.scheduler.list();
    assert.deepEqual(job!.policy?.tools.deny, ['bash'], "the job keeps the creating channel's deny list");
    const { report, offered, toolResult } = await runAskingForBash(ctx, job!.id);
    assert.equal(report.text, 'tried bash');
    assert.ok(offered.includes('write'), `the job has full access otherwise (offered: ${offered.join(', ')})`);
    assert.ok(!offered.includes('bash'), `bash is not offered (offered: ${offered.join(', ')})`);
    assert.match(toolResult, /bash is denied in this conversation/);
  } finally {
    await ctx.scheduler.stop();
    await ctx.store.close();
  }
});

test('a target whose policy was narrowed after the job was created binds the job at run time', async () => {
  const dir = dataDir();
  const open = loadedConfig(dir, { channels: { telegram: { enabled: true, chats: { [CHAT]: { access: 'full' } } } } });
  const first = setup(emu, { dir, loaded: open });
  const policy = resolvePolicy(open.config, { platform: 'telegram', chatId: CHAT, userId: '77' });
  const tool = createScheduleTool(first.scheduler, { conversationKey: TARGET, userId: '77', policy });
  assert.equal(
    (await tool.run({ action: 'create', name: 'nightly', cron: '0 3 * * *', prompt: 'run bash', access: 'full' }, {}))
      .isError,
    false,
  );
  const [job] = await first.scheduler.list();
  await first.scheduler.stop();
  await first.store.close();
  // The admin then turns the chat read-only; the stored job still says full.
  const ctx = setup(emu, {
    dir,
    loaded: loadedConfig(dir, {
      channels: { telegram: { enabled: true, chats: { [CHAT]: { access: 'read-only' } } } },
    }),
  });
  try {
    assert.equal((await ctx.scheduler.get(job!.id))?.access, 'full');
    const { offered, toolResult } = await runAskingForBash(ctx, job!.id);
    assert.ok(
      !offered.includes('bash') && !offered.includes('write'),
      `only read-only tools are offered (offered: ${offered.join(', ')})`,
    );
    assert.ok(offered.includes('read'));
    assert.match(toolResult, /bash needs Execute access, and this conversation is read-only/);
  } finally {
    await ctx.scheduler.stop();
    await ctx.store.close();
  }
});

const runLimitsCreatorTitle =
  'run limits: the creator policy and the target policy both narrow; admin jobs are narrowed by the target only';
test(runLimitsCreatorTitle, () => {
  const loaded = loadedConfig('/nonexistent', {
    channels: {
      telegram: {
        chats: {
          [CHAT]: {
            access: 'full',
            tools: { deny: ['web_fetch'] },
            network: { allow: ['https://a.example', 'https://b.example'] },
          },
        },
      },
    },
  });
  const base: JobRecord = {
    id: 'j',
    name: 'j',
    cron: '0 3 * * *',
    prompt: 'p',
    target: TARGET,
    access: 'full',
    timeoutMs: 1000,
    enabled: true,
    overlap: 'skip',
  };
  const admin = runLimits({ job: base, loaded });
  assert.equal(admin.access, 'full');
  assert.deepEqual(admin.tools, { deny: ['web_fetch'] });
  const fromChat = runLimits({
    job: {
      ...base,
      policy: {
        access: 'full',
        tools: { allow: ['read', 'bash', 'web_fetch'], deny: ['bash'] },
        network: { allow: ['https://b.example', 'https://c.example'] },
        model: 'openai/gpt-4o-mini',
      },
    },
    loaded,
  });
  assert.deepEqual(fromChat.tools, { allow: ['read', 'bash', 'web_fetch'], deny: ['bash', 'web_fetch'] });
  assert.deepEqual(fromChat.network.allow, ['https://b.example']);
  const capped = runLimits({
    job: { ...base, policy: { access: 'read-only', tools: {}, network: { allow: [] } } },
    loaded,
  });
  assert.equal(capped.access, 'read-only');
});

test("a job made by a user with one model cannot take the target channel's other models", () => {
  const loaded = loadedConfig('/nonexistent', {
    channels: {
      telegram: { chats: { [CHAT]: { access: 'full', model: 'openai/gpt-4o-mini', models: ['openai/gpt-4o'] } } },
    },
  });
  const job: JobRecord = {
    id: 'j',
    name: 'j',
    cron: '0 3 * * *',
    prompt: 'p',
    target: TARGET,
    access: 'full',
    timeoutMs: 1000,
    enabled: true,
    overlap: 'skip',
    policy: { access: 'full', tools: {}, network: { allow: [] }, model: 'openai/gpt-4o-mini' },
  };
  const limits = runLimits({ job, loaded });
  assert.equal(limits.model, 'openai/gpt-4o-mini');
  assert.deepEqual(allowedModels(limits), ['openai/gpt-4o-mini']);
  // An admin's job (no creator) is narrowed by the target only: its list stands.
  assert.deepEqual(allowedModels(runLimits({ job: { ...job, policy: undefined }, loaded })), [
    'openai/gpt-4o-mini',
    'openai/gpt-4o',
  ]);
});

test('jobs stored before creator policies were kept still load', async () => {
  const dir = dataDir();
  const store = createFileStore(dir);
  try {
    await store.jobs.put({
      id: 'old',
      name: 'old',
      cron: '0 3 * * *',
      prompt: 'p',
      target: TARGET,
      access: 'read-only',
      timeoutMs: 1000,
      enabled: true,
      overlap: 'skip',
    });
    assert.equal((await store.jobs.list()).length, 1);
    assert.equal((await store.jobs.get('old'))?.policy, undefined);
  } finally {
    await store.close();
  }
});

test('a job keeps the approval rules of the conversation that made it and of its target', () => {
  const loaded = loadedConfig('/nonexistent', {
    channels: { telegram: { chats: { [CHAT]: { access: 'full', approvals: { tools: ['bash'] } } } } },
  });
  const limits = runLimits({
    job: {
      id: 'j',
      name: 'j',
      cron: '0 3 * * *',
      prompt: 'p',
      target: TARGET,
      access: 'full',
      timeoutMs: 1000,
      enabled: true,
      overlap: 'skip',
      policy: { access: 'full', tools: {}, network: { allow: [] }, approvals: { levels: ['Write'] } },
    },
    loaded,
  });
  assert.deepEqual(limits.approvals, { levels: ['Write'], tools: ['bash'] });
});
