// A scheduled job whose target channel has a `manager` policy runs managed, as the channel's chat turns do: the
// manager (offered delegation only) hands the work to its executors through the real job worker, and the job's
// budget is the parent of theirs, so an executor's spending counts against it and can stop the manager.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LlmEmulator, llm, type RecordedRequest } from '../emulators/llm/index.ts';
import { dataDir, lastUserText, llmEmulatorForFile, loadedConfig, setup } from './helpers.ts';

let emu: LlmEmulator;
llmEmulatorForFile((e) => {
  emu = e;
});

const TARGET = 'telegram:-100123';

/** The target chat runs a manager on gpt-4o whose one executor works on gpt-4o-mini. */
const managedConfig = (dir: string) =>
  loadedConfig(dir, {
    model: 'openai/gpt-4o',
    agents: { researcher: { description: 'looks things up', model: 'openai/gpt-4o-mini', isolation: 'shared' } },
    channels: {
      telegram: {
        chats: {
          '-100123': {
            models: ['openai/gpt-4o-mini'],
            manager: { executors: ['researcher'], maxConcurrent: 1 },
          },
        },
      },
    },
  });

const toolNames = (r: RecordedRequest) =>
  ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name).sort();

/** The manager delegates once, then answers; the executor answers with `executorInput` tokens read. */
function script(executorInput: number): { manager: RecordedRequest[]; executor: RecordedRequest[] } {
  const seen = { manager: [] as RecordedRequest[], executor: [] as RecordedRequest[] };
  emu.respond((req) => {
    if (req.body.model === 'gpt-4o-mini') {
      seen.executor.push(req);
      return llm.say('Three things happened today.', { usage: { input: executorInput, output: 10 } });
    }
    seen.manager.push(req);
    if (seen.manager.length === 1) {
      const tasks = [{ executor: 'researcher', task: 'Find what happened today', description: 'news' }];
      return llm.answer([llm.toolCalls(llm.call('delegate', { tasks }))]);
    }
    return llm.say('Digest: three things happened today.');
  });
  return seen;
}

async function runJob(budgetUsd: number) {
  const dir = dataDir();
  const run = setup(emu, { dir, loaded: managedConfig(dir) });
  try {
    const job = await run.scheduler.add({
      name: 'news',
      cron: '0 3 * * *',
      target: TARGET,
      prompt: 'the news of the day',
      budgetUsd,
    });
    const report = await (await run.scheduler.runNow(job.id)).done;
    const logs = await run.store.jobs.logs(job.id);
    return { report, posted: run.posted, log: logs[0]! };
  } finally {
    await run.scheduler.stop();
    await run.store.close();
  }
}

test('a job on a managed channel runs as the manager, its executor does the work, the answer is posted', async () => {
  const seen = script(1000);
  try {
    const { report, posted, log } = await runJob(5);
    assert.equal(report.failed, false, report.text);
    assert.deepEqual(toolNames(seen.manager[0]!), ['apply_patch', 'delegate', 'reject_patch'], 'delegation only');
    assert.equal(seen.executor.length, 1, 'the executor ran');
    assert.equal(lastUserText(seen.executor[0]!.body), 'Find what happened today');
    assert.equal(posted.length, 1);
    assert.equal(posted[0]!.key, TARGET);
    assert.equal(posted[0]!.text, 'Digest: three things happened today.');
    assert.equal(log.outcome, 'final');
    // gpt-4o-mini reads at $0.15 per million: the executor's 1,000 tokens are in the job's cost.
    assert.ok(log.costUsd >= 0.00015, `the executor's spending is in the job's cost (${log.costUsd})`);
  } finally {
    emu.respond(undefined);
  }
});

test('an executor’s spending counts against the job’s budget: past it, the manager makes no further call', async () => {
  // 1,000,000 tokens at $0.15 per million: $0.15, over the job's $0.10.
  const seen = script(1_000_000);
  try {
    const { posted, log } = await runJob(0.1);
    assert.equal(seen.executor.length, 1);
    assert.equal(seen.manager.length, 1, 'the manager was not called again once the budget was spent');
    assert.equal(log.outcome, 'budget-exceeded');
    assert.ok(log.costUsd >= 0.15, `the executor's call is in the job's cost (${log.costUsd})`);
    assert.equal(posted[0]!.text, 'Scheduled job "news" stopped: its budget of $0.10 is spent.');
  } finally {
    emu.respond(undefined);
  }
});
