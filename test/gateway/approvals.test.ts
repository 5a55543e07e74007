// The approval desk over the store's journal: a call approved and run before a restart is
// replayed (never run twice), one that died mid-call is refused, and a question that timed out
// while boxbot was down expires at start with a message. Across a restart that changed the
// config, only a decision by someone who is an approver now counts, and an approval is for one call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApprovalQuestion, ApprovalRules } from '../../src/agent/index.ts';
import { silentLogger } from '../../src/core/log.ts';
import {
  APPROVERS_CHANGED,
  approvalButtonId,
  createApprovalDesk,
  NO_APPROVERS,
  NOT_WAITED_ON,
  parseApprovalButton,
} from '../../src/gateway/approvals.ts';
import { OutboundQueue } from '../../src/gateway/outbound-queue.ts';
import { narrowPolicy } from '../../src/runner/policy.ts';
import { type ApprovalStore, createMemoryStore } from '../../src/store/index.ts';
import { FakeAdapter, fakeCapabilities, inboundMessage, until } from './fakes.ts';
import { idOf, questions } from './real-gateway.ts';

const question: ApprovalQuestion = {
  tool: 'write',
  input: { path: 'a.txt' },
  level: 'Write',
  folders: [{ path: '/srv/data/workspaces/telegram%3A100', readOnly: false }],
  hosts: [],
  reasons: ['policy'],
  untrusted: [],
};

const capabilities = fakeCapabilities({ maxTextLength: 4000 });

/** A desk over a fake platform and a memory store; pass the same store and adapter again to "restart". */
function desk(
  now: () => number = Date.now,
  store = createMemoryStore(),
  adapter = new FakeAdapter('telegram', capabilities),
  pollMs?: number,
  /** The approval rules of the config in force (a restart may change them). */
  rulesFor?: () => ApprovalRules | undefined,
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
    ...(rulesFor ? { rulesFor } : {}),
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
  await d.finished(msg.id, false); // the run ends in a crash (the same desk stands for the next start's)
  // The run again after a crash before the history was saved (its message read anew from the
  // journal): the same call is not run again.
  const again = { ...msg };
  const midCall = await d.ask(again, rules, question, new AbortController().signal);
  assert.equal(midCall.approved, false);
  assert.match(!midCall.approved ? midCall.reason : '', /not run a second time/);
  await answer.ran({ content: 'wrote a.txt', isError: false });
  const replayed = await d.ask(again, rules, question, new AbortController().signal);
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

/** A run asks, the gateway shuts down while it waits (the question stays pending): the state a restart finds. */
async function askThenShutDown(d: ReturnType<typeof desk>, rules: ApprovalRules, msg = inboundMessage('save')) {
  const run = new AbortController();
  const asked = d.d.ask(msg, rules, question, run.signal, () => true);
  asked.catch(() => undefined);
  await until(() => questions(d.adapter).length > 0 && !!d.adapter.posted.at(-1)!.buttons, 'the question');
  run.abort(new Error('stopping'));
  return idOf(questions(d.adapter).at(-1)!.text);
}

test('after a restart that changed the approvers, an approval by a removed approver is not used', async () => {
  const store = createMemoryStore();
  let rules: ApprovalRules = { levels: ['Write'], approvers: ['boss'] };
  const before = desk(Date.now, store, undefined, undefined, () => rules);
  const msg = inboundMessage('save', { id: 'telegram:evt:7' });
  const id = await askThenShutDown(before, rules, msg);
  // The press arrives as the gateway goes down: approved, but the call never started.
  assert.equal((await before.d.decide(id, true, { ...msg, userId: 'boss' })).ok, true);
  before.d.stop();

  rules = { levels: ['Write'], approvers: ['chief'] };
  const after = desk(Date.now, store, before.adapter, undefined, () => rules);
  await after.d.resume();
  const asked = after.d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(after.adapter).length === 2, 'asked anew');
  const again = questions(after.adapter)[1]!;
  assert.match(again.text, /Who decides: users chief\./);
  assert.equal((await after.d.decide(idOf(again.text), true, { ...msg, userId: 'boss' })).ok, false);
  assert.equal((await after.d.decide(idOf(again.text), true, { ...msg, userId: 'chief' })).ok, true);
  const answer = await asked;
  assert.ok(answer.approved && answer.ran, 'approved by who decides now');
  after.d.stop();
});

