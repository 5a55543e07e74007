// Start and stop on their own, over fakes for resume and replicas: a single process queues its
// unfinished work before any adapter starts and lifts the barrier once they are up; a replica
// watches its leases and sweeps instead; both start the same adapters with the same command menu,
// leave a deferred adapter to the caller, and stop what they started.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import {
  createCommandRegistry,
  GATEWAY_COMMANDS,
  type GatewayCommandContext,
} from '../../src/gateway/commands/index.ts';
import { createGatewayContext, type GatewayOptions } from '../../src/gateway/gateway-context.ts';
import { createLifecycle } from '../../src/gateway/lifecycle.ts';
import { waitUntil } from '../helpers.ts';
import { FakeAdapter, FakeAgent, MemoryGatewayStore, memoryLeases } from './fakes.ts';

function harness(over: Partial<GatewayOptions> = {}) {
  const events: string[] = [];
  const main = new FakeAdapter('telegram');
  const deferred = new FakeAdapter('discord');
  for (const a of [main, deferred]) {
    const start = a.start.bind(a);
    a.start = async (sink) => {
      events.push(`start ${a.platform}`);
      await start(sink);
    };
  }
  const ctx = createGatewayContext({
    config: configSchema.parse({}),
    adapters: [main, deferred],
    agent: new FakeAgent(),
    store: new MemoryGatewayStore(),
    deferStart: (a) => a === deferred,
    ...over,
  });
  const commands = createCommandRegistry<GatewayCommandContext>(GATEWAY_COMMANDS);
  const life = createLifecycle(ctx, {
    commands,
    handle: async () => undefined,
    resume: {
      resume: () => assert.fail('not called by start'),
      redrive: async () => void events.push('redrive'),
      queueUnfinished: async () => {
        events.push('queue unfinished');
        return () => events.push('adapters up');
      },
    },
    replicas: {
      pump: async () => assert.fail('not called by start'),
      handOver: async () => assert.fail('not called by start'),
      sweep: async () => void events.push('sweep'),
      watch: () => void events.push('watch'),
      answers: () => assert.fail('not called by start'),
    },
  });
  return { events, main, deferred, life, menu: commands.menu() };
}

test('a single process queues its unfinished work first, then starts the adapters with the menu', async () => {
  const h = harness({ redriveMs: 5 });
  await h.life.start();
  assert.deepEqual(h.events.slice(0, 3), ['queue unfinished', 'start telegram', 'adapters up']);
  assert.deepEqual(h.main.menus, [h.menu]);
  assert.deepEqual(h.deferred.menus, [], 'a deferred adapter is left to the caller');
  await waitUntil(() => h.events.includes('redrive'), 'the outbox re-driven while running', 5000);
  await h.life.stop();
  assert.equal(h.main.sink, undefined, 'stopped');
  const after = h.events.length;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(h.events.length, after, 'no re-drive after stop');
});

test('a replica watches its leases, starts the same adapters and menu, then sweeps', async () => {
  const h = harness({ cluster: { leases: memoryLeases(), holder: 'a', sweepMs: 10_000 } });
  await h.life.start();
  assert.deepEqual(h.events, ['watch', 'start telegram', 'sweep']);
  assert.deepEqual(h.main.menus, [h.menu]);
  await h.life.stop();
});
