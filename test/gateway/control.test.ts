// In-chat control through the whole gateway (a fake platform with buttons, the real agent runner
// and memory store, a scripted model): /model, budgets, /usage across a restart, approvals by
// button and by typed command, their timeout and a restart while one waits, afterUntrusted,
// /new and /compact, and the command menu registered at start.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatCommand } from '../../src/runner/chat-command.ts';
import { createMemoryState, createMemoryStore, type OutboxEntry, type Store } from '../../src/store/index.ts';
import { callTools, reply } from '../agent/loop/scripted.ts';
import { FakeAdapter, fakeCapabilities, until } from './fakes.ts';
import { boot, lastToolResult, Model, tool } from './real-gateway.ts';

test('the command menu is registered at start, and /help lists the new commands', async () => {
  const { gw, adapter } = boot({ model: new Model(), state: createMemoryState() });
  await gw.start();
  assert.deepEqual(
    adapter.menus[0]?.map((c) => c.name),
    ['new', 'model', 'usage', 'status', 'compact', 'stop', 'reset', 'whoami', 'help', 'approve', 'deny'],
  );
  assert.deepEqual(adapter.menus[0]?.find((c) => c.name === 'model')?.argument?.name, 'name');
  await adapter.say('/help');
  await gw.idle();
  for (const c of ['/new', '/model [name]', '/usage', '/status', '/compact'])
    assert.ok(adapter.texts().at(-1)!.includes(c), `/help lists ${c}`);
  await gw.stop();
});

test('/model lists the allowed models, switches, and the provider then sees the new model', async () => {
  const model = new Model();
  const state = createMemoryState();
  const { gw, adapter } = boot({
    model,
    state,
    telegram: { model: 'test/small', models: ['test/large'] },
  });
  await gw.start();
  model.script(reply('small answer'));
  await adapter.say('hello');
  await gw.idle();
  assert.equal(model.requests.at(-1)!.model, 'small');
  await adapter.say('/model');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /test\/small \(current\)[\s\S]*test\/large/);
  await adapter.say('/model gpt-9');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /gpt-9 is not a model allowed here/);
  await adapter.say('/model large');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /Model for this conversation: test\/large/);
  model.script(reply('large answer'));
  await adapter.say('hello again');
  await gw.idle();
  assert.equal(model.requests.at(-1)!.model, 'large', 'the provider saw the chosen model');
  await adapter.say('/status');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /Model: test\/large\.[\s\S]*Idle\./);
  await gw.stop();
  // The choice is kept with the conversation.
  const again = boot({ model, state, telegram: { model: 'test/small', models: ['test/large'] }, adapter });
  await again.gw.start();
  model.script(reply('still large'));
  await again.adapter.say('and now?');
  await again.gw.idle();
  assert.equal(model.requests.at(-1)!.model, 'large');
  await again.gw.stop();
});

test('a daily budget stops a run before the call that would pass it; /usage shows it after a restart', async () => {
  const model = new Model();
  const state = createMemoryState();
  const look = tool('look', 'ReadOnly');
  const telegram = { budget: { conversationUsdPerDay: 1.5 } };
  const { gw, adapter } = boot({ model, state, telegram, tools: [look.t], costUsd: 1 });
  await gw.start();
  model.script(callTools([['look', { path: 'a' }]]), callTools([['look', { path: 'b' }]]));
  await adapter.say('look at everything');
  await gw.idle();
  assert.equal(model.requests.length, 2, 'no model call after the budget was passed');
  assert.match(
    adapter.texts().at(-1)!,
    /Stopped: this conversation has spent \$2\.00 today, its daily budget is \$1\.50/,
  );
  await adapter.say('one more question');
  await gw.idle();
  assert.equal(model.requests.length, 2, 'a spent budget stops the next run before any model call');
  assert.match(adapter.texts().at(-1)!, /daily budget is \$1\.50/);
  await gw.stop();

  const again = boot({ model, state, telegram, tools: [look.t], costUsd: 1, adapter });
  await again.gw.start();
  await again.adapter.say('/usage');
  await again.gw.idle();
  const usage = again.adapter.texts().at(-1)!;
  assert.match(
    usage,
    /This conversation: today 200 tokens in, 40 out, \$2\.00; in total 200 tokens in, 40 out, \$2\.00/,
  );
  assert.match(usage, /You: today .*\$2\.00/);
  assert.match(usage, /Conversation budget: \$0\.00 left of \$1\.50 today/);
  await again.gw.stop();
});

