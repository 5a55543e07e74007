// Replicas on one store: a reply made outside a conversation's run queue (a stranger's refusal, a
// command's answer) is sent once, even while other replicas sweep for unanswered work and find
// its message still unanswered until that reply is delivered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { FakeAdapter, FakeAgent, fakeCapabilities, MemoryGatewayStore, memoryLeases, until } from './fakes.ts';

/** Two replicas on one store and one lease table, sweeping often; the first one's sends wait for `release`. */
function twoReplicas() {
  const store = new MemoryGatewayStore();
  let reads = 0;
  const pending = store.pending.bind(store);
  // Each read is a round trip, as to the shared database (a read never answers within the same tick).
  store.pending = async () => {
    reads++;
    await new Promise((r) => setImmediate(r));
    return pending();
  };
  const leases = memoryLeases();
  const config = configSchema.parse({ channels: { telegram: { allowFrom: ['7'] } } });
  const capabilities = fakeCapabilities({ maxTextLength: 4000 });
  const adapters = [new FakeAdapter('telegram', capabilities), new FakeAdapter('telegram', capabilities)];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const send = adapters[0]!.send.bind(adapters[0]);
  adapters[0]!.send = async (...args) => {
    await held;
    return send(...args);
  };
  const gws = adapters.map((adapter, i) =>
    createGateway({
      config,
      adapters: [adapter],
      agent: new FakeAgent(),
      store,
      cluster: { leases, holder: `replica-${i}`, sweepMs: 10 },
    }),
  );
  return { gws, adapters, release, reads: () => reads };
}

for (const [what, text, userId, expected] of [
  ['a stranger’s refusal', 'hello', '42', /not set up to talk with you/],
  ['a command’s answer', '/help', '7', /\/status: /],
] as const)
  test(`replicas: ${what} is sent once while the others sweep`, async (t) => {
    const { gws, adapters, release, reads } = twoReplicas();
    t.after(async () => {
      for (const gw of gws) await gw.stop();
    });
    for (const gw of gws) await gw.start();
    await adapters[0]!.say(text, { userId });
    // Several sweeps of both replicas pass while the first replica's reply is still on its way.
    const from = reads();
    await until(() => reads() >= from + 8, 'sweeps while the reply is held');
    release();
    await until(() => adapters.some((a) => a.posted.length > 0), 'the reply');
    const mark = reads();
    await until(() => reads() >= mark + 8, 'sweeps after the reply');
    for (const gw of gws) await gw.idle();
    const replies = adapters.flatMap((a) => a.posted.map((p) => p.text));
    assert.equal(replies.length, 1, `one reply, not ${JSON.stringify(replies)}`);
    assert.match(replies[0]!, expected);
  });
