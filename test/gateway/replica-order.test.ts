// Replicas: a conversation whose lease this replica lost while a run was under way, and which it
// takes back while that run is still being stopped, is answered in the order its messages came:
// the stopped message first, then the later ones (none is answered before an earlier one). A
// replica that cannot renew its lease stops answering before another replica may take over.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { LeaseStore } from '../../src/store/types.ts';
import { FakeAdapter, FakeAgent, fakeCapabilities, MemoryGatewayStore, memoryLeases, until } from './fakes.ts';

const KEY = 'telegram:100';

/** One replica whose first run of 'one' blocks, and once stopped ends only at `letFirstEnd`. */
function replica() {
  const store = new MemoryGatewayStore();
  const leases = memoryLeases();
  store.leases = leases;
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

/**
 * Two replicas on one store, the second sweeping every 10 ms; `cut()` makes the first one's calls to
 * the lease table time out from then on (its connection stalled), while the other's go through.
 */
function twoReplicas(first: FakeAgent) {
  const store = new MemoryGatewayStore();
  const leases = memoryLeases();
  store.leases = leases;
  let cut = false;
  const stalled = () => Promise.reject(new Error('connection timed out'));
  const firstLeases: LeaseStore = {
    acquire: (...a) => (cut ? stalled() : leases.acquire(...a)),
    release: (...a) => (cut ? stalled() : leases.release(...a)),
  };
  // The first replica's outbox writes, held while its database calls stall (then they land).
  let held: Promise<void> | undefined;
  const firstStore = new Proxy(store, {
    get: (s, k) =>
      k === 'putOutbox'
        ? async (...a: Parameters<typeof store.putOutbox>) => {
            await held;
            return s.putOutbox(...a);
          }
        : Reflect.get(s, k, s),
  });
  const holdPuts = (): (() => void) => {
    let release!: () => void;
    held = new Promise<void>((r) => (release = r));
    return release;
  };
  const capabilities = fakeCapabilities({ maxTextLength: 4000 });
  const adapters = [new FakeAdapter('telegram', capabilities), new FakeAdapter('telegram', capabilities)];
  const config = configSchema.parse({ channels: {} });
  const gws = [
    createGateway({
      config,
      adapters: [adapters[0]!],
      agent: first,
      store: firstStore,
      cluster: { leases: firstLeases, holder: 'replica-1', ttlMs: 200, sweepMs: 60_000 },
    }),
    createGateway({
      config,
      adapters: [adapters[1]!],
      agent: new FakeAgent(),
      store,
      cluster: { leases, holder: 'replica-2', ttlMs: 200, sweepMs: 10 },
    }),
  ];
  return { store, adapters, gws, cut: () => (cut = true), holdPuts };
}

test('replicas: a replica whose lease renewals fail stops its run and queue before another answers', async (t) => {
  let letGo!: () => void;
  const held = new Promise<void>((r) => (letGo = r));
  let stopped = false;
  const first = new FakeAgent(async (req) => {
    if (req.message.text !== 'one') return `echo: ${req.message.text}`;
    // Runs until stopped, or until let go (then its answer goes out).
    await Promise.race([held, new Promise<void>((r) => req.signal.addEventListener('abort', () => r()))]);
    stopped = req.signal.aborted;
    if (stopped) throw req.signal.reason;
    return 'echo: one';
  });
  const { store, adapters, gws, cut } = twoReplicas(first);
  t.after(async () => {
    letGo();
    for (const gw of gws) await gw.stop();
  });
  await gws[0]!.start();
  await adapters[0]!.say('one');
  await until(() => first.seen.length === 1, 'the run of "one" on the first replica');
  await adapters[0]!.say('two'); // queued there behind it
  await until(() => store.journal.size === 2, '"two" accepted');
  await gws[1]!.start(); // the second replica sweeps; the conversation is the first one's
  cut();
  await until(() => adapters[1]!.posted.length >= 2, 'the second replica answering once the lease ran out');
  // Its expiry timer may fire after the other replica took over (one event loop runs both here):
  // waited for, not raced with the release below.
  await until(() => stopped, 'the run on the replica that could not renew stopped');
  letGo(); // the first replica's run, if still going, ends now with its answer
  for (const gw of gws) await gw.idle();
  assert.deepEqual(
    adapters.flatMap((a) => a.posted.map((p) => p.text)),
    ['echo: one', 'echo: two'],
    'each answered once, in order, by the replica that holds the lease',
  );
  assert.ok(stopped, 'the run on the replica that could not renew was stopped');
  assert.equal(store.journal.size, 0, 'nothing left unanswered');
});

/**
 * The first replica's first platform call for 'one' is told to wait 1.5 s (a 429) while its lease
 * calls stall, so the conversation passes to the second replica, which answers; resolves once both
 * replicas are idle (the wait over: the call handed back, or made). `release` ends the first run.
 */
async function waitingOutA429(t: TestContext, first: FakeAgent, what: string, release?: () => void) {
  const replicas = twoReplicas(first);
  const { adapters, gws, cut } = replicas;
  // The platform tells the first replica to wait, longer than its lease can outlive the stalled calls.
  adapters[0]!.rateLimits = 1;
  adapters[0]!.rateLimitMs = 1500;
  t.after(async () => {
    release?.();
    for (const gw of gws) await gw.stop();
  });
  await gws[0]!.start();
  await adapters[0]!.say('one');
  await until(() => adapters[0]!.calls.length === 1, `${what} tried once, told to wait`);
  // Cut at once, so the lease surely runs out before the wait does, however long the second start takes.
  cut();
  await gws[1]!.start();
  await until(() => adapters[1]!.posted.length >= 1, 'the second replica answering once the lease ran out');
  await gws[0]!.idle(); // the first replica's wait ends: its call is handed back, or made
  await gws[1]!.idle();
  return replicas;
}

test('replicas: an answer waiting out a 429 is not sent once its conversation passed to another replica', async (t) => {
  const { store, adapters } = await waitingOutA429(t, new FakeAgent(), 'the answer');
  assert.deepEqual(
    adapters.flatMap((a) => a.posted.map((p) => p.text)),
    ['echo: one'],
    'answered once, by the replica that holds the lease',
  );
  assert.equal(adapters[0]!.calls.length, 1, 'no second try on the replica that lost the conversation');
  assert.equal(store.journal.size, 0, 'nothing left unanswered');
});

test('replicas: an answer written after its conversation passed to another replica is never sent', async (t) => {
  let letGo!: () => void;
  const ran = new Promise<void>((r) => (letGo = r));
  const first = new FakeAgent(async () => {
    await ran;
    return 'the first replica’s answer';
  });
  const { store, adapters, gws, cut, holdPuts } = twoReplicas(first);
  let landPuts = (): void => undefined;
  t.after(async () => {
    letGo();
    landPuts();
    for (const gw of gws) await gw.stop();
  });
  await gws[0]!.start();
  await adapters[0]!.say('one');
  await until(() => first.seen.length === 1, 'the run of "one" on the first replica');
  // Its run ends while its database calls stall: the answer's entry is on its way to the database,
  // and its lease calls time out, so the conversation passes to the second replica, which answers.
  landPuts = holdPuts();
  letGo();
  cut();
  await gws[1]!.start();
  const texts = () => adapters.flatMap((a) => a.posted.map((p) => p.text));
  await until(() => texts().includes('echo: one'), 'the second replica answering once the lease ran out');
  // The stalled write lands now: written after the conversation passed on, or refused by the lease.
  landPuts();
  await gws[0]!.idle();
  await gws[1]!.idle();
  assert.deepEqual(texts(), ['echo: one'], 'answered once, by the replica that holds the lease');
  assert.equal(store.outbox.size, 0, 'no entry left for a sweep to send a second time');
  assert.equal(store.journal.size, 0, 'nothing left unanswered');
});

test('replicas: a preview waiting out a 429 is not sent once its conversation passed to another replica', async (t) => {
  let letGo!: () => void;
  const held = new Promise<void>((r) => (letGo = r));
  const first = new FakeAgent(async (req) => {
    req.onEvent({ type: 'text-delta', text: 'a partial answer' });
    await Promise.race([held, new Promise<void>((r) => req.signal.addEventListener('abort', () => r()))]);
    if (req.signal.aborted) throw req.signal.reason;
    return 'the first replica’s answer';
  });
  const { adapters } = await waitingOutA429(t, first, 'the preview', letGo);
  assert.deepEqual(
    adapters.flatMap((a) => a.posted.map((p) => p.text)),
    ['echo: one'],
    'no preview from the replica that lost the conversation',
  );
  assert.equal(adapters[0]!.calls.length, 1, 'no second try on the replica that lost the conversation');
});