/** The store with its usage reads counted, by subject kind. */
function countingUsageReads(store: Store): { store: Store; reads: { conversation: number; user: number } } {
  const reads = { conversation: 0, user: 0 };
  const usage: Store['usage'] = {
    ...store.usage,
    get(subject, day) {
      reads['conversationKey' in subject ? 'conversation' : 'user']++;
      return store.usage.get(subject, day);
    },
  };
  return { store: { ...store, usage }, reads };
}

test('a run reads today’s spending only for the subjects a budget limits; all calls are charged (/usage)', async () => {
  const model = new Model();
  const state = createMemoryState();
  const counted = countingUsageReads(createMemoryStore({ state }));
  const { gw, adapter } = boot({ model, state, costUsd: 0.25, store: counted.store });
  await gw.start();
  model.script(reply('one'), reply('two'));
  await adapter.say('first');
  await adapter.say('second');
  await gw.idle();
  assert.equal(model.requests.length, 2);
  assert.deepEqual(counted.reads, { conversation: 0, user: 0 }, 'no budget: no usage read before a run');
  await adapter.say('/usage');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /This conversation: today .*\$0\.50/, 'both charges were recorded');
  await gw.stop();

  // A user budget: the user's spending is read before each run (the conversation's is not).
  const budgeted = countingUsageReads(createMemoryStore({ state }));
  const again = boot({
    model,
    state,
    costUsd: 0.25,
    store: budgeted.store,
    telegram: { budget: { userUsdPerDay: 0.6 } },
    adapter,
  });
  await again.gw.start();
  model.script(reply('three'), reply('four'));
  await again.adapter.say('third');
  await again.gw.idle();
  assert.deepEqual(budgeted.reads, { conversation: 0, user: 1 });
  await again.adapter.say('fourth');
  await again.gw.idle();
  assert.equal(model.requests.length, 3, 'the spending recorded without a budget counts against it');
  assert.match(again.adapter.texts().at(-1)!, /you have spent \$0\.75 today, your daily budget is \$0\.60/);
  await again.gw.stop();
});

test('replicas on one store share a daily budget: what one spent stops the other', async () => {
  const model = new Model();
  const state = createMemoryState();
  const store = createMemoryStore({ state });
  const telegram = { budget: { userUsdPerDay: 2.5 } };
  const a = boot({ model, state, telegram, costUsd: 1, store });
  const b = boot({ model, state, telegram, costUsd: 1, store });
  await a.gw.start();
  await b.gw.start();
  model.script(reply('one'), reply('two'), reply('three'));
  await b.adapter.say('first, on the second replica', { id: 'b1' }); // it reads today's spending: none yet
  await b.gw.idle();
  await a.adapter.say('on the first replica');
  await a.gw.idle();
  await a.adapter.say('again on the first');
  await a.gw.idle();
  assert.equal(model.requests.length, 3, 'both replicas answered while under the budget');
  await b.adapter.say('back on the second replica', { id: 'b2' });
  await b.gw.idle();
  assert.equal(model.requests.length, 3, 'the second replica counts what the first spent');
  assert.match(b.adapter.texts().at(-1)!, /you have spent \$3\.00 today, your daily budget is \$2\.50/);
  await a.gw.stop();
  await b.gw.stop();
});

