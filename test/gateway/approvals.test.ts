// The approval desk over the store's journal: a call approved and run before a restart is
// replayed (never run twice), one that died mid-call is refused, and a question that timed out
// while boxbot was down expires at start with a message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApprovalQuestion } from '../../src/agent/index.ts';
import { approvalButtonId, createApprovalDesk, parseApprovalButton } from '../../src/gateway/approvals.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { silentLogger } from '../../src/log.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { FakeAdapter, inboundMessage, until } from './fakes.ts';

const question: ApprovalQuestion = {
  tool: 'write',
  input: { path: 'a.txt' },
  level: 'Write',
  folders: [{ path: '/srv/data/workspaces/telegram%3A100', readOnly: false }],
  hosts: [],
  reasons: ['policy'],
  untrusted: [],
};

const capabilities = {
  edit: true,
  typing: true,
  threads: true,
  maxTextLength: 4000,
  editIntervalMs: 5,
  typingIntervalMs: 5000,
};

/** A desk over a fake platform and a memory store; pass the same store and adapter again to "restart". */
function desk(
  now: () => number = Date.now,
  store = createMemoryStore(),
  adapter = new FakeAdapter('telegram', capabilities),
  pollMs?: number,
) {
  const queue = new OutboundQueue(adapter, { backoffMs: 5 });
  const d = createApprovalDesk({
    store: store.approvals,
    queueOf: () => queue,
    hasButtons: () => true,
    maxTextLength: () => 4000,
    log: silentLogger,
    now,
    ...(pollMs ? { pollMs } : {}),
  });
  return { d, adapter, store };
}

test('button ids carry the approval id and the decision, within 64 bytes', () => {
  const id = approvalButtonId('ab12cd34', true);
  assert.ok(Buffer.byteLength(id) <= 64);
  assert.deepEqual(parseApprovalButton(id), { id: 'ab12cd34', approve: true });
  assert.equal(parseApprovalButton('other:thing'), undefined);
});

test('an approved call that ran is replayed when the message asks again; one that died mid-call is not', async () => {
  const { d, adapter } = desk();
  const msg = inboundMessage('save', { id: 'telegram:evt:1' });
  const rules = { levels: ['Write' as const] };
  const asked = d.ask(msg, rules, question, new AbortController().signal);
  await until(() => adapter.posted.length === 1, 'the question');
  assert.match(adapter.posted[0]!.text, /Folders: …\/workspaces\/telegram%3A100 \(read-write\)/);
  const id = /\(([a-z0-9]+)\)/.exec(adapter.posted[0]!.text)![1]!;
  assert.equal((await d.decide(id, true, msg)).ok, true);
  const answer = await asked;
  assert.ok(answer.approved && answer.ran);
  // The run again after a crash before the history was saved: the same call is not run again.
  const midCall = await d.ask(msg, rules, question, new AbortController().signal);
  assert.equal(midCall.approved, false);
  assert.match(!midCall.approved ? midCall.reason : '', /not run a second time/);
  await answer.ran({ content: 'wrote a.txt', isError: false });
  const replayed = await d.ask(msg, rules, question, new AbortController().signal);
  assert.deepEqual(replayed, { approved: true, replay: { content: 'wrote a.txt', isError: false } });
  assert.equal(adapter.posted.length, 1, 'no second question');
  d.stop();
});

test('replicas: a press taken by another replica wakes the run waiting here', async () => {
  const store = createMemoryStore();
  const here = desk(Date.now, store, undefined, 10);
  const there = desk(Date.now, store, undefined, 10);
  const msg = inboundMessage('save', { id: 'telegram:evt:1' });
  const asked = here.d.ask(msg, { levels: ['Write' as const] }, question, new AbortController().signal);
  await until(() => here.adapter.posted.length === 1, 'the question');
  const id = /\(([a-z0-9]+)\)/.exec(here.adapter.posted[0]!.text)![1]!;
  assert.equal((await there.d.decide(id, true, msg)).ok, true);
  const answer = await asked;
  assert.ok(answer.approved, 'approved on the other replica, run here');
  here.d.stop();
  there.d.stop();
});

test('a question whose time ran out while boxbot was down expires at start, saying so', async () => {
  let clock = Date.now();
  const { d, adapter, store } = desk(() => clock);
  const msg = inboundMessage('save', { id: 'telegram:evt:2' });
  const run = new AbortController();
  const asked = d.ask(msg, { levels: ['Write'], timeoutMs: 60_000 }, question, run.signal, () => true);
  asked.catch(() => undefined);
  await until(() => adapter.posted.length === 1 && !!adapter.posted[0]!.buttons, 'the question');
  // Shut down while waiting: the question stays pending in the journal.
  run.abort(new Error('stopping'));
  d.stop();
  assert.equal((await store.approvals.pending()).length, 1);
  clock += 120_000;
  const { d: next } = desk(() => clock, store, adapter);
  await next.resume();
  await until(() => adapter.posted[0]!.text.endsWith('Expired: nobody decided in time.'), 'the expiry shown');
  assert.equal(adapter.posted[0]!.buttons, undefined);
  assert.deepEqual(await store.approvals.pending(), []);
  next.stop();
});
