// Webhook events survive a restart between the 202 and the end of their run: the event is
// journaled with the delivery's claim on the file store; a process started again on the same data
// runs it once (same run id, same body), not again once run or once its log entry exists, and the
// sender's retry of that delivery is still a 409. With leases (replicas), an event another live
// replica is running is left to it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  createWebhookJournal,
  createWebhookTrigger,
  type RunNowOptions,
  type RunReport,
  signatureFor,
  webhookAnswerId,
} from '../../src/scheduler/index.ts';
import { createFileStore, createMemoryStore, type JobRecord, type Store } from '../../src/store/index.ts';
import { waitUntil } from '../helpers.ts';

const SECRET = 'journal-secret-7d1c';
const job: JobRecord = {
  id: 'pushes-abc123',
  name: 'pushes',
  trigger: { webhook: 'github-push', secretEnv: 'HOOK_SECRET' },
  prompt: 'Tell the channel: {{event}}',
  target: 'telegram:-100500',
  access: 'read-only',
  timeoutMs: 60_000,
  enabled: true,
  overlap: 'queue',
};

/** A scheduler's runNow that records what it started; `finish` ends those runs (their log written). */
function fakeRuns(store: Store) {
  const started: { id: string; opts: RunNowOptions | undefined }[] = [];
  const ends: (() => Promise<void>)[] = [];
  const runNow = async (id: string, opts?: RunNowOptions) => {
    started.push({ id, opts });
    let end!: (r: RunReport) => void;
    const done = new Promise<RunReport>((r) => (end = r));
    ends.push(async () => {
      const entry = {
        jobId: id,
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        outcome: 'final',
        delivered: 'm-1',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        trigger: 'webhook' as const,
        ...(opts?.trigger === 'webhook' ? { runId: opts.runId } : {}),
      };
      await store.jobs.appendLog(entry);
      end({ entry, text: 'posted', failed: false });
    });
    return { done };
  };
  return { started, runNow, finishAll: async () => Promise.all(ends.splice(0).map((e) => e())) };
}

function triggerOn(store: Store, runNow: ReturnType<typeof fakeRuns>['runNow']) {
  const journal = createWebhookJournal({ jobs: store.jobs, deliveries: store.hookDeliveries, runNow });
  const handle = createWebhookTrigger({
    jobs: store.jobs,
    deliveries: store.hookDeliveries,
    runNow,
    journal,
    secret: (name) => (name === 'HOOK_SECRET' ? SECRET : undefined),
  });
  const post = (body: string, delivery: string) =>
    handle({
      hook: 'github-push',
      headers: { 'x-hub-signature-256': signatureFor(SECRET, body), 'x-github-delivery': delivery },
      rawBody: Buffer.from(body),
    });
  return { journal, post };
}

test('an event accepted before a crash runs once after the restart, with its run id and body', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-journal-'));
  try {
    const before = createFileStore(dir);
    await before.jobs.put(job);
    const first = fakeRuns(before);
    const body = JSON.stringify({ ref: 'refs/heads/main', pusher: { name: 'ada' } });
    const accepted = await triggerOn(before, first.runNow).post(body, 'd-1');
    assert.equal(accepted.status, 202);
    const runId = accepted.body.run as string;
    assert.equal(first.started.length, 1, 'the run was started');
    // The process dies here: the run never ends, nothing more is written.
    await before.close();

    const after = createFileStore(dir);
    const second = fakeRuns(after);
    const { journal, post } = triggerOn(after, second.runNow);
    assert.equal((await post(body, 'd-1')).status, 409, 'the sender’s retry is still a replay');
    assert.equal(await journal.recover(), 1, 'the event left unfinished is run');
    assert.deepEqual(second.started, [
      {
        id: job.id,
        opts: { trigger: 'webhook', runId, event: { hook: 'github-push', json: body, delivery: 'd-1' } },
      },
    ]);
    assert.equal(await journal.recover(), 0, 'not again while it runs');
    await second.finishAll();
    await waitUntil(
      async () => (await after.hookDeliveries.unfinished('github-push')).length === 0,
      'the event marked as run',
      5000,
    );
    assert.equal(await journal.recover(), 0, 'not again once run');
    assert.equal(second.started.length, 1);
    await after.close();

    // The next start finds nothing to run.
    const later = createFileStore(dir);
    const third = fakeRuns(later);
    assert.equal(await triggerOn(later, third.runNow).journal.recover(), 0);
    assert.equal(third.started.length, 0);
    await later.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an event whose run was logged before the crash is only marked as run, not run again', async () => {
  const store = createMemoryStore();
  await store.jobs.put(job);
  const event = { jobId: job.id, runId: 'run-7', json: '{}', acceptedAt: Date.now() };
  assert.equal(await store.hookDeliveries.claim('github-push', 'd-7', 3600_000, event), true);
  const runs = fakeRuns(store);
  await store.jobs.appendLog({
    jobId: job.id,
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
    outcome: 'final',
    delivered: 'm-7',
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    ...{ trigger: 'webhook', runId: 'run-7' },
  });
  const journal = createWebhookJournal({ jobs: store.jobs, deliveries: store.hookDeliveries, runNow: runs.runNow });
  assert.equal(await journal.recover(), 0);
  assert.equal(runs.started.length, 0, 'not run again');
  assert.deepEqual(await store.hookDeliveries.unfinished('github-push'), [], 'marked as run');
});

