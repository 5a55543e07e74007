// Intake on its own, over the real context with a fake platform and store, and a fake dispatch:
// a message delivered twice at once is saved and dispatched once; a message policy ignores is not
// saved; a reply in a thread the bot answered needs no mention; and a message the platform
// redelivers (a webhook's) is refused while the store fails, together with its conversation's
// later messages, until it is saved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import {
  createCommandRegistry,
  GATEWAY_COMMANDS,
  type GatewayCommandContext,
} from '../../src/gateway/commands/index.ts';
import { createGatewayContext } from '../../src/gateway/gateway-context.ts';
import { createIntake } from '../../src/gateway/intake.ts';
import { FakeAdapter, FakeAgent, fakeCapabilities, inboundMessage, MemoryGatewayStore } from './fakes.ts';

function harness(channel: Record<string, unknown> = { access: 'full' }) {
  const adapter = new FakeAdapter('telegram', fakeCapabilities({ maxTextLength: 4000, followThreads: true }));
  const store = new MemoryGatewayStore();
  const config = configSchema.parse({ channels: { telegram: channel } });
  const ctx = createGatewayContext({
    config,
    adapters: [adapter],
    agent: new FakeAgent(),
    store,
    outbound: { backoffMs: 5 },
  });
  // What dispatch would answer: a message dispatched while its save is in flight counts once that
  // save says it is new (a duplicate's run, or that of a message not saved, delivers nothing).
  const dispatched: InboundMessage[] = [];
  const handle = createIntake(ctx, {
    dispatch: (msg, _policy, _admission, _preview, _after, accepted) =>
      void (accepted
        ? accepted.then(
            (a) => a && dispatched.push(msg),
            () => undefined,
          )
        : dispatched.push(msg)),
    commands: createCommandRegistry<GatewayCommandContext>(GATEWAY_COMMANDS),
  });
  return { ctx, store, handle, dispatched };
}

test('a message delivered twice at once is saved and dispatched once, and counted as a duplicate', async () => {
  const h = harness();
  const msg = inboundMessage('hello', { id: 'telegram:evt:1' });
  await Promise.all([h.handle(msg), h.handle(structuredClone(msg))]);
  await h.handle(structuredClone(msg));
  assert.deepEqual(
    h.dispatched.map((m) => m.text),
    ['hello'],
  );
  assert.equal(h.store.journal.size, 1);
  assert.match(await h.ctx.metrics.render(), /duplicate\w*\{platform="telegram"\} 1/);
});

test('a group message without a mention is not saved; in a thread the bot answered it needs none', async () => {
  const h = harness({ access: 'full', requireMention: true });
  const group = { chatId: '-5', isDirect: false, threadId: '9', conversationKey: 'telegram:-5:9' };
  await h.handle(inboundMessage('chatter', { id: 'telegram:evt:1', ...group }));
  assert.equal(h.store.journal.size, 0);
  assert.equal(h.dispatched.length, 0);
  h.store.answeredKeys.add('telegram:-5:9');
  await h.handle(inboundMessage('and you?', { id: 'telegram:evt:2', ...group }));
  assert.equal(h.dispatched[0]?.mentionsBot, true);
});

test('a redelivered message the store failed to save holds back its conversation’s later ones', async () => {
  const h = harness();
  const accept = h.store.accept.bind(h.store);
  let failing = true;
  h.store.accept = async (m) => {
    if (failing) throw new Error('disk full');
    return accept(m);
  };
  const first = inboundMessage('first', { id: 'telegram:evt:1', order: '1' });
  const second = inboundMessage('second', { id: 'telegram:evt:2', order: '2' });
  await assert.rejects(h.handle(first, { redelivers: true }), /disk full/);
  failing = false;
  await assert.rejects(h.handle(second, { redelivers: true }), /not saved yet/);
  assert.equal(h.dispatched.length, 0);
  await h.handle(first, { redelivers: true });
  await h.handle(second, { redelivers: true });
  assert.deepEqual(
    h.dispatched.map((m) => m.text),
    ['first', 'second'],
  );
});
