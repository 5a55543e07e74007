// Dispatch on its own, over the real context with a fake platform, agent and store, and a fake
// conversation queue: plain text (an unknown `/foo` included) goes to the queue; a registered
// command is answered at once with its context, after the access rule; a stranger is told once,
// and a refused message nobody is told about is only marked answered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import {
  createCommandRegistry,
  GATEWAY_COMMANDS,
  type GatewayCommandContext,
} from '../../src/gateway/commands/index.ts';
import type { ConversationQueue } from '../../src/gateway/conversation-queue.ts';
import { createDispatch } from '../../src/gateway/dispatch.ts';
import { createGatewayContext } from '../../src/gateway/gateway-context.ts';
import type { ChatCommand } from '../../src/runner/chat-command.ts';
import { admit, resolvePolicy } from '../../src/runner/policy.ts';
import { FakeAdapter, FakeAgent, fakeCapabilities, inboundMessage, MemoryGatewayStore } from './fakes.ts';

function harness(channel: Record<string, unknown>, admins: string[] = []) {
  const adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000 }));
  const store = new MemoryGatewayStore();
  const config = configSchema.parse({ admins, channels: { telegram: channel } });
  const ctx = createGatewayContext({ config, adapters: [adapter], agent: new FakeAgent(), store });
  const ran: { name: string; arg?: string; admin: boolean }[] = [];
  const wipe: ChatCommand = {
    name: 'wipe',
    description: 'deletes things',
    args: { name: 'what', description: 'the thing' },
    access: 'write',
    run: async (c) => {
      ran.push({ name: 'wipe', ...(c.arg ? { arg: c.arg } : {}), admin: c.caller.admin });
      await c.reply(`wiped ${c.arg ?? 'nothing'}`);
    },
  };
  const enqueued: string[] = [];
  const queue: ConversationQueue = {
    enqueue: (msg) => void enqueued.push(msg.text),
    chain: () => assert.fail('nothing here waits behind a turn'),
  };
  const { dispatch } = createDispatch(ctx, {
    commands: createCommandRegistry<GatewayCommandContext>([...GATEWAY_COMMANDS, wipe]),
    queue,
    pump: () => assert.fail('no replicas here'),
    handOver: () => assert.fail('no replicas here'),
  });
  const send = async (text: string, over: Partial<InboundMessage> = {}) => {
    const msg = inboundMessage(text, { id: `telegram:${text}:${over.userId ?? '42'}`, ...over });
    await store.accept(msg);
    const policy = resolvePolicy(config, msg);
    dispatch(msg, policy, admit(policy, msg, { replyToStrangers: true }));
    while (ctx.inflight.size) await Promise.allSettled([...ctx.inflight]);
  };
  return { adapter, store, ran, enqueued, send };
}

test('plain text and unknown commands are queued; a registered command answers at once with its argument', async () => {
  const h = harness({ access: 'full' });
  await h.send('hello');
  await h.send('/foo bar');
  await h.send('/wipe the logs');
  assert.deepEqual(h.enqueued, ['hello', '/foo bar']);
  assert.deepEqual(h.ran, [{ name: 'wipe', arg: 'the logs', admin: false }]);
  assert.deepEqual(h.adapter.texts(), ['wiped the logs']);
  assert.equal((await h.store.pending()).length, 2, 'the command is answered; the queued texts wait for their turn');
});

test('a write command in a read-only group is refused in one line unless the caller is an admin', async () => {
  const group = { chatId: '-5', conversationKey: 'telegram:-5', isDirect: false, mentionsBot: true };
  const h = harness({ access: 'read-only' }, ['7']);
  await h.send('/wipe it', group);
  assert.deepEqual(h.ran, []);
  assert.match(h.adapter.texts('-5')[0]!, /^Sorry, \/wipe is not allowed for you here: .*access here is read-only/);
  await h.send('/wipe it', { ...group, userId: '7' });
  assert.deepEqual(h.ran, [{ name: 'wipe', arg: 'it', admin: true }]);
  await h.send('/help', group);
  assert.doesNotMatch(h.adapter.texts('-5').at(-1)!, /\/wipe|\/reset/, '/help leaves out what the caller may not run');
  assert.match(h.adapter.texts('-5').at(-1)!, /\/whoami: /);
});

test('a stranger is told once, never queued; a refused message without a reply is only marked answered', async () => {
  const told = harness({ access: 'full', allowFrom: ['1'] });
  await told.send('hi there');
  assert.deepEqual(told.enqueued, []);
  assert.match(told.adapter.texts()[0]!, /not set up to talk with you here.*telegram user id 42/);
  assert.deepEqual(await told.store.pending(), []);

  const silent = harness({ access: 'full', allowFrom: ['1'] });
  await silent.send('/help', { isDirect: false, chatId: '-5', conversationKey: 'telegram:-5' });
  assert.deepEqual(silent.adapter.posted, []);
  assert.deepEqual(await silent.store.pending(), []);
});