test('extra chat commands (memory) and the gateway commands answer side by side, in /help and the menu', async () => {
  const ran: string[] = [];
  const run: ChatCommand['run'] = async (ctx) => {
    ran.push(ctx.message.text);
    await ctx.reply('no notes');
  };
  const chatCommands: ChatCommand[] = [
    { name: 'memory', description: 'the notes I keep', access: 'write', run },
    {
      name: 'forget',
      description: 'delete notes',
      args: { name: '<id|all>', description: '<id|all>', usage: '<id|all>' },
      access: 'write',
      run,
    },
  ];
  const { gw, adapter } = boot({ model: new Model(), state: createMemoryState(), chatCommands });
  await gw.start();
  const menu = adapter.menus[0]?.map((c) => c.name) ?? [];
  assert.ok(menu.includes('model') && menu.includes('memory') && menu.includes('forget'), menu.join(' '));
  assert.equal(adapter.menus[0]?.find((c) => c.name === 'forget')?.argument?.name, '<id|all>');
  await adapter.say('/help');
  await gw.idle();
  for (const c of ['/model [name]', '/usage', '/memory', '/forget <id|all>'])
    assert.ok(adapter.texts().at(-1)!.includes(c), `/help lists ${c}`);
  await adapter.say('/memory');
  await gw.idle();
  assert.equal(adapter.texts().at(-1), 'no notes');
  await adapter.say('/usage');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /This conversation: today/);
  assert.deepEqual(ran, ['/memory'], 'the gateway command did not reach the extra ones');
  await gw.stop();
});

const approvals = (over: Record<string, unknown> = {}) => ({
  approvals: { levels: ['Write'], approvers: ['boss'], ...over },
});

test('an approval pressed by a non-approver is refused; the approver’s press runs the call once', async () => {
  const model = new Model();
  const write = tool('write', 'Write');
  const { gw, adapter } = boot({ model, state: createMemoryState(), telegram: approvals(), tools: [write.t] });
  await gw.start();
  model.script(callTools([['write', { path: 'notes.txt' }]]), reply('Saved.'));
  await adapter.say('save my notes');
  await until(() => adapter.posted.some((p) => p.buttons?.length), 'the approval question');
  const question = adapter.posted.find((p) => p.buttons?.length)!;
  assert.match(question.text, /run write \(Write\)\?\n\{ ?"path": ?"notes\.txt" ?\}/);
  assert.match(question.text, /Who decides: users boss/);
  assert.ok(question.buttons!.every((b) => Buffer.byteLength(b.id) <= 64));
  assert.equal(write.runs.length, 0, 'nothing runs before a decision');

  await adapter.press('Approve', { userId: '42' });
  assert.deepEqual(adapter.pressAnswers.at(-1), {
    userId: '42',
    buttonId: question.buttons![0]!.id,
    text: 'Only boss may decide this.',
  });
  assert.equal(write.runs.length, 0);
  await adapter.press('Approve', { userId: 'boss' });
  await gw.idle();
  assert.equal(write.runs.length, 1);
  assert.equal(adapter.texts().at(-1), 'Saved.');
  assert.match(question.text, /Approved by boss\.$/);
  assert.equal(question.buttons, undefined, 'the buttons are gone once decided');
  assert.equal(lastToolResult(model.requests[1]), 'write done: notes.txt');
  // A second press changes nothing and runs nothing.
  await adapter.sink!({ ...(await lastPress(adapter)), id: 'telegram:press:again', userId: 'boss' });
  await gw.idle();
  assert.equal(write.runs.length, 1);
  assert.match(adapter.pressAnswers.at(-1)!.text, /already approved/);
  await gw.stop();
});

/** A press of the question's Approve button as the platform would deliver it. */
async function lastPress(adapter: FakeAdapter) {
  const q = adapter.posted.find((p) => p.text.startsWith('Approval needed'))!;
  const { inboundMessage } = await import('./fakes.ts');
  return inboundMessage('', { action: { id: `ap:${/\(([a-z0-9]+)\)/.exec(q.text)![1]}:y` } });
}

