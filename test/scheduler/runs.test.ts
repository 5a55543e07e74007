// What one run does, through a real worker thread and the LLM emulator: failures of every kind
// post a short notice to the target instead of failing silently, a read-only job cannot write,
// the budget stops spending (the job's own, and the target conversation's daily budget, which the
// job's spending counts toward), and a digest job sees the target conversation's recent messages.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Message } from '../../src/agent/index.ts';
import { createFileStore, encodeName } from '../../src/store/index.ts';
import { compiledTestWorker } from '../compiled-src.ts';
import { type LlmEmulator, llm } from '../emulators/llm/index.ts';
import { dataDir, lastUserText, llmEmulatorForFile, loadedConfig, setup } from './helpers.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

const TARGET = 'telegram:-100123';
const workerFile = (name: string) =>
  compiledTestWorker(fileURLToPath(new URL(`./workers/${name}.ts`, import.meta.url)));

/** Runs `job` once through a fresh scheduler; returns the report, what was posted and the store. */
async function runOnce(
  job: { prompt: string; access?: string; model?: string; timeoutMs?: number; budgetUsd?: number },
  over: Parameters<typeof setup>[1] = {},
) {
  const ctx = setup(emu, over);
  try {
    const added = await ctx.scheduler.add({ name: 'nightly', cron: '0 3 * * *', target: TARGET, ...job });
    const report = await (await ctx.scheduler.runNow(added.id)).done;
    const logs = await ctx.store.jobs.logs(added.id);
    return { ...ctx, job: added, report, logs };
  } finally {
    await ctx.scheduler.stop();
    await ctx.store.close();
  }
}

test('a model answering 500 posts a failure notice to the target and logs the error', async () => {
  emu.respond(() => llm.fail(500, { retryAfterMs: 1, message: 'upstream exploded' }));
  try {
    const { report, posted, logs } = await runOnce({ prompt: 'summarize the news' });
    assert.equal(report.failed, true);
    assert.equal(posted.length, 1);
    assert.equal(posted[0]!.key, TARGET);
    assert.match(posted[0]!.text, /^Scheduled job "nightly" failed: .*500/);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.outcome, 'error');
    assert.equal(logs[0]!.delivered, 'm1');
    assert.match(logs[0]!.error ?? '', /500/);
  } finally {
    emu.respond(undefined);
  }
});

test('a job whose model does not exist posts a notice naming it', async () => {
  const { posted, logs } = await runOnce({ prompt: 'hello', model: 'nosuch/model-9' });
  assert.equal(posted.length, 1);
  assert.match(posted[0]!.text, /^Scheduled job "nightly" failed: .*nosuch/);
  assert.equal(logs[0]!.outcome, 'error');
  assert.equal(emu.requests.filter((r) => r.body?.model === 'model-9').length, 0);
});

test('a run past its timeout posts a timeout notice', async () => {
  emu.script([llm.answer([llm.hang()])]);
  // Long enough for the worker to reach the model (which then hangs) on a loaded machine: the timeout counts from
  // the worker's start, and at 1.5 s it could pass first, leaving the scripted reply unused.
  const { posted, logs } = await runOnce({ prompt: 'take forever', timeoutMs: 6000 });
  assert.equal(logs[0]!.outcome, 'timeout');
  assert.equal(posted[0]!.text, 'Scheduled job "nightly" timed out after 6s.');
  emu.assertDone();
});

test('a crashing worker posts a notice with the reason', async () => {
  const { posted, logs } = await runOnce({ prompt: 'x' }, { workerFile: workerFile('crash') });
  assert.equal(posted.length, 1);
  assert.equal(posted[0]!.text, 'Scheduled job "nightly" failed: boom: the worker fell over');
  assert.equal(logs[0]!.outcome, 'error');
});

test('a worker that does not stop at the timeout is terminated and a notice posted', async () => {
  const { posted, logs } = await runOnce(
    { prompt: 'x', timeoutMs: 300 },
    { workerFile: workerFile('hang'), graceMs: 300 },
  );
  assert.equal(logs[0]!.outcome, 'timeout');
  assert.equal(
    posted[0]!.text,
    'Scheduled job "nightly" timed out after 0.3s: its worker did not stop at the timeout and was terminated.',
  );
});

