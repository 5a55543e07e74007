// The approval desk's parts on their own: a question journaled before it is shown (approval-post)
// and the waits on it (approval-waits: expiry at its time, a withdrawal that keeps a decision made
// meanwhile, what a finished run left behind).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdapterApiError } from '../../src/adapters/index.ts';
import type { ApprovalQuestion } from '../../src/agent/index.ts';
import { silentLogger } from '../../src/core/log.ts';
import { createQuestionPoster } from '../../src/gateway/approval-post.ts';
import { canonical } from '../../src/gateway/approval-text.ts';
import { createApprovalWaits } from '../../src/gateway/approval-waits.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { type ApprovalRecord, createMemoryStore } from '../../src/store/index.ts';
import { FakeAdapter, fakeCapabilities, inboundMessage, until } from './fakes.ts';

const question: ApprovalQuestion = {
  tool: 'write',
  input: { file_path: 'a.txt', content: 'x' },
  level: 'Write',
  folders: [{ path: '/srv/data/workspaces/telegram%3A100', readOnly: false }],
  hosts: [],
  reasons: ['policy'],
  untrusted: [],
};

function parts(o: { hasButtons?: boolean; failSend?: boolean } = {}) {
  const store = createMemoryStore();
  const adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
  if (o.failSend)
    adapter.send = async () => {
      throw new AdapterApiError('telegram', 400, 'Bad Request: chat not found');
    };
  const queue = new OutboundQueue(adapter, { backoffMs: 5 });
  const common = { store: store.approvals, queueOf: () => queue, maxTextLength: () => 4000, log: silentLogger };
  const waits = createApprovalWaits({ ...common, now: Date.now });
  const posting = new Set<string>();
  const post = createQuestionPoster({
    ...common,
    now: Date.now,
    hasButtons: () => o.hasButtons ?? true,
    waits,
    posting,
  });
  return { store, adapter, waits, post, posting };
}

const pendingRecord = (over: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: 'q1',
  conversationKey: 'telegram:100',
  inboundId: 'telegram:evt:1',
  requesterId: '7',
  approvers: ['7'],
  tool: 'write',
  input: null,
  question: 'Approval needed (q1): run write (Write)?',
  target: { conversationKey: 'telegram:100', chatId: '100' },
  state: 'pending',
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
  ...over,
});

test('a question is journaled before it is shown, with buttons, and its decision wakes the wait', async () => {
  const { store, adapter, post, posting, waits } = parts();
  const msg = inboundMessage('save', { id: 'telegram:evt:1' });
  const posted = post(msg, { levels: ['Write'] }, question, new AbortController().signal, undefined);
  await until(() => adapter.posted.length === 1, 'the question');
  const r = await posted;
  assert.ok('decided' in r);
  const [record] = await store.approvals.forMessage(msg.id);
  assert.ok(record?.promptMessageId, 'the shown message is journaled');
  assert.equal(posting.size, 0);
  assert.equal(waits.waiting(msg.conversationKey), 1);
  assert.deepEqual(
    adapter.posted[0]!.buttons?.map((b) => b.label),
    ['Approve', 'Deny'],
  );
  const after = await store.approvals.decide(record.id, 'approved', new Date().toISOString(), '7');
  waits.settled(after!);
  assert.equal((await r.decided).state, 'approved');
  await until(() => /Approved by 7\./.test(adapter.posted[0]!.text), 'the outcome under the question');
  assert.equal(adapter.posted[0]!.buttons, undefined, 'its buttons are gone');
  waits.stop();
});

test('without buttons the question says what to type; one that cannot be posted is refused and expired', async () => {
  const typed = parts({ hasButtons: false });
  const msg = inboundMessage('save', { id: 'telegram:evt:2' });
  await typed.post(msg, {}, question, new AbortController().signal, undefined);
  assert.match(typed.adapter.posted[0]!.text, /Reply \/approve [a-z0-9]+ or \/deny [a-z0-9]+\./);
  assert.equal(typed.adapter.posted[0]!.buttons, undefined);
  typed.waits.stop();
  const down = parts({ failSend: true });
  const r = await down.post(msg, {}, question, new AbortController().signal, undefined);
  assert.deepEqual(r, { refused: { approved: false, reason: 'the approval question could not be posted' } });
  assert.equal((await down.store.approvals.forMessage(msg.id))[0]?.state, 'expired');
  down.waits.stop();
});

test('a question expires at its time and wakes its waits; a withdrawal keeps a decision made meanwhile', async () => {
  const { store, waits } = parts();
  await store.approvals.put(pendingRecord({ expiresAt: new Date(Date.now() + 20).toISOString() }));
  const waited = waits.wait(pendingRecord(), new AbortController().signal);
  waits.arm(pendingRecord({ expiresAt: new Date(Date.now() + 20).toISOString() }));
  assert.equal(waits.armed('q1'), true);
  assert.equal((await waited).state, 'expired');
  assert.equal(waits.armed('q1'), false, 'its timer is gone once settled');
  await store.approvals.put(pendingRecord({ id: 'q2' }));
  await store.approvals.decide('q2', 'denied', new Date().toISOString(), '7');
  const after = await waits.withdraw({ id: 'q2' }, 'Withdrawn.');
  assert.equal(after?.state, 'denied');
  waits.stop();
});

test('what a finished run left: armed questions of its message that nobody waits on', async () => {
  const { waits } = parts();
  waits.arm(pendingRecord({ id: 'left' }));
  waits.arm(pendingRecord({ id: 'other', inboundId: 'telegram:evt:9' }));
  waits.arm(pendingRecord({ id: 'waited' }));
  const stop = new AbortController();
  const waited = waits.wait(pendingRecord({ id: 'waited' }), stop.signal, () => true);
  assert.deepEqual(waits.leftBy('telegram:evt:1'), ['left']);
  assert.equal(waits.waiting('telegram:100'), 1);
  stop.abort(new Error('stopping'));
  await assert.rejects(waited, /stopping/);
  assert.equal(waits.waiting('telegram:100'), 0);
  waits.stop();
  assert.deepEqual(waits.leftBy('telegram:evt:1'), [], 'stop clears the timers');
});

test('the same call is told apart from another by its input, whatever the key order', () => {
  assert.equal(canonical({ b: 1, a: [{ d: 2, c: 3 }] }), canonical({ a: [{ c: 3, d: 2 }], b: 1 }));
  assert.notEqual(canonical({ a: 1 }), canonical({ a: '1' }));
});