test('a denied call and a timed-out one are refusals the model reads, and it goes on', async () => {
  const model = new Model();
  const write = tool('write', 'Write');
  const { gw, adapter } = boot({
    model,
    state: createMemoryState(),
    // Long enough that the press lands before it on a busy machine; the second question waits it out.
    telegram: approvals({ approvers: 'requester', timeoutMs: 2000 }),
    tools: [write.t],
  });
  await gw.start();
  model.script(callTools([['write', { path: 'a' }]]), reply('Not saved, as you wish.'));
  await adapter.say('save a');
  await until(() => adapter.posted.some((p) => p.buttons?.length), 'the question');
  await adapter.press('Deny');
  await gw.idle();
  assert.match(lastToolResult(model.requests[1]), /refused: 42 denied this call/);
  assert.equal(adapter.texts().at(-1), 'Not saved, as you wish.');

  model.script(callTools([['write', { path: 'b' }]]), reply('Nobody answered.'));
  await adapter.say('save b');
  await gw.idle();
  assert.match(lastToolResult(model.requests[3]), /refused: nobody approved this call in time/);
  assert.match(adapter.posted.at(-2)!.text, /Expired: nobody decided in time\.$/);
  assert.equal(write.runs.length, 0);
  await gw.stop();
});

test('a restart while a question waits keeps it answerable, and the approved call runs once', async () => {
  const model = new Model();
  const state = createMemoryState();
  const write = tool('write', 'Write');
  const first = boot({ model, state, telegram: approvals(), tools: [write.t] });
  await first.gw.start();
  model.script(callTools([['write', { path: 'x' }]]));
  await first.adapter.say('save x');
  await until(() => first.adapter.posted.some((p) => p.buttons?.length), 'the question');
  await first.gw.stop();

  // The same platform chat after the restart: the run asks the same call again and waits on the same question.
  model.script(callTools([['write', { path: 'x' }]]), reply('Saved x.'));
  const second = boot({ model, state, telegram: approvals(), tools: [write.t], adapter: first.adapter });
  await second.gw.start();
  await until(() => model.requests.length === 2, 'the run again after the restart');
  assert.equal(first.adapter.posted.filter((p) => p.text.startsWith('Approval needed')).length, 1, 'asked once');
  await first.adapter.press('Approve', { userId: 'boss' });
  await until(() => first.adapter.texts().includes('Saved x.'), 'the answer');
  await second.gw.idle();
  assert.equal(write.runs.length, 1);
  await second.gw.stop();

  // A run again of the same message after the call ran (a crash before the answer was saved) replays its result.
  const store = createMemoryStore({ state });
  const [record] = await store.approvals.pending().then(async () => store.approvals.forMessage('telegram:evt:1'));
  assert.equal(record?.ran?.result?.content, 'write done: x', 'the result is journaled with the approval');
});

test('afterUntrusted: after a web result every write needs approval, and the question says what was read', async () => {
  const model = new Model();
  const fetchPage = tool('web_fetch', 'ReadOnly', 'the result of web_fetch(url="https://example.com")');
  const write = tool('write', 'Write');
  const { gw, adapter } = boot({
    model,
    state: createMemoryState(),
    telegram: { approvals: { afterUntrusted: true } },
    tools: [fetchPage.t, write.t],
  });
  await gw.start();
  model.script(
    callTools([['write', { path: 'before' }]]),
    callTools([['web_fetch', { path: 'https://example.com' }]]),
    callTools([['write', { path: 'after' }]]),
    reply('Done.'),
  );
  await adapter.say('fetch and save');
  await until(() => adapter.posted.some((p) => p.buttons?.length), 'the question');
  assert.equal(write.runs.length, 1, 'the write before the fetch ran without asking');
  const q = adapter.posted.find((p) => p.buttons?.length)!;
  assert.match(q.text, /this run has read content it cannot trust/);
  assert.match(q.text, /Read before: the result of web_fetch\(url="https:\/\/example\.com"\)/);
  await adapter.press('Approve');
  await gw.idle();
  assert.equal(write.runs.length, 2);
  await gw.stop();
});

