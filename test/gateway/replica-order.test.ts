// Replicas: a conversation whose lease this replica lost while a run was under way, and which it
// takes back while that run is still being stopped, is answered in the order its messages came:
// the stopped message first, then the later ones (none is answered before an earlier one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { FakeAdapter, FakeAgent, MemoryGatewayStore, memoryLeases, until } from './fakes.ts';

const KEY = 'telegram:100';

/** One replica whose first run of 'one' blocks, and once stopped ends only at `letFirstEnd`. */
function replica() {
  const store = new MemoryGatewayStore();
  const leases = memoryLeases();
  const adapter = new FakeAdapter();
  let letFirstEnd!: () => void;
  const firstEnds = new Promise<void>((r) => (letFirstEnd = r));
  let stopped = false;
  let blocked = false;
  const agent = new FakeAgent(async (req) => {
    if (req.message.text !== 'one' || blocked) return `echo: ${req.message.text}`;
    blocked = true;
    await new Promise<void>((r) => req.signal.addEventListener('abort', () => r()));
    stopped = true;
    await firstEnds;
    throw req.signal.reason;
  });
  const gw = createGateway({
    config: configSchema.parse({ channels: {} }),
    adapters: [adapter],
    agent,
    store,
    cluster: { leases, holder: 'replica-1', ttlMs: 60, sweepMs: 60_000 },
  });
  return { gw, store, leases, adapter, agent, letFirstEnd, stopped: () => stopped };
}

/** The lease runs out while the database is away; another replica takes it, then gives it up unanswered (stopped). */
async function loseAndFree(r: ReturnType<typeof replica>): Promise<void> {
  r.leases.down = true;
  await until(() => r.leases.leaders().length === 0, 'the lease running out');
  r.leases.down = false;
  assert.notEqual(await r.leases.acquire(`conv:${KEY}`, 'replica-2', 60_000), undefined);
  await until(r.stopped, 'the run of "one" stopped when the lease was found lost');
  await r.leases.release(`conv:${KEY}`, 'replica-2');
}

for (const queuedBefore of [false, true])
  test(`replicas: a conversation taken back while its lost run is stopping is answered in order${
    queuedBefore ? ' (a message queued before the loss)' : ''
  }`, async (t) => {
    const r = replica();
    t.after(() => r.gw.stop());
    await r.gw.start();
    await r.adapter.say('one');
    await until(() => r.agent.seen.length === 1, 'the run of "one"');
    const said = ['one'];
    if (queuedBefore) {
      await r.adapter.say('two');
      said.push('two');
      await until(() => r.store.journal.size === 2, '"two" accepted');
    }
    await loseAndFree(r);
    // A new message: this replica takes the conversation back while "one" is still being stopped.
    assert.deepEqual(r.leases.leaders(), [], 'no replica holds the conversation');
    const last = queuedBefore ? 'three' : 'two';
    await r.adapter.say(last);
    said.push(last);
    // Seen between two polls: the store and leases here answer within the tick, so what the
    // replica does once it holds the lease (read the unanswered work, queue it) is done by then.
    await until(() => r.leases.leaders().includes('replica-1'), 'the conversation taken back');
    r.letFirstEnd();
    await until(() => r.adapter.posted.length >= said.length, 'every message answered');
    await r.gw.idle();
    assert.deepEqual(
      r.adapter.posted.map((p) => p.text),
      said.map((s) => `echo: ${s}`),
      'answered once each, in the order they came',
    );
    assert.equal(r.store.journal.size, 0, 'nothing left unanswered');
  });