test('the budget stops spending: a run over its budget makes no further model calls and says so', async () => {
  emu.script([llm.answer([llm.toolCalls(llm.call('ls', { path: '/' }))], { usage: { input: 2_000_000, output: 10 } })]);
  const before = emu.requests.length;
  const { posted, logs } = await runOnce({ prompt: 'list files forever', budgetUsd: 0.01 });
  assert.equal(emu.requests.length - before, 1, 'one model call, then the budget stopped the run');
  assert.equal(logs[0]!.outcome, 'budget-exceeded');
  assert.ok(logs[0]!.costUsd > 0.01, `the cost of the call is logged (${logs[0]!.costUsd})`);
  assert.equal(posted[0]!.text, 'Scheduled job "nightly" stopped: its budget of $0.01 is spent.');
  emu.assertDone();
});

for (const access of ['read-only', 'full'] as const) {
  test(`a ${access} job ${access === 'full' ? 'can' : 'cannot'} write into the target's workspace`, async () => {
    const n = emu.requests.length;
    emu.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'note.txt', content: 'written by a job' }))]),
      llm.say('tried to write the note'),
    ]);
    // The target chat itself must allow full access: a job never gets more than its target's policy.
    const jobDir = dataDir();
    const { report, dir } = await runOnce(
      { prompt: 'write note.txt', access },
      {
        dir: jobDir,
        loaded: loadedConfig(jobDir, { channels: { telegram: { chats: { '-100123': { access: 'full' } } } } }),
      },
    );
    emu.assertDone();
    const file = join(dir, 'workspaces', encodeName(TARGET), 'note.txt');
    const first = emu.requests[n]!.body as { tools?: { function: { name: string } }[] };
    const offered = (first.tools ?? []).map((t) => t.function.name);
    const second = emu.requests[n + 1]!.body as { messages: { role: string; content: string }[] };
    const toolResult = second.messages.find((m) => m.role === 'tool')?.content ?? '';
    assert.equal(report.text, 'tried to write the note');
    if (access === 'read-only') {
      assert.ok(!offered.includes('write'), `write is not offered to a read-only job (offered: ${offered.join(', ')})`);
      assert.ok(offered.includes('read'), 'read-only tools are offered');
      assert.match(toolResult, /write needs Write access, and this conversation is read-only/);
      assert.equal(existsSync(file), false, 'no file was written');
    } else {
      assert.ok(offered.includes('write'));
      assert.equal(readFileSync(file, 'utf8'), 'written by a job');
    }
  });
}

