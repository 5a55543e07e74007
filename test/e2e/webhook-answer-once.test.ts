// #27: a webhook run whose answer was posted but whose log entry was never written (the process
// died in between) must not run, and post, again at the next start. The answer goes through the
// outbox, and its event is marked run once the outbox holds it (webhook-journal.ts). The whole
// app with a Telegram group (its emulator) and the LLM emulator; the death is the log write
// failing, so nothing after the post is recorded, then a restart on the same data folder.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { llm } from '../emulators/llm/index.ts';
import { waitUntil } from '../helpers.ts';
import { webhookGroupHooks } from './webhook-group.ts';

const SECRET = 'gh-hook-secret-once-7d21';
const GROUP = -100778;
const current = webhookGroupHooks(SECRET, GROUP);

test('an answer posted before a death that kept its log entry from being written is not posted again', async () => {
  const { tg, bb, post } = current();
  await bb.app.scheduler.add({
    name: 'pushes',
    trigger: { webhook: 'github-push', secretEnv: 'GITHUB_WEBHOOK_SECRET' },
    prompt: 'Tell the channel what was pushed: {{event}}',
    target: `telegram:${GROUP}`,
  });
  // The process "dies" right after the post: its log entry is never written.
  let logWrites = 0;
  bb.app.store.jobs.appendLog = async () => {
    logWrites++;
    throw new Error('the process died here');
  };
  bb.llm.script([llm.say('push: the answer, once.')]);
  const body = JSON.stringify({ head_commit: { message: 'a push' } });
  const accepted = await post(body, 'delivery-once-1');
  assert.equal(accepted.status, 202);
  await waitUntil(() => tg.botMessages(String(GROUP)).length === 1, 'the answer posted', 30_000);
  await waitUntil(() => logWrites === 1, 'the log write that never happened', 20_000);
  const requests = bb.llm.requests.length;

  await bb.restart();
  // Before the change this waited for the event run again (and its second post); now it is done.
  await waitUntil(
    async () => (await bb.app.store.hookDeliveries.unfinished('github-push')).length === 0,
    'the event marked as run',
    20_000,
  );
  await bb.app.gateway.idle();
  assert.deepEqual(
    tg.botMessages(String(GROUP)).map((m) => m.text),
    ['push: the answer, once.'],
    'posted once, and nothing else posted after the restart',
  );
  assert.equal(bb.llm.requests.length, requests, 'the event was not run again');
});
