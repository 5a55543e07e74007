// A webhook job end to end: the whole app with a Telegram channel (its emulator) and the LLM
// emulator. The job is added through the admin API; a GitHub-signed POST /hooks/<name> answers
// 202 and its run posts the model's answer to the Telegram group once, the model having been
// given the body fenced as untrusted; unsigned, badly signed, unknown, oversized and replayed
// requests are refused and post nothing; the secret appears in no answer and no log line.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signatureFor } from '../../src/scheduler/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { waitUntil } from '../helpers.ts';
import { lastUserText } from '../scheduler/helpers.ts';
import { type E2E, startE2E, until } from './harness.ts';

const SECRET = 'gh-hook-secret-5f1e9a7c2d';
const ADMIN = 'admin-token-e2e-3b8d0c41';
const GROUP = -100500;
let tg: TelegramEmulator;
let e2e: E2E;

before(async () => {
  tg = await startTelegramEmulator();
  tg.addChat({ id: GROUP, type: 'supergroup', title: 'ops' });
  e2e = await startE2E(
    { channels: { telegram: { apiRoot: tg.apiRoot } }, scheduler: { webhooks: { maxBodyKb: 4 } } },
    { TELEGRAM_BOT_TOKEN: tg.token, BOXBOT_ADMIN_TOKEN: ADMIN, GITHUB_WEBHOOK_SECRET: SECRET },
  );
});
after(async () => {
  await e2e?.close();
  await tg?.close();
});

const post = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${e2e.app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

test('a signed GitHub delivery to /hooks/<name> posts the model’s answer once; bad requests post nothing', async () => {
  const created = await fetch(`${e2e.app.url}/admin/api/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'pushes',
      trigger: { webhook: 'github-push', secretEnv: 'GITHUB_WEBHOOK_SECRET' },
      prompt: 'Tell the channel what was pushed: {{event}}',
      target: `telegram:${GROUP}`,
    }),
  });
  const createdText = await created.text();
  assert.equal(created.status, 201, createdText);
  const job = (JSON.parse(createdText) as { job: { id: string; url: string; cron?: string } }).job;
  assert.equal(job.url, `${e2e.app.url}/hooks/github-push`);
  assert.equal(job.cron, undefined);
  assert.equal(createdText.includes(SECRET), false, 'the API shows the variable name, never the secret');

  const body = JSON.stringify({
    ref: 'refs/heads/main',
    pusher: { name: 'ada' },
    head_commit: { message: 'fix the build' },
  });
  const signed = (b: string, delivery: string) => ({
    'X-GitHub-Event': 'push',
    'X-GitHub-Delivery': delivery,
    'X-Hub-Signature-256': signatureFor(SECRET, b),
  });
  // Refused before anything starts.
  const big = JSON.stringify({ pad: 'x'.repeat(5000) });
  const refusals: [string, Response, number][] = [
    ['unsigned', await post('/hooks/github-push', body, { 'X-GitHub-Delivery': 'r1' }), 401],
    [
      'badly signed',
      await post('/hooks/github-push', body, { ...signed(body, 'r2'), 'X-Hub-Signature-256': signatureFor('x', body) }),
      401,
    ],
    ['unknown hook', await post('/hooks/nope', body, signed(body, 'r3')), 404],
    ['oversized', await post('/hooks/github-push', big, signed(big, 'r4')), 413],
  ];
  for (const [what, r, status] of refusals) {
    const text = await r.text();
    assert.equal(r.status, status, `${what}: ${text}`);
    assert.match(JSON.parse(text).error as string, /\S/, `${what}: a clear JSON error`);
  }

  e2e.llm.script([llm.say('ada pushed “fix the build” to main.')]);
  const accepted = await post('/hooks/github-push', body, signed(body, '72d3162e-cc78-11e3-81ab-4c9367dc0958'));
  assert.equal(accepted.status, 202);
  const { run } = (await accepted.json()) as { run: string };
  assert.match(run, /^[0-9a-f-]{36}$/);

  await until(
    () => tg.botMessages(String(GROUP)).some((m) => m.text === 'ada pushed “fix the build” to main.'),
    'the answer in the group',
  );
  // The model was given the event, fenced and marked untrusted.
  const prompt = lastUserText(e2e.llm.requests.at(-1)!.body as never);
  assert.match(prompt, /^Tell the channel what was pushed: <webhook-event hook="github-push" delivery="72d3162e/);
  assert.match(prompt, /trust="untrusted">\nThe JSON below was posted by an outside sender/);
  assert.ok(prompt.includes('"head_commit":{"message":"fix the build"}'), prompt);

  // The same delivery again is a replay: refused, nothing run.
  const replay = await post('/hooks/github-push', body, signed(body, '72d3162e-cc78-11e3-81ab-4c9367dc0958'));
  assert.equal(replay.status, 409);
  await waitUntil(async () => (await e2e.app.store.jobs.logs(job.id)).length === 1, 'the run logged', 20_000);
  const logs = await e2e.app.store.jobs.logs(job.id);
  const entry = logs[0] as (typeof logs)[0] & { trigger?: string; runId?: string };
  assert.equal(entry.trigger, 'webhook');
  assert.equal(entry.runId, run);
  assert.equal(entry.outcome, 'final');
  assert.ok(entry.delivered, 'delivered');
  assert.equal(tg.botMessages(String(GROUP)).length, 1, 'exactly one post: the refused requests posted nothing');
  assert.equal(e2e.llm.requests.length, 1, 'one model call: the refused requests started no run');
  e2e.llm.assertDone();
  for (const line of e2e.logs) assert.equal(JSON.stringify(line).includes(SECRET), false, JSON.stringify(line));
});