test('an approval by someone still an approver after the restart is used, without a second question', async () => {
  const store = createMemoryStore();
  let rules: ApprovalRules = { levels: ['Write'], approvers: ['boss'] };
  const before = desk(Date.now, store, undefined, undefined, () => rules);
  const msg = inboundMessage('save', { id: 'telegram:evt:8' });
  const id = await askThenShutDown(before, rules, msg);
  assert.equal((await before.d.decide(id, true, { ...msg, userId: 'boss' })).ok, true);
  before.d.stop();
  rules = { levels: ['Write'], approvers: ['chief', 'boss'] };
  const after = desk(Date.now, store, before.adapter, undefined, () => rules);
  const answer = await after.d.ask(msg, rules, question, new AbortController().signal);
  assert.ok(answer.approved && answer.ran);
  assert.equal(questions(after.adapter).length, 1, 'no second question');
  after.d.stop();
});

test('a pending question whose approvers changed: removed approver cannot decide; withdrawn, asked anew', async () => {
  const store = createMemoryStore();
  let rules: ApprovalRules = { levels: ['Write'], approvers: ['boss'] };
  const before = desk(Date.now, store, undefined, undefined, () => rules);
  const msg = inboundMessage('save', { id: 'telegram:evt:9' });
  const id = await askThenShutDown(before, rules, msg);
  before.d.stop();

  rules = { levels: ['Write'], approvers: ['chief'] };
  const after = desk(Date.now, store, before.adapter, undefined, () => rules);
  await after.d.resume();
  // Its buttons still show until the run asks again: the removed approver's press is refused.
  const refused = await after.d.decide(id, true, { ...msg, userId: 'boss' });
  assert.deepEqual(refused, { ok: false, text: 'Only chief may decide this.' });
  const asked = after.d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(after.adapter).length === 2, 'asked anew');
  const old = questions(after.adapter)[0]!;
  await until(() => old.text.endsWith(APPROVERS_CHANGED), 'the old question withdrawn, saying why');
  assert.equal(old.buttons, undefined, 'its buttons are gone');
  assert.equal((await store.approvals.get(id))?.state, 'expired');
  assert.match(questions(after.adapter)[1]!.text, /Who decides: users chief\./);
  assert.equal(
    (await after.d.decide(idOf(questions(after.adapter)[1]!.text), false, { ...msg, userId: 'chief' })).ok,
    true,
  );
  assert.deepEqual(await asked, { approved: false, reason: 'chief denied this call' });
  after.d.stop();
});

test('replicas on different configs: a decision the run’s rules do not accept is not used; it asks anew', async () => {
  const store = createMemoryStore();
  const rules: ApprovalRules = { levels: ['Write'], approvers: ['chief'] };
  const here = desk(Date.now, store, undefined, 10, () => rules);
  // Another replica still on the old config, where boss decides.
  const there = desk(Date.now, store, undefined, 10, () => ({ levels: ['Write'], approvers: ['boss'] }));
  const msg = inboundMessage('save', { id: 'telegram:evt:10' });
  const asked = here.d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(here.adapter).length === 1, 'the question');
  assert.equal(
    (await there.d.decide(idOf(questions(here.adapter)[0]!.text), true, { ...msg, userId: 'boss' })).ok,
    true,
  );
  await until(() => questions(here.adapter).length === 2, 'asked anew here');
  assert.equal(
    (await here.d.decide(idOf(questions(here.adapter)[1]!.text), true, { ...msg, userId: 'chief' })).ok,
    true,
  );
  const answer = await asked;
  assert.ok(answer.approved);
  here.d.stop();
  there.d.stop();
});

