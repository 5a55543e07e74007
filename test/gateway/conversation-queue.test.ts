// The per-conversation queue on its own, with fakes for the turn: one conversation's work runs one
// piece at a time in the order queued, while another conversation's runs beside it; each turn
// takes the first queued message in the platform's order; an id queued twice runs once; a turn
// the process no longer owns is skipped; and the conversation's state is dropped (onIdle) when
// its queue empties.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { ConversationState } from '../../src/gateway/commands/index.ts';
import { createConversationQueue, firstInOrder, type QueuedRun } from '../../src/gateway/conversation-queue.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';
import { waitUntil } from '../helpers.ts';
import { inboundMessage } from './fakes.ts';

const policy = resolvePolicy(configSchema.parse({ channels: { telegram: { access: 'full' } } }), inboundMessage('x'));

/** A queue whose turns are recorded and held until released. */
function harness(o: { mayRun?: (key: string) => boolean } = {}) {
  const conversations = new Map<string, ConversationState>();
  const inflight = new Set<Promise<unknown>>();
  const started: string[] = [];
  const idle: string[] = [];
  const release = new Map<string, () => void>();
  const queue = createConversationQueue({
    active: new Set(),
    conversations,
    stateOf: (key) => {
      let s = conversations.get(key);
      if (!s) conversations.set(key, (s = { tail: Promise.resolve(), queued: 0 }));
      return s;
    },
    metrics: createMetrics(),
    track: (p) => {
      inflight.add(p);
      void p.finally(() => inflight.delete(p)).catch(() => undefined);
      return p;
    },
    log: silentLogger,
    mayRun: o.mayRun ?? (() => true),
    onIdle: (key) => idle.push(key),
    runTurn: (run: QueuedRun, _state, begin) => {
      begin();
      started.push(run.msg.text);
      return new Promise<undefined>((r) => release.set(run.msg.text, () => r(undefined)));
    },
  });
  const settle = async () => {
    while (inflight.size) await Promise.allSettled([...inflight]);
  };
  return { queue, conversations, started, idle, release, settle };
}

const msg = (text: string, over: Partial<InboundMessage> = {}) =>
  inboundMessage(text, { id: `telegram:${text}`, ...over });

test('one conversation runs one turn at a time, in order; another conversation runs beside it', async () => {
  const h = harness();
  h.queue.enqueue(msg('a1'), policy);
  h.queue.enqueue(msg('a2'), policy);
  h.queue.enqueue(msg('b1', { chatId: '200', conversationKey: 'telegram:200' }), policy);
  await waitUntil(() => h.started.length === 2, 'the first turn of each conversation', 5000);
  assert.deepEqual(h.started, ['a1', 'b1']);
  assert.equal(h.conversations.get('telegram:100')?.queued, 2);
  h.release.get('a1')!();
  await waitUntil(() => h.started.length === 3, 'the second turn', 5000);
  assert.equal(h.started[2], 'a2');
  h.release.get('a2')!();
  h.release.get('b1')!();
  await h.settle();
  assert.deepEqual(h.idle.sort(), ['telegram:100', 'telegram:200']);
  assert.equal(h.conversations.size, 0, 'no state kept for a conversation with nothing queued');
});

test("each turn runs the first queued message in the platform's order, not the first queued", async () => {
  const h = harness();
  h.queue.enqueue(msg('first', { order: '10' }), policy);
  h.queue.enqueue(msg('third', { order: '30' }), policy);
  h.queue.enqueue(msg('second', { order: '20' }), policy);
  await waitUntil(() => h.started.length === 1, 'the first turn', 5000);
  for (const t of ['first', 'second', 'third']) {
    await waitUntil(() => h.release.has(t), t, 5000);
    h.release.get(t)!();
  }
  await h.settle();
  assert.deepEqual(h.started, ['first', 'second', 'third']);
  assert.deepEqual(
    firstInOrder([{ msg: msg('x', { order: '9' }) }, { msg: msg('y') }, { msg: msg('z', { order: '10' }) }]).msg.text,
    'x',
    'a message without an order keeps its queue place',
  );
});

test('a message queued twice runs once; a turn of a conversation no longer ours is skipped', async () => {
  const h = harness();
  h.queue.enqueue(msg('once'), policy);
  h.queue.enqueue(msg('once'), policy);
  await waitUntil(() => h.release.has('once'), 'the turn', 5000);
  h.release.get('once')!();
  await h.settle();
  assert.deepEqual(h.started, ['once']);

  const lost = harness({ mayRun: () => false });
  lost.queue.enqueue(msg('elsewhere'), policy);
  await lost.settle();
  assert.deepEqual(lost.started, [], 'another replica answers it');
  assert.deepEqual(lost.idle, ['telegram:100']);
});

test('chain runs any job in the conversation order, and an id already queued is not queued again', async () => {
  const h = harness();
  const ran: string[] = [];
  h.queue.enqueue(msg('turn'), policy);
  h.queue.chain('telegram:100', 'job', async () => void ran.push('job'), 'job failed');
  h.queue.chain('telegram:100', 'job', async () => void ran.push('again'), 'job failed');
  await waitUntil(() => h.release.has('turn'), 'the turn', 5000);
  assert.deepEqual(ran, [], 'the job waits behind the turn');
  h.release.get('turn')!();
  await h.settle();
  assert.deepEqual(ran, ['job']);
});