test('without buttons the question asks for a typed /approve, which only an approver can give', async () => {
  const model = new Model();
  const write = tool('write', 'Write');
  const plain = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
  plain.answerPress = undefined;
  const { gw } = boot({ model, state: createMemoryState(), telegram: approvals(), tools: [write.t], adapter: plain });
  await gw.start();
  model.script(callTools([['write', { path: 'y' }]]), reply('Saved y.'));
  await plain.say('save y');
  await until(() => plain.texts().some((t) => t.includes('/approve')), 'the question');
  const q = plain.texts().find((t) => t.includes('/approve'))!;
  assert.equal(
    plain.posted.every((p) => !p.buttons),
    true,
    'no buttons',
  );
  const id = /Reply \/approve ([a-z0-9]+)/.exec(q)![1]!;
  await plain.say(`/approve ${id}`);
  await until(() => plain.texts().includes('Only boss may decide this.'), 'the refusal');
  assert.equal(write.runs.length, 0);
  await plain.say(`/approve ${id}`, { userId: 'boss' });
  await until(() => plain.texts().includes('Saved y.'), 'the answer');
  await gw.idle();
  assert.equal(write.runs.length, 1);
  await gw.stop();
});

test('/new archives the session; /compact has the model summarise older turns into one', async () => {
  const model = new Model();
  const state = createMemoryState();
  const { gw, adapter, store } = boot({ model, state });
  await gw.start();
  for (const n of [1, 2, 3]) {
    model.script(reply(`answer ${n}`));
    await adapter.say(`question ${n}`);
    await gw.idle();
  }
  const before = (await store.conversations.get('telegram:100'))!.messages.length;
  model.script(reply('They asked three questions.'));
  await adapter.say('/compact');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /Compacted: the 6 messages of this conversation are now 4/);
  const after = (await store.conversations.get('telegram:100'))!.messages;
  assert.match(JSON.stringify(after[0]), /Summary of the earlier conversation[\s\S]*three questions/);
  assert.ok(!/question [12]/.test(JSON.stringify(after)), 'the older turns are now in the summary');
  assert.match(JSON.stringify(after), /question 3/, 'the last turn is kept');
  assert.equal(before, 6);

  await adapter.say('/new');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /Started a new session\. The previous one \(4 messages\) is archived/);
  assert.deepEqual((await store.conversations.get('telegram:100'))!.messages, []);
  const archived = await store.conversations.archived('telegram:100');
  assert.equal(archived.length, 1);
  assert.match(JSON.stringify(archived[0]!.messages), /question 3/);
  model.script(reply('fresh'));
  await adapter.say('hi');
  await gw.idle();
  assert.equal(model.requests.at(-1)!.messages.length, 1, 'the new session starts empty');
  await gw.stop();
});

test('/new replayed after a crash before its reply was written archives once and keeps the fresh session', async () => {
  const model = new Model();
  const state = createMemoryState();
  const real = createMemoryStore({ state });
  // The crash point: /new has archived, and its reply never reaches the outbox (the process died there).
  let crashed = false;
  const delivery = new Proxy(real.delivery, {
    get(target, prop, receiver) {
      if (prop !== 'putOutbox') return Reflect.get(target, prop, receiver);
      return (e: OutboxEntry) => {
        if (!e.chunks.some((c) => c.startsWith('Started a new session'))) return target.putOutbox(e);
        crashed = true;
        return new Promise(() => undefined);
      };
    },
  });
  const first = boot({ model, state, store: { ...real, delivery } as Store });
  await first.gw.start();
  model.script(reply('answer 1'));
  await first.adapter.say('question 1');
  await first.gw.idle();
  await first.adapter.say('/new');
  await until(() => crashed, 'archived, its reply not written');
  // The fresh session gets a turn before the crash.
  model.script(reply('fresh answer'));
  await first.adapter.say('hi');
  await until(() => first.adapter.texts().includes('fresh answer'), 'the fresh session answered');

  const second = boot({ model, state });
  await second.gw.start();
  await second.gw.idle();
  assert.match(
    second.adapter.texts().join('\n'),
    /Started a new session\. The previous one \(2 messages\) is archived/,
  );
  const archived = await second.store.conversations.archived('telegram:100');
  assert.deepEqual(
    archived.map((a) => JSON.stringify(a.messages).includes('question 1')),
    [true],
    'one archive, of the session before /new',
  );
  const kept = JSON.stringify((await second.store.conversations.get('telegram:100'))?.messages);
  assert.match(kept, /fresh answer/, 'the fresh session is not archived by the replay');
  assert.deepEqual(await second.store.delivery.pending(), [], '/new is answered');
  await second.gw.stop();
});