test('an approval is for one call: the same call again in the run asks again, other arguments ask anew', async () => {
  const { d, adapter } = desk();
  const msg = inboundMessage('save', { id: 'telegram:evt:11' });
  const rules: ApprovalRules = { levels: ['Write'] };
  const approveNext = async (n: number) => {
    await until(() => questions(adapter).length === n, `question ${n}`);
    assert.equal((await d.decide(idOf(questions(adapter)[n - 1]!.text), true, msg)).ok, true);
  };
  const first = d.ask(msg, rules, question, new AbortController().signal);
  await approveNext(1);
  const a1 = await first;
  assert.ok(a1.approved && a1.ran);
  await a1.ran({ content: 'wrote a.txt', isError: false });
  const other = d.ask(msg, rules, { ...question, input: { path: 'b.txt' } }, new AbortController().signal);
  await approveNext(2);
  assert.ok((await other).approved);
  // The model makes the first call again in the same run: a new question, not the first one's result.
  const second = d.ask(msg, rules, question, new AbortController().signal);
  await approveNext(3);
  const a2 = await second;
  assert.ok(a2.approved && a2.ran && !a2.replay, 'asked and run again, not replayed');
  await a2.ran({ content: 'wrote a.txt again', isError: false });
  await d.finished(msg.id, true);
  // After a restart the run again (its message read anew) replays both runs of it, in order, and asks nothing.
  const again = { ...msg };
  const r1 = await d.ask(again, rules, question, new AbortController().signal);
  const r2 = await d.ask(again, rules, question, new AbortController().signal);
  assert.deepEqual(
    [r1, r2],
    [
      { approved: true, replay: { content: 'wrote a.txt again', isError: false } },
      { approved: true, replay: { content: 'wrote a.txt', isError: false } },
    ],
  );
  assert.equal(questions(adapter).length, 3);
  d.stop();
});

test('two equal calls of one turn waiting on one question: one approval runs one of them', async () => {
  const { d, adapter } = desk();
  const msg = inboundMessage('look', { id: 'telegram:evt:12' });
  const rules: ApprovalRules = { levels: ['ReadOnly'] };
  const read: ApprovalQuestion = { ...question, tool: 'read', level: 'ReadOnly' };
  // Read-only calls of one turn run concurrently: the second finds the first's question pending.
  const first = d.ask(msg, rules, read, new AbortController().signal);
  await until(() => questions(adapter).length === 1, 'the question');
  const second = d.ask(msg, rules, read, new AbortController().signal);
  assert.equal((await d.decide(idOf(questions(adapter)[0]!.text), true, msg)).ok, true);
  assert.ok((await first).approved);
  await until(() => questions(adapter).length === 2, 'a question of its own for the second call');
  let settled = false;
  void second.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'the second call waits for its own decision');
  assert.equal((await d.decide(idOf(questions(adapter)[1]!.text), false, msg)).ok, true);
  assert.equal((await second).approved, false);
  d.stop();
});

test('a question journaled but never shown (a crash before it was sent) is asked anew after the restart', async (t) => {
  const store = createMemoryStore();
  const silent = new FakeAdapter('telegram', capabilities);
  let sending = false;
  // The process dies while the question is being sent (after it was journaled).
  silent.send = () => {
    sending = true;
    return new Promise(() => undefined);
  };
  const crashed = desk(Date.now, store, silent);
  const msg = inboundMessage('save', { id: 'telegram:evt:14' });
  const rules: ApprovalRules = { levels: ['Write'] };
  void crashed.d.ask(msg, rules, question, new AbortController().signal);
  await until(() => sending, 'the question being sent');
  crashed.d.stop();
  const { d, adapter } = desk(Date.now, store);
  t.after(() => d.stop());
  await d.resume();
  const asked = d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(adapter).length === 1, 'the question shown this time');
  assert.equal((await d.decide(idOf(questions(adapter)[0]!.text), true, msg)).ok, true);
  assert.ok((await asked).approved);
  d.stop();
});

