// Daily budgets under concurrent runs, through the whole gateway (a fake platform, the real agent
// runner and memory store, a model that holds its answers until the test lets them go): each model
// call holds its estimated cost before it is made, so runs in flight at once cannot together pass
// a budget, and the stop notice names the figure the store holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Provider } from '../../src/agent/index.ts';
import { createMemoryState } from '../../src/store/index.ts';
import { reply } from '../agent/loop/scripted.ts';
import { until } from './fakes.ts';
import { boot, Model } from './real-gateway.ts';

/** A model whose calls wait until `open()`: every run gets to its first call before any is charged. */
class HeldModel extends Model {
  open: () => void = () => {};
  private readonly gate = new Promise<void>((r) => {
    this.open = r;
  });
  override provider(): Provider {
    const inner = super.provider();
    const gate = this.gate;
    return {
      name: inner.name,
      stream: (req, signal) => {
        const parts = inner.stream(req, signal);
        return (async function* () {
          await gate;
          yield* parts;
        })();
      },
    };
  }
}

test('ten group chats of one user at once against a tiny daily budget: one answered, nine told why', async () => {
  const model = new HeldModel();
  // Each call costs $0.001 (the test's price for any usage, so its estimate too); the budget is a tenth of that.
  const telegram = { budget: { userUsdPerDay: 0.0001 } };
  const { gw, adapter, store } = boot({ model, state: createMemoryState(), telegram, costUsd: 0.001 });
  await gw.start();
  model.script(...Array.from({ length: 10 }, (_, i) => reply(`answer ${i}`)));
  const refusals = () => adapter.posted.filter((p) => /daily budget/.test(p.text)).length;
  const inGroup = (i: number) => ({
    chatId: `-10${i}`,
    conversationKey: `telegram:-10${i}`,
    isDirect: false,
    mentionsBot: true,
  });
  for (let i = 0; i < 10; i++) await adapter.say('what is new?', inGroup(i));
  // Every run has either reached the model or been refused before it.
  await until(() => model.requests.length + refusals() === 10, 'all ten runs at the model or refused');
  model.open();
  await gw.idle();
  assert.equal(model.requests.length, 1, 'one model call: the others would have passed the budget');
  assert.equal(adapter.posted.filter((p) => /^answer \d$/.test(p.text)).length, 1);
  assert.equal(refusals(), 9);
  for (const p of adapter.posted.filter((p) => /daily budget/.test(p.text)))
    assert.match(
      p.text,
      /Stopped: you have spent \$0\.00 today and runs in progress hold \$0\.0010, your daily budget is \$0\.00010/,
    );
  // Settled: the next message's notice and the store say the same figure.
  await adapter.say('and now?', inGroup(0));
  await gw.idle();
  assert.match(adapter.posted.at(-1)!.text, /Stopped: you have spent \$0\.0010 today, your daily budget is \$0\.00010/);
  const day = new Date().toISOString().slice(0, 10);
  assert.equal((await store.usage.get({ userKey: 'telegram:42' }, day)).day.costUsd, 0.001);
  assert.equal(model.requests.length, 1);
  await gw.stop();
});

test("ten topics of one group at once against the group's daily budget: one answered, nine told why", async () => {
  const model = new HeldModel();
  // A group-level budget covers all its topics (threads), and in-flight calls in any topic hold against it.
  const telegram = { chats: { '-100': { budget: { conversationUsdPerDay: 0.0001 } } } };
  const { gw, adapter } = boot({ model, state: createMemoryState(), telegram, costUsd: 0.001 });
  await gw.start();
  model.script(...Array.from({ length: 10 }, (_, i) => reply(`answer ${i}`)));
  const refusals = () => adapter.posted.filter((p) => /daily budget/.test(p.text)).length;
  for (let i = 0; i < 10; i++)
    await adapter.say('what is new?', {
      chatId: '-100',
      threadId: String(i + 1),
      conversationKey: `telegram:-100:${i + 1}`,
      isDirect: false,
      mentionsBot: true,
      userId: String(40 + i),
    });
  await until(() => model.requests.length + refusals() === 10, 'all ten runs at the model or refused');
  model.open();
  await gw.idle();
  assert.equal(model.requests.length, 1, 'one model call: the others would have passed the group budget');
  assert.equal(refusals(), 9);
  for (const p of adapter.posted.filter((p) => /daily budget/.test(p.text)))
    assert.match(p.text, /Stopped: this channel \(all its threads\) has spent \$0\.00 today and runs in progress hold/);
  await gw.stop();
});