test('/whoami names the tools that need approval', async () => {
  const write = tool('write', 'Write');
  const look = tool('look', 'ReadOnly');
  const { gw, adapter } = boot({
    model: new Model(),
    state: createMemoryState(),
    telegram: approvals(),
    tools: [write.t, look.t],
  });
  await gw.start();
  await adapter.say('/whoami');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /Needs approval: write\./);
  await gw.stop();
});

test('afterUntrusted in a group: once another user spoke, a write asks, naming their messages', async () => {
  const model = new Model();
  const write = tool('write', 'Write');
  const { gw, adapter } = boot({
    model,
    state: createMemoryState(),
    telegram: { approvals: { afterUntrusted: true } },
    tools: [write.t],
  });
  await gw.start();
  const group = { chatId: '-100', conversationKey: 'telegram:-100', isDirect: false, mentionsBot: true };
  model.script(callTools([['write', { path: 'mine' }]]), reply('Saved yours.'));
  await adapter.say('save mine', { ...group, userId: 'ann', userName: 'ann' });
  await gw.idle();
  assert.equal(write.runs.length, 1, 'alone in the history: no question');
  model.script(callTools([['write', { path: 'theirs' }]]));
  await adapter.say('save theirs', { ...group, userId: 'bob', userName: 'bob' });
  await until(() => adapter.posted.some((p) => p.buttons?.length), 'the question');
  assert.match(adapter.posted.find((p) => p.buttons?.length)!.text, /Read before: messages from other users/);
  assert.equal(write.runs.length, 1);
  await gw.stop();
});

test('afterUntrusted: another user’s words summarised by /compact still make a write ask', async () => {
  const model = new Model();
  const write = tool('write', 'Write');
  const { gw, adapter } = boot({
    model,
    state: createMemoryState(),
    telegram: { approvals: { afterUntrusted: true } },
    tools: [write.t],
  });
  await gw.start();
  const group = { chatId: '-100', conversationKey: 'telegram:-100', isDirect: false, mentionsBot: true };
  const ann = { ...group, userId: 'ann', userName: 'ann' };
  model.script(reply('Hello bob.'));
  await adapter.say('hello, I am bob', { ...group, userId: 'bob', userName: 'bob' });
  await gw.idle();
  model.script(reply('Hello ann.'));
  await adapter.say('hello, I am ann', ann);
  await gw.idle();
  // Bob's turn goes into the summary; only ann's last turn is kept as it was.
  model.script(reply('Bob and ann said hello.'));
  await adapter.say('/compact', ann);
  await gw.idle();
  model.script(callTools([['write', { path: 'mine' }]]));
  await adapter.say('save mine', ann);
  await until(() => adapter.posted.some((p) => p.buttons?.length), 'the question');
  assert.match(adapter.posted.find((p) => p.buttons?.length)!.text, /Read before: messages from other users/);
  assert.equal(write.runs.length, 0);
  await gw.stop();
});

test('/status in a recorded chat says it is recorded and for how long; elsewhere it says nothing of it', async () => {
  const recorded = boot({
    model: new Model(),
    state: createMemoryState(),
    telegram: { chats: { '100': { history: { record: true, days: 14 } } } },
  });
  await recorded.gw.start();
  await recorded.adapter.say('/status');
  await recorded.gw.idle();
  assert.match(recorded.adapter.texts().at(-1)!, /recorded for digests: every message here is kept 14 days/);
  await recorded.gw.stop();
  const plain = boot({ model: new Model(), state: createMemoryState() });
  await plain.gw.start();
  await plain.adapter.say('/status');
  await plain.gw.idle();
  assert.doesNotMatch(plain.adapter.texts().at(-1)!, /recorded/);
  await plain.gw.stop();
});