test('a question the run after a restart did not ask again is withdrawn when that run ends', async () => {
  const store = createMemoryStore();
  const rules: ApprovalRules = { levels: ['Write'] };
  const before = desk(Date.now, store);
  const msg = inboundMessage('save', { id: 'telegram:evt:12' });
  const id = await askThenShutDown(before, rules, msg);
  before.d.stop();
  const after = desk(Date.now, store, before.adapter);
  await after.d.resume();
  await after.d.finished(msg.id, false); // a shutdown again: kept
  assert.equal((await store.approvals.get(id))?.state, 'pending');
  await after.d.finished(msg.id, true);
  assert.equal((await store.approvals.get(id))?.state, 'expired');
  const q = questions(after.adapter)[0]!;
  await until(() => q.text.endsWith(NOT_WAITED_ON), 'the question says it is withdrawn');
  assert.equal(q.buttons, undefined);
  after.d.stop();
});

test('a decision is reused only in its own conversation, even under the same message id', async () => {
  const { d, adapter } = desk();
  const rules: ApprovalRules = { levels: ['Write'] };
  const msg = inboundMessage('save', { id: 'web:same-id' });
  const first = d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(adapter).length === 1, 'the question');
  assert.equal((await d.decide(idOf(questions(adapter)[0]!.text), true, msg)).ok, true);
  assert.ok((await first).approved);
  await d.finished(msg.id, true);
  // Another chat whose message carries the same id: asked there, not approved by the first chat's decision.
  const other = inboundMessage('save', { id: 'web:same-id', chatId: '200', conversationKey: 'telegram:200' });
  const asked = d.ask(other, rules, question, new AbortController().signal);
  await until(() => questions(adapter).length === 2, 'a question in the other chat');
  assert.equal(questions(adapter)[1]!.chatId, '200');
  assert.equal((await d.decide(idOf(questions(adapter)[1]!.text), false, other)).ok, true);
  assert.equal((await asked).approved, false);
  d.stop();
});

test('replicas: a question left by a replica that died expires on the one that runs the message again', async () => {
  const store = createMemoryStore();
  // The question must outlive the steps before the second replica asks (at 1 ms it expired before it was seen,
  // and the test hung); the test then waits this long for the expiry.
  const rules: ApprovalRules = { levels: ['Write'], timeoutMs: 3000 };
  // This replica started before the other asked: its resume did not see the question.
  const here = desk(Date.now, store, undefined, 10);
  await here.d.resume();
  const dead = desk(Date.now, store, here.adapter, 10);
  const msg = inboundMessage('save', { id: 'telegram:evt:13' });
  await askThenShutDown(dead, rules, msg);
  dead.d.stop(); // it died: its timers are gone
  const answer = await here.d.ask(msg, rules, question, new AbortController().signal);
  assert.deepEqual(answer, { approved: false, reason: 'nobody approved this call in time' });
  assert.equal(questions(here.adapter).length, 1, 'the same question, not a second one');
  here.d.stop();
});

test('combined rules: only someone both accept approves; sharing nobody, guarded calls are refused', async () => {
  const base = { access: 'full' as const, tools: {}, network: { allow: [] } };
  // A looser policy lists `intern`; the stricter one only `boss` and `chief`.
  const combined = (a: string[], b: string[]) =>
    narrowPolicy(
      { ...base, approvals: { levels: ['Write'], approvers: a } },
      { ...base, approvals: { levels: ['Write'], approvers: b } },
    ).approvals!;
  const rules = combined(['intern', 'boss'], ['boss', 'chief']);
  const { d, adapter } = desk(Date.now, undefined, undefined, undefined, () => rules);
  const msg = inboundMessage('save', { id: 'telegram:evt:20' });
  const asked = d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(adapter).length === 1, 'the question');
  assert.match(questions(adapter)[0]!.text, /Who decides: users boss\./);
  const id = idOf(questions(adapter)[0]!.text);
  const byIntern = await d.decide(id, true, { ...msg, userId: 'intern' });
  assert.equal(byIntern.ok, false, 'an approver of the looser rules only does not approve');
  assert.equal((await d.decide(id, true, { ...msg, userId: 'boss' })).ok, true);
  assert.ok((await asked).approved);

  // Lists that share nobody: the call is refused at once, saying why, and no question is posted.
  const none = combined(['intern'], ['boss']);
  const other = inboundMessage('save', { id: 'telegram:evt:21' });
  const refused = await d.ask(other, none, question, new AbortController().signal);
  assert.deepEqual(refused, { approved: false, reason: NO_APPROVERS });
  assert.equal(questions(adapter).length, 1, 'no question nobody could answer');
  d.stop();
});

