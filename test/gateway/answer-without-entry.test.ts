// An answer already durable in the history, as it is sent (one chunk, no files), goes to the
// platform with no outbox entry, and its end is one record: the message answered (turn.ts,
// sendUnstored in reply.ts). A process gone before that record leaves the message pending with no
// entry, and the restart sends the answer from the history, with no second model call and the
// turn kept once. The rare paths that need an entry write it then. Through the whole gateway: the
// real agent runner and memory store, a fake platform, the store's state kept across the "crash"
// (the first gateway is abandoned, never stopped).
import assert from 'node:assert/strict';
import { after, type TestContext, test } from 'node:test';
import { AdapterApiError, type OutboundTarget, type SendOptions } from '../../src/adapters/index.ts';
import type { AgentDeps, StreamPart } from '../../src/agent/index.ts';
import { createMemoryState, createMemoryStore, type MemoryFilesState, type Store } from '../../src/store/index.ts';
import { openPostgresStore } from '../../src/store/postgres/index.ts';
import { reply } from '../agent/loop/scripted.ts';
import { type PostgresServer, startPostgres } from '../store/postgres-server.ts';
import { FakeAdapter, fakeCapabilities, until } from './fakes.ts';
import { boot, Model } from './real-gateway.ts';

/** The delivery writes the gateway made, by name; `dying` names the one that never finishes (the process is gone). */
function watched(
  store: Store,
  dying?: 'finish' | 'notePreview',
): { store: Store; writes: string[]; previews: string[] } {
  const writes: string[] = [];
  const previews: string[] = []; // preview ids, once journaled
  const d = store.delivery;
  return {
    writes,
    previews,
    store: {
      ...store,
      delivery: {
        ...d,
        notePreview: async (id, messageId) => {
          if (dying === 'notePreview') return new Promise<void>(() => undefined);
          await d.notePreview(id, messageId);
          previews.push(messageId);
        },
        putOutbox: (entry) => {
          writes.push('putOutbox');
          return d.putOutbox(entry);
        },
        finishOutbox: (id, answered) => {
          writes.push('finishOutbox');
          return d.finishOutbox(id, answered);
        },
        failOutbox: (id, error, answered) => {
          writes.push('failOutbox');
          return d.failOutbox(id, error, answered);
        },
        finish: (id) => {
          writes.push('finish');
          return dying === 'finish' ? new Promise<void>(() => undefined) : d.finish(id);
        },
      },
    },
  };
}

// No streamed preview here (a run slower than FIRST_PREVIEW_DELAY_MS, as on a database, would make one
// and be another case): the answer is the one message. Previews: the tests at the end.
const noPreviews = fakeCapabilities({ maxTextLength: 4000, edit: false });

/**
 * A platform whose sends can be held (the process dies before the platform took the message);
 * stopping it fails a held send, as a client whose connection closes does.
 */
class HoldingAdapter extends FakeAdapter {
  hold = false;
  held = 0;
  private drop: (() => void)[] = [];
  override async send(target: OutboundTarget, text: string, opts?: SendOptions) {
    if (this.hold) {
      this.held++;
      return new Promise<never>((_, reject) => this.drop.push(() => reject(new Error('connection closed'))));
    }
    return super.send(target, text, opts);
  }
  override async stop() {
    for (const d of this.drop.splice(0)) d();
    await super.stop();
  }
}

/**
 * A backend: each `store()` opens the same data again (a restart); `close` closes what was opened.
 * PostgreSQL runs where the test runner's shared server (or an embedded one) is there.
 */
interface Backend {
  name: string;
  skip: string | false;
  open(): Promise<{ state: MemoryFilesState; store(): Promise<Store>; close(): Promise<void> }>;
}

const started = await startPostgres();
const server: PostgresServer | undefined = 'missing' in started ? undefined : started;
after(() => server?.stop());

const backends: Backend[] = [
  {
    name: 'files',
    skip: false,
    async open() {
      const state = createMemoryState();
      return { state, store: async () => createMemoryStore({ state }), close: async () => undefined };
    },
  },
  {
    name: 'postgres',
    skip: 'missing' in started ? `PostgreSQL tests skipped: ${started.missing}` : false,
    async open() {
      const url = await (server as PostgresServer).database();
      const opened: Store[] = [];
      return {
        state: createMemoryState(), // unused: the runner's store is the database's
        async store() {
          const s = await openPostgresStore(url);
          opened.push(s);
          return s;
        },
        close: async () => {
          for (const s of opened) await s.close().catch(() => undefined);
        },
      };
    },
  },
];

