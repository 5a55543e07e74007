// A webhook event accepted (202) but not yet run when boxbot stops is run after the restart,
// once: the whole app with a Telegram group (its emulator) and the LLM emulator. The first
// event's run hangs on the model; the second, queued behind it, has not started when boxbot
// stops. After the restart the second event runs with the run id its 202 named and its answer
// is posted once; the sender's retry of either delivery is still a 409.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { llm } from '../emulators/llm/index.ts';
import { waitUntil } from '../helpers.ts';
import { webhookGroupHooks } from './webhook-group.ts';

const SECRET = 'gh-hook-secret-restart-41c9';
const GROUP = -100777;
const current = webhookGroupHooks(SECRET, GROUP);

test('an event accepted before a restart, not yet run, runs once after it with the run id its 202 named', async () => {
  const { tg, bb, post } = current();
  const job = await bb.app.scheduler.add({
    name: 'pushes',
    trigger: { webhook: 'github-push', secretEnv: 'GITHUB_WEBHOOK_SECRET' },
    prompt: 'Tell the channel what was pushed: {{event}}',
    target: `telegram:${GROUP}`,
  });
  bb.llm.script([llm.stall()]);
  const first = await post(JSON.stringify({ head_commit: { message: 'first push' } }), 'delivery-1');
  assert.equal(first.status, 202);
  await waitUntil(() => bb.llm.requests.length === 1, 'the first run waiting on the model', 20_000);
  const second = await post(JSON.stringify({ head_commit: { message: 'second push' } }), 'delivery-2');
  assert.equal(second.status, 202, 'queued behind the first run');
  const { run } = (await second.json()) as { run: string };

  bb.llm.script([llm.say('second push: posted after the restart.')]);
  await bb.restart();
  await waitUntil(
    () => tg.botMessages(String(GROUP)).some((m) => m.text === 'second push: posted after the restart.'),
    'the second event’s answer after the restart',
    30_000,
  );
  await waitUntil(
    async () => ((await bb.app.store.jobs.logs(job.id)) as { runId?: string }[]).some((l) => l.runId === run),
    'the run logged under the run id its 202 named',
    20_000,
  );
  assert.match(JSON.stringify(bb.llm.requests.at(-1)!.body), /second push/, 'the model got the second event');
  assert.equal((await post(JSON.stringify({ head_commit: { message: 'second push' } }), 'delivery-2')).status, 409);
  assert.equal((await post(JSON.stringify({ head_commit: { message: 'first push' } }), 'delivery-1')).status, 409);
  await waitUntil(
    async () => (await bb.app.store.hookDeliveries.unfinished('github-push')).length === 0,
    'both events marked as run (the first one cancelled by the stop, the second run after it)',
    20_000,
  );
  const answers = tg.botMessages(String(GROUP)).filter((m) => m.text === 'second push: posted after the restart.');
  assert.equal(answers.length, 1, 'posted once');
  bb.llm.assertDone();
});