test('an event whose answer is in the outbox (a death before the event was marked run) is not run again', async () => {
  const store = createMemoryStore();
  await store.jobs.put(job);
  const event = { jobId: job.id, runId: 'run-8', json: '{}', acceptedAt: Date.now() };
  assert.equal(await store.hookDeliveries.claim('github-push', 'd-8', 3600_000, event), true);
  // The answer's outbox entry was written (the gateway resumes it at start); the event not yet marked.
  const target = { conversationKey: job.target, chatId: '-100500' };
  await store.delivery.putOutbox({
    id: webhookAnswerId(job.id, 'run-8'),
    conversationKey: job.target,
    target,
    chunks: ['the answer'],
    receipts: [null],
    createdAt: new Date().toISOString(),
  });
  const runs = fakeRuns(store);
  const journal = createWebhookJournal({
    jobs: store.jobs,
    deliveries: store.hookDeliveries,
    outbox: store.delivery,
    runNow: runs.runNow,
  });
  assert.equal(await journal.recover(), 0);
  assert.equal(runs.started.length, 0, 'not run again: the outbox posts its answer');
  assert.deepEqual(await store.hookDeliveries.unfinished('github-push'), [], 'marked as run');
  // Another event of the same job with no answer in the outbox still runs.
  await store.hookDeliveries.claim('github-push', 'd-9', 3600_000, { ...event, runId: 'run-9' });
  assert.equal(await journal.recover(), 1);
  assert.equal(runs.started.length, 1);
});

test('with replicas, an event a live replica is running is left to it; a dead one’s is taken over', async () => {
  const store = createMemoryStore();
  await store.jobs.put(job);
  let now = Date.now();
  const held = new Map<string, { holder: string; until: number }>();
  const leases = {
    async acquire(name: string, holder: string, ttlMs: number) {
      const cur = held.get(name);
      if (cur && cur.holder !== holder && cur.until > now) return undefined;
      held.set(name, { holder, until: now + ttlMs });
      return 1;
    },
    async release(name: string, holder: string) {
      if (held.get(name)?.holder === holder) held.delete(name);
    },
  };
  const a = fakeRuns(store);
  const b = fakeRuns(store);
  const journalA = createWebhookJournal({
    jobs: store.jobs,
    deliveries: store.hookDeliveries,
    runNow: a.runNow,
    leases,
    holder: 'a',
    leaseMs: 600_000,
  });
  const journalB = createWebhookJournal({
    jobs: store.jobs,
    deliveries: store.hookDeliveries,
    runNow: b.runNow,
    leases,
    holder: 'b',
    leaseMs: 600_000,
  });
  const event = { jobId: job.id, runId: 'run-9', json: '{}', acceptedAt: now };
  await store.hookDeliveries.claim('github-push', 'd-9', 3600_000, event);
  await journalA.start('github-push', 'd-9', event);
  assert.equal(await journalB.recover(), 0, 'replica a runs it');
  assert.equal(b.started.length, 0);
  journalA.stop(); // replica a dies: its lease is no longer renewed
  now += 600_001;
  assert.equal(await journalB.recover(), 1, 'taken over once the lease ran out');
  assert.equal(b.started.length, 1);
  journalB.stop();
});

test('a sweep that finds an event while its request starts it does not start it a second time', async () => {
  const store = createMemoryStore();
  await store.jobs.put(job);
  const runs = fakeRuns(store);
  let release!: () => void;
  let asked = false;
  const logsHeld = new Promise<void>((r) => (release = r));
  const journal = createWebhookJournal({
    jobs: {
      list: () => store.jobs.list(),
      // The sweep is held after it saw the event as not running here.
      logs: async (id) => {
        asked = true;
        await logsHeld;
        return store.jobs.logs(id);
      },
    },
    deliveries: store.hookDeliveries,
    runNow: runs.runNow,
  });
  const event = { jobId: job.id, runId: 'run-3', json: '{}', acceptedAt: Date.now() };
  await store.hookDeliveries.claim('github-push', 'd-3', 3600_000, event);
  const sweep = journal.recover();
  await waitUntil(() => asked, 'the sweep past its check', 5000);
  await journal.start('github-push', 'd-3', event); // the request that claimed it
  release();
  assert.equal(await sweep, 0, 'the sweep leaves it to the request');
  assert.equal(runs.started.length, 1, 'started once');
  journal.stop();
});