test('a call still going after its run finished never takes an approval the run spent', async () => {
  const store = createMemoryStore();
  // The journal write that marks an approved call started is slow (a busy database).
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  let starts = 0;
  const inner = store.approvals;
  const approvals: ApprovalStore = {
    put: (r) => inner.put(r),
    get: (id) => inner.get(id),
    decide: (id, decision, at, by) => inner.decide(id, decision, at, by),
    pending: () => inner.pending(),
    forMessage: (id) => inner.forMessage(id),
    recent: (limit) => inner.recent(limit),
    update: async (id, patch) => {
      if (patch.ran) {
        starts++;
        await slow;
      }
      return inner.update(id, patch);
    },
  };
  const { d, adapter } = desk(Date.now, { ...store, approvals });
  const msg = inboundMessage('save', { id: 'telegram:evt:22' });
  const rules: ApprovalRules = { levels: ['Write'] };
  const first = d.ask(msg, rules, question, new AbortController().signal);
  await until(() => questions(adapter).length === 1, 'the question');
  assert.equal((await d.decide(idOf(questions(adapter)[0]!.text), true, msg)).ok, true);
  await until(() => starts === 1, 'the approved call starting');
  // The run ends (its time ran out) while that call starts; a sub-agent of it then makes the same call.
  await d.finished(msg.id, true);
  let lateDone = false;
  const late = d.ask(msg, rules, question, new AbortController().signal);
  void late.then(() => (lateDone = true));
  await until(() => lateDone || starts === 2, 'the late call answered or starting');
  release();
  const answer = await late;
  assert.equal(answer.approved, false, 'the late call does not run on the spent approval');
  assert.match(!answer.approved ? answer.reason : '', /has finished/);
  assert.ok((await first).approved, 'the call it was given for runs');
  assert.equal(starts, 1, 'one approval, one call started');
  d.stop();
});

test('a dashboard decision settles the question for the waiting run; a bare identity is refused', async () => {
  const { d, adapter, store } = desk();
  const msg = inboundMessage('save', { id: 'telegram:evt:dash' });
  const rules = { levels: ['Write' as const] };
  const asked = d.ask(msg, rules, question, new AbortController().signal);
  await until(() => adapter.posted.length === 1, 'the question');
  const id = /\(([a-z0-9]+)\)/.exec(adapter.posted[0]!.text)![1]!;
  assert.deepEqual(await d.decideAsAdmin(id, true, 'telegram:4242'), {
    ok: false,
    text: 'not a dashboard decision: telegram:4242',
  });
  assert.equal((await store.approvals.get(id))?.state, 'pending', 'a bare identity decided nothing');
  assert.equal((await d.decideAsAdmin(id, true, 'dashboard:admin token')).ok, true);
  const answer = await asked;
  assert.ok(answer.approved, 'the waiting run goes on with the approval');
  assert.equal((await store.approvals.get(id))?.decidedBy, 'dashboard:admin token');
  assert.deepEqual(await d.decideAsAdmin(id, false, 'dashboard:admin token'), {
    ok: false,
    text: 'That request was already approved.',
  });
  await until(() => adapter.posted[0]!.text.includes('Approved by dashboard:admin token'), 'the outcome shown');
  d.stop();
});
