// Approvals across a restart that changed the config, through the whole gateway (a fake platform
// with buttons, the real agent runner, a memory store kept across the restart, a scripted model):
// only who is an approver now decides, a question whose approvers changed is withdrawn and asked
// anew, one the run no longer asks is withdrawn, and a call the policy now forbids is refused
// whatever was approved before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APPROVERS_CHANGED, NOT_WAITED_ON } from '../../src/gateway/approvals.ts';
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import { callTools, reply } from '../agent/loop/scripted.ts';
import { inboundMessage, until } from './fakes.ts';
import { boot, idOf, lastToolResult, Model, questions, tool } from './real-gateway.ts';

/** First start: a run asks about write(x) and the gateway stops while the question waits. */
async function questionLeftPending(telegram: Record<string, unknown>) {
  const model = new Model();
  const state = createMemoryState();
  const write = tool('write', 'Write');
  const first = boot({ model, state, telegram, tools: [write.t] });
  await first.gw.start();
  model.script(callTools([['write', { path: 'x' }]]));
  await first.adapter.say('save x');
  await until(() => questions(first.adapter).some((q) => q.buttons?.length), 'the question');
  await first.gw.stop();
  return { model, state, write, adapter: first.adapter, id: idOf(questions(first.adapter)[0]!.text) };
}

test('restart with other approvers: old question withdrawn, removed approver cannot decide, new ones can', async () => {
  const { model, state, write, adapter, id } = await questionLeftPending({
    approvals: { levels: ['Write'], approvers: ['boss'] },
  });
  const old = questions(adapter)[0]!;
  model.script(callTools([['write', { path: 'x' }]]), reply('Saved x.'));
  const second = boot({
    model,
    state,
    telegram: { approvals: { levels: ['Write'], approvers: ['chief'] } },
    tools: [write.t],
    adapter,
  });
  await second.gw.start();
  await until(() => questions(adapter).length === 2, 'asked anew');
  await until(() => old.text.endsWith(APPROVERS_CHANGED), 'the old question says why it was withdrawn');
  assert.equal(old.buttons, undefined);
  const fresh = questions(adapter)[1]!;
  assert.match(fresh.text, /Who decides: users chief\./);
  await adapter.sink!({
    ...inboundMessage('', { id: 'telegram:press:old', userId: 'boss' }),
    action: { id: `ap:${id}:y`, messageId: old.messageId, handle: 'h' },
  });
  assert.match(adapter.pressAnswers.at(-1)!.text, /already expired/, 'a press on the old buttons');
  await adapter.press('Approve', { userId: 'boss' });
  assert.equal(adapter.pressAnswers.at(-1)!.text, 'Only chief may decide this.');
  assert.equal(write.runs.length, 0);
  await adapter.press('Approve', { userId: 'chief' });
  await until(() => adapter.texts().includes('Saved x.'), 'the answer');
  await second.gw.idle();
  assert.equal(write.runs.length, 1);
  await second.gw.stop();
});

test('restart after approvals were turned off: the call runs without asking, the old question withdrawn', async () => {
  const { model, state, write, adapter, id } = await questionLeftPending({
    approvals: { levels: ['Write'], approvers: ['boss'] },
  });
  model.script(callTools([['write', { path: 'x' }]]), reply('Saved x.'));
  const second = boot({ model, state, telegram: {}, tools: [write.t], adapter });
  await second.gw.start();
  await until(() => adapter.texts().includes('Saved x.'), 'the answer');
  await second.gw.idle();
  assert.equal(write.runs.length, 1);
  const old = questions(adapter)[0]!;
  await until(() => old.text.endsWith(NOT_WAITED_ON), 'the old question withdrawn');
  assert.equal(old.buttons, undefined, 'no button left that would approve nothing');
  assert.equal((await second.store.approvals.get(id))?.state, 'expired');
  await second.gw.stop();
});

for (const [what, forbidding] of [
  ['denied by name', { tools: { deny: ['write'] } }],
  ['above the chat’s access', { access: 'read-only' }],
] as const)
  test(`restart after the tool was forbidden here (${what}): a call approved before is refused, not run`, async () => {
    const approvals = { levels: ['Write'], approvers: ['boss'] };
    const { model, state, write, adapter, id } = await questionLeftPending({ approvals });
    // The approver's press was taken just before the restart: approved, not yet run.
    await createMemoryStore({ state }).approvals.decide(id, 'approved', new Date().toISOString(), 'boss');
    model.script(callTools([['write', { path: 'x' }]]), reply('Could not save.'));
    const next = boot({ model, state, telegram: { approvals, ...forbidding }, tools: [write.t], adapter });
    await next.gw.start();
    await until(() => adapter.texts().includes('Could not save.'), 'the answer');
    await next.gw.idle();
    assert.match(lastToolResult(model.requests.at(-1)), /^refused: /);
    assert.equal(write.runs.length, 0, 'the approval does not outlive the policy');
    await next.gw.stop();
  });

test('restart after the requester lost access: the message is refused and its old question withdrawn', async () => {
  const approvals = { levels: ['Write'], approvers: ['boss'] };
  const { model, state, write, adapter, id } = await questionLeftPending({ approvals });
  const next = boot({ model, state, telegram: { approvals, allowFrom: ['7'] }, tools: [write.t], adapter });
  await next.gw.start();
  const old = questions(adapter)[0]!;
  await until(() => old.text.endsWith(NOT_WAITED_ON), 'the old question withdrawn');
  assert.equal(old.buttons, undefined);
  assert.equal((await next.store.approvals.get(id))?.state, 'expired');
  await until(() => adapter.texts().some((t) => t.includes('not set up to talk with you')), 'the refusal');
  assert.equal(write.runs.length, 0);
  await next.gw.stop();
});
