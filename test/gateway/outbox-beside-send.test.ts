// An answer already durable in the history goes to the platform while its outbox entry is written
// (turn.ts): a process gone before that entry is durable leaves the message pending with no entry,
// and the restart sends the answer from the history, with no second model call and the turn kept
// once. Through the whole gateway: the real agent runner and memory store, a fake platform, the
// store's state kept across the "crash" (the first gateway is abandoned, never stopped).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OutboundTarget, SendOptions } from '../../src/adapters/index.ts';
import { createMemoryState, createMemoryStore, type Store } from '../../src/store/index.ts';
import { reply } from '../agent/loop/scripted.ts';
import { FakeAdapter, fakeCapabilities, until } from './fakes.ts';
import { boot, Model } from './real-gateway.ts';

/** A store whose outbox writes never finish: the process dies while the entry's line is written. */
function dyingOnOutbox(store: Store): { store: Store; puts: string[] } {
  const puts: string[] = [];
  return {
    puts,
    store: {
      ...store,
      delivery: {
        ...store.delivery,
        putOutbox: (entry) => {
          puts.push(entry.id);
          return new Promise<void>(() => undefined);
        },
      },
    },
  };
}

/** A platform whose sends can be held (the process dies before the platform took the message). */
class HoldingAdapter extends FakeAdapter {
  hold = false;
  held = 0;
  override async send(target: OutboundTarget, text: string, opts?: SendOptions) {
    if (this.hold) {
      this.held++;
      return new Promise<never>(() => undefined);
    }
    return super.send(target, text, opts);
  }
}

async function crashThenRestart(o: { platformTookIt: boolean }) {
  const model = new Model();
  const state = createMemoryState();
  const adapter = new HoldingAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
  const dying = dyingOnOutbox(createMemoryStore({ state }));
  const first = boot({ model, state, adapter, store: dying.store });
  await first.gw.start();
  model.script(reply('Paris.'));
  adapter.hold = !o.platformTookIt;
  await adapter.say('capital of France?');
  await until(() => dying.puts.length === 1, "the answer's outbox entry is being written");
  if (o.platformTookIt) await until(() => adapter.texts().length === 1, 'the platform took the answer');
  else await until(() => adapter.held === 1, 'the answer on its way to the platform');
  assert.equal(model.requests.length, 1);
  // Gone: a new gateway on what the store holds (no outbox entry, the message still pending).
  adapter.hold = false;
  const second = boot({ model, state, adapter });
  await second.gw.start();
  await second.gw.idle();
  const history = (await second.store.conversations.get('telegram:100'))?.messages ?? [];
  const pending = await second.store.delivery.pending();
  const outbox = await second.store.delivery.pendingOutbox();
  await second.gw.stop();
  return { texts: adapter.texts(), modelCalls: model.requests.length, history, pending, outbox };
}

const beforeTitle =
  'gone while the entry of an answer saved in the history was written, before the platform took it: sent once';
test(beforeTitle, async () => {
  const r = await crashThenRestart({ platformTookIt: false });
  assert.deepEqual(r.texts, ['Paris.']);
  assert.equal(r.modelCalls, 1, 'the restart answers from the history, not the model');
  assert.deepEqual(
    r.history.map((m) => m.role),
    ['user', 'assistant'],
    'the turn is in the history once',
  );
  assert.deepEqual(r.pending, [], 'the message is answered');
  assert.deepEqual(r.outbox, []);
});

const afterTitle =
  'gone after the platform took an answer saved in the history, its entry unwritten: sent again from the history ' +
  '(as after any crash before an answer’s end), once more only';
test(afterTitle, async () => {
  const r = await crashThenRestart({ platformTookIt: true });
  // The same window as a crash between the send and the entry's end: a platform without idempotent
  // sends shows the answer twice; it is the same text, and neither the model nor the history runs twice.
  assert.deepEqual(r.texts, ['Paris.', 'Paris.']);
  assert.equal(r.modelCalls, 1);
  assert.deepEqual(
    r.history.map((m) => m.role),
    ['user', 'assistant'],
  );
  assert.deepEqual(r.pending, []);
  assert.deepEqual(r.outbox, []);
});