/** What a new gateway on the same data makes of what the first one left. */
async function restart(model: Model, state: MemoryFilesState, adapter: FakeAdapter, store: Store) {
  const second = boot({ model, state, adapter, store });
  await second.gw.start();
  await second.gw.idle();
  const history = (await second.store.conversations.get('telegram:100'))?.messages ?? [];
  const pending = await second.store.delivery.pending();
  const outbox = await second.store.delivery.pendingOutbox();
  const failed = await second.store.delivery.failedOutbox();
  await second.gw.stop();
  return { texts: adapter.texts(), modelCalls: model.requests.length, history, pending, outbox, failed };
}

for (const backend of backends) {
  const named = (title: string) => `${backend.name}: ${title}`;
  const { skip } = backend;

  async function crashThenRestart(t: TestContext, o: { platformTookIt: boolean }) {
    const data = await backend.open();
    t.after(() => data.close());
    const model = new Model();
    const adapter = new HoldingAdapter('telegram', noPreviews);
    const first = watched(await data.store(), 'finish');
    const gw = boot({ model, state: data.state, adapter, store: first.store }).gw;
    await gw.start();
    model.script(reply('Paris.'));
    adapter.hold = !o.platformTookIt;
    await adapter.say('capital of France?');
    if (o.platformTookIt)
      await until(() => first.writes.includes('finish'), "the message's answered record is written");
    else await until(() => adapter.held === 1, 'the answer on its way to the platform');
    assert.equal(model.requests.length, 1);
    assert.deepEqual(first.writes, o.platformTookIt ? ['finish'] : [], 'no outbox entry is written');
    // Gone: a new gateway on what the store holds (no outbox entry, the message still pending).
    adapter.hold = false;
    return restart(model, data.state, adapter, await data.store());
  }

  /** One gateway on a fresh store of the backend, its delivery writes watched. */
  async function booted(t: TestContext, adapter: FakeAdapter = new FakeAdapter('telegram', noPreviews)) {
    const data = await backend.open();
    t.after(() => data.close());
    const model = new Model();
    const w = watched(await data.store());
    const b = boot({ model, state: data.state, store: w.store, adapter });
    await b.gw.start();
    model.script(reply('Paris.'));
    return { ...b, model, writes: w.writes, data };
  }

  const plainTitle =
    'an answer saved in the history is sent with no outbox entry: its end is one record, the message answered';
  test(named(plainTitle), { skip }, async (t) => {
    const b = await booted(t);
    await b.adapter.say('capital of France?');
    await b.gw.idle();
    assert.deepEqual(b.adapter.texts(), ['Paris.']);
    assert.deepEqual(b.writes, ['finish']);
    assert.deepEqual(await b.store.delivery.pending(), [], 'the message is answered');
    assert.deepEqual(await b.store.delivery.pendingOutbox(), []);
    await b.gw.stop();
  });

  test(named('gone before the platform took an answer sent with no entry: the restart sends it once'), {
    skip,
  }, async (t) => {
    const r = await crashThenRestart(t, { platformTookIt: false });
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
    'gone after the platform took an answer sent with no entry, before the message was marked answered: sent ' +
    'again from the history (as after any crash before an answer’s end), once more only';
  test(named(afterTitle), { skip }, async (t) => {
    const r = await crashThenRestart(t, { platformTookIt: true });
    // The same window as a crash between the send and an entry's end: a platform without idempotent
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

  const refusedTitle =
    'the platform refuses an answer sent with no entry for good: an operator sees it failed, and it is answered';
  test(named(refusedTitle), { skip }, async (t) => {
    const b = await booted(t);
    b.adapter.beforeSend = () => {
      throw new AdapterApiError('telegram', 403, 'Forbidden: bot was blocked by the user');
    };
    await b.adapter.say('capital of France?');
    await b.gw.idle();
    assert.deepEqual(b.adapter.texts(), [], 'the chat refuses everything');
    assert.deepEqual(b.writes, ['putOutbox', 'failOutbox']);
    await b.gw.stop();
    b.adapter.beforeSend = undefined;
    const r = await restart(b.model, b.data.state, b.adapter, await b.data.store());
    assert.deepEqual(
      r.failed.map((f) => [f.id, f.text, f.error]),
      [[r.failed[0]?.id, 'Paris.', 'telegram: the API said 403: Forbidden: bot was blocked by the user']],
      'the failed replies list names it',
    );
    assert.deepEqual(r.pending, [], 'the message is answered: not run again at every start');
    assert.deepEqual(r.outbox, []);
    assert.deepEqual(r.texts, [], 'nothing is sent at the restart');
    assert.equal(r.modelCalls, 1);
  });

  test(named('a send failing for a while is retried by the outbound queue: sent once, still with no entry'), {
    skip,
  }, async (t) => {
    const b = await booted(t);
    b.adapter.fail503 = 2;
    await b.adapter.say('capital of France?');
    await b.gw.idle();
    assert.deepEqual(b.adapter.texts(), ['Paris.']);
    assert.equal(b.adapter.fail503, 0, 'the platform failed it twice first');
    assert.deepEqual(b.writes, ['finish']);
    assert.deepEqual(await b.store.delivery.pending(), []);
    await b.gw.stop();
  });

  test(named('a send failing with an unexpected error writes the entry, which the restart delivers once'), {
    skip,
  }, async (t) => {
    const b = await booted(t);
    b.adapter.beforeSend = () => {
      throw new TypeError('the adapter broke');
    };
    await b.adapter.say('capital of France?');
    await b.gw.idle();
    assert.deepEqual(b.writes, ['putOutbox'], 'written for the re-drive');
    assert.deepEqual(
      (await b.store.delivery.pendingOutbox()).map((e) => e.chunks),
      [['Paris.']],
    );
    await b.gw.stop();
    b.adapter.beforeSend = undefined;
    const r = await restart(b.model, b.data.state, b.adapter, await b.data.store());
    assert.deepEqual(r.texts, ['Paris.']);
    assert.equal(r.modelCalls, 1);
    assert.deepEqual(r.pending, []);
    assert.deepEqual(r.outbox, []);
  });

  test(named('stopped while the platform holds an answer sent with no entry: the next start sends it once'), {
    skip,
  }, async (t) => {
    const adapter = new HoldingAdapter('telegram', noPreviews);
    const b = await booted(t, adapter);
    adapter.hold = true;
    await adapter.say('capital of France?');
    await until(() => adapter.held === 1, 'the answer on its way to the platform');
    await b.gw.stop();
    assert.deepEqual(b.writes, [], 'no entry written while stopping: the message stays pending');
    adapter.hold = false;
    const r = await restart(b.model, b.data.state, adapter, await b.data.store());
    assert.deepEqual(r.texts, ['Paris.']);
    assert.equal(r.modelCalls, 1);
    assert.deepEqual(r.pending, []);
    assert.deepEqual(r.outbox, []);
  });
}

/** A model that streams `head`, then waits for `go` before the rest of its answer. */
function slowModel(
  head: string,
  tail: string,
  go: Promise<void>,
): { deps: AgentDeps['resolveModel']; calls: () => number } {
  let calls = 0;
  const provider = {
    name: 'test',
    stream: () => {
      calls++;
      return (async function* (): AsyncGenerator<StreamPart> {
        yield { type: 'text-delta', text: head };
        await go;
        yield* reply(tail);
      })();
    },
  };
  return { deps: () => ({ provider, model: 'slow', id: 'test/slow' }), calls: () => calls };
}

const previewTitle =
  'gone after the answer replaced its streamed preview, before the message was marked answered: the restart edits ' +
  'that preview again, nothing is posted twice';
test(previewTitle, async () => {
  const state = createMemoryState();
  const adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000, edit: true }));
  let go!: () => void;
  const slow = slowModel('Par', 'is.', new Promise<void>((r) => (go = r)));
  const first = watched(createMemoryStore({ state }), 'finish');
  const b = boot({ model: new Model(), state, adapter, store: first.store, resolveModel: slow.deps });
  await b.gw.start();
  await adapter.say('capital of France?');
  await until(() => adapter.texts().length === 1, 'the preview in the chat');
  const previewId = adapter.posted[0]!.messageId;
  await until(() => first.previews.includes(previewId), "the preview's id is journaled");
  go();
  await until(() => first.writes.includes('finish'), "the message's answered record is written");
  assert.deepEqual(adapter.texts(), ['Paris.'], 'the preview became the answer');
  assert.deepEqual(first.writes, ['finish'], 'no outbox entry is written');
  // Gone: the restart runs the message again, from the history, into the journaled preview.
  const second = boot({ model: new Model(), state, adapter, resolveModel: slow.deps });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['Paris.'], 'one message in the chat');
  assert.equal(slow.calls(), 1, 'the model was called once');
  assert.deepEqual(await second.store.delivery.pending(), []);
  await second.gw.stop();
});

const unjournaledTitle =
  'a streamed preview whose id is not journaled yet when the answer is ready: the answer goes through an outbox ' +
  'entry, written before it replaces the preview';
test(unjournaledTitle, async () => {
  const state = createMemoryState();
  const adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000, edit: true }));
  let go!: () => void;
  const slow = slowModel('Par', 'is.', new Promise<void>((r) => (go = r)));
  const w = watched(createMemoryStore({ state }), 'notePreview');
  const b = boot({ model: new Model(), state, adapter, store: w.store, resolveModel: slow.deps });
  await b.gw.start();
  await adapter.say('capital of France?');
  await until(() => adapter.texts().length === 1, 'the preview in the chat');
  go();
  await until(() => w.writes.includes('finishOutbox'), "the answer's end is written");
  assert.deepEqual(w.writes, ['putOutbox', 'finishOutbox']);
  assert.deepEqual(adapter.texts(), ['Paris.'], 'the preview became the answer');
  assert.deepEqual(await b.store.delivery.pending(), []);
});