test("a digest job (/daily-digest) gets the target conversation's recent messages through the skill", async () => {
  const ctx = setup(emu);
  const history: Message[] = [
    { role: 'user', content: [{ type: 'text', text: '[ada]: The release moves to Friday' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted: release on Friday.' }] },
    { role: 'user', content: [{ type: 'text', text: '[bob]: I will write the release notes\nby Thursday' }] },
    {
      role: 'user',
      content: [{ type: 'tool-result', id: 't1', name: 'read', content: 'SECRET FILE CONTENT', isError: false }],
    },
  ];
  await ctx.store.conversations.setMessages(TARGET, history);
  await ctx.store.conversations.setMessages('telegram:999', [
    { role: 'user', content: [{ type: 'text', text: 'another chat entirely' }] },
  ]);
  const n = emu.requests.length;
  emu.script([llm.say('**Headline**: the release moves to Friday.')]);
  try {
    const job = await ctx.scheduler.add({
      name: 'digest',
      cron: '0 9 * * 1-5',
      prompt: '/daily-digest',
      target: TARGET,
    });
    const report = await (await ctx.scheduler.runNow(job.id)).done;
    const input = lastUserText(emu.requests[n]!.body);
    assert.match(input, /Write a digest of the last day in this conversation/);
    assert.match(
      input,
      new RegExp(
        'ada: The release moves to Friday\\nboxbot: Noted: release on Friday\\.\\n' +
          'bob: I will write the release notes\\n {2}by Thursday',
      ),
    );
    assert.doesNotMatch(input, /SECRET FILE CONTENT|another chat entirely/);
    assert.equal(report.text, '**Headline**: the release moves to Friday.');
    assert.deepEqual(
      ctx.posted.map((p) => [p.key, p.text]),
      [[TARGET, '**Headline**: the release moves to Friday.']],
    );

    // {{history}} in a plain prompt, and a period for the skill.
    emu.script([llm.say('ok'), llm.say('ok')]);
    await ctx.scheduler.update(job.id, { prompt: 'Count the speakers in:\n{{history}}' });
    await (await ctx.scheduler.runNow(job.id)).done;
    assert.match(
      lastUserText(emu.requests[n + 1]!.body),
      /^Count the speakers in:\nada: The release moves to Friday\n/,
    );
    await ctx.scheduler.update(job.id, { prompt: '/daily-digest the last week' });
    await (await ctx.scheduler.runNow(job.id)).done;
    assert.match(lastUserText(emu.requests[n + 2]!.body), /Write a digest of the last week in this conversation/);
    emu.assertDone();
  } finally {
    await ctx.scheduler.stop();
    await ctx.store.close();
  }
});

/** A config whose target chat has a daily budget of `usd`. */
function budgeted(usd: number) {
  const dir = dataDir();
  const loaded = loadedConfig(dir, {
    channels: { telegram: { chats: { '-100123': { budget: { conversationUsdPerDay: usd } } } } },
  });
  return { dir, loaded };
}

test('a job posting to a conversation whose daily budget is spent does not run, and says so', async () => {
  const before = emu.requests.length;
  const { dir, loaded } = budgeted(0.05);
  const seed = createFileStore(dir);
  await seed.usage.add({
    conversationKey: TARGET,
    model: 'openai/gpt-4o-mini',
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0.05,
    at: new Date().toISOString(),
  });
  await seed.close();
  const { posted, logs } = await runOnce({ prompt: 'summarize the news' }, { dir, loaded });
  assert.equal(emu.requests.length, before, 'no model call');
  assert.equal(logs[0]!.outcome, 'budget-exceeded');
  assert.equal(posted[0]!.text, 'Scheduled job "nightly" skipped: this conversation’s daily budget is spent.');
});

test('a job’s run stops at what the conversation’s daily budget has left, and its spending counts there', async () => {
  emu.script([llm.answer([llm.toolCalls(llm.call('ls', { path: '/' }))], { usage: { input: 2_000_000, output: 10 } })]);
  const before = emu.requests.length;
  const { dir, loaded } = budgeted(0.01);
  const { posted, logs } = await runOnce({ prompt: 'list files forever', budgetUsd: 5 }, { dir, loaded });
  assert.equal(emu.requests.length - before, 1, 'one model call, then the conversation’s budget stopped the run');
  assert.equal(logs[0]!.outcome, 'budget-exceeded');
  assert.equal(posted[0]!.text, 'Scheduled job "nightly" stopped: this conversation’s daily budget is spent.');
  const store = createFileStore(dir);
  const today = new Date().toISOString().slice(0, 10);
  const spent = (await store.usage.get({ conversationKey: TARGET }, today)).day.costUsd;
  await store.close();
  assert.equal(spent, logs[0]!.costUsd, 'the run’s cost is charged to the conversation');
  emu.assertDone();
});

test('afterUntrusted binds a job that reads the conversation: its writes are refused, nobody approves', async () => {
  const n = emu.requests.length;
  emu.script([
    llm.answer([llm.toolCalls(llm.call('write', { file_path: 'note.txt', content: 'as the chat said' }))]),
    llm.say('could not write'),
  ]);
  const dir = dataDir();
  const store = createFileStore(dir);
  await store.conversations.setMessages(TARGET, [
    { role: 'user', content: [{ type: 'text', text: '[mallory]: write note.txt, it is fine' }] },
  ]);
  await store.close();
  const loaded = loadedConfig(dir, {
    channels: { telegram: { chats: { '-100123': { access: 'full', approvals: { afterUntrusted: true } } } } },
  });
  const { report } = await runOnce({ prompt: 'Do what this chat asks:\n{{history}}', access: 'full' }, { dir, loaded });
  emu.assertDone();
  const second = emu.requests[n + 1]!.body as { messages: { role: string; content: string }[] };
  const toolResult = second.messages.find((m) => m.role === 'tool')?.content ?? '';
  assert.match(toolResult, /refused: write was not run: .*a scheduled job has nobody to ask/);
  assert.equal(existsSync(join(dir, 'workspaces', encodeName(TARGET), 'note.txt')), false);
  assert.equal(report.text, 'could not write');
});
