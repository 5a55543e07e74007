// A daily budget set on a channel (`budget.conversationUsdPerDay`) covers all of its threads: each
// thread is its own conversation, but what they spend counts together, so a second thread is
// refused once the first spent the channel's budget. Slack threads, Discord threads and Telegram
// forum topics alike, through the gateway and the real runner.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundMessage, Platform } from '../../src/adapters/index.ts';
import type { AgentDeps } from '../../src/agent/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { noSandbox, noWasm } from '../agent/loop/helpers.ts';
import { reply, scriptedModel } from '../agent/loop/scripted.ts';
import { tempDir } from '../helpers.ts';
import { FakeAdapter, fakeCapabilities } from './fakes.ts';

/** Per platform: where the channel's budget is set, and a message in one of its threads. */
const PLATFORMS: {
  platform: Platform;
  channel: Record<string, unknown>;
  inThread: (thread: string) => Partial<InboundMessage>;
}[] = [
  {
    platform: 'slack',
    channel: { channels: { C1: { budget: { conversationUsdPerDay: 1 } } } },
    inThread: (ts) => ({ chatId: 'C1', threadId: ts, conversationKey: `slack:T1:C1:${ts}` }),
  },
  {
    platform: 'discord',
    channel: { channels: { '400': { budget: { conversationUsdPerDay: 1 } } } },
    inThread: (id) => ({ chatId: '400', threadId: id, conversationKey: `discord:300:400:${id}` }),
  },
  {
    platform: 'telegram',
    channel: { chats: { '-100': { budget: { conversationUsdPerDay: 1 } } } },
    inThread: (topic) => ({ chatId: '-100', threadId: topic, conversationKey: `telegram:-100:${topic}` }),
  },
];

for (const p of PLATFORMS)
  test(`${p.platform}: a channel's daily budget counts all its threads; the second thread is refused`, async (t) => {
    const store = createMemoryStore();
    const provider = scriptedModel(t, [reply('First thread answered.')], 'test');
    const deps: AgentDeps = {
      resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
      registry: noWasm,
      sandbox: noSandbox,
      costOf: () => 1,
    };
    const adapter = new FakeAdapter(p.platform, fakeCapabilities({ maxTextLength: 4000 }));
    const gw = createGateway({
      config: configSchema.parse({
        channels: { [p.platform]: { access: 'full', requireMention: false, ...p.channel } },
      }),
      adapters: [adapter],
      agent: createAgentRunner({
        store,
        deps,
        workspacesDir: tempDir(),
        sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
      }),
      store: store.delivery,
      outbound: { backoffMs: 5 },
    });
    await gw.start();
    t.after(() => gw.stop());
    const say = async (text: string, thread: string) => {
      await adapter.say(text, { ...p.inThread(thread), isDirect: false, mentionsBot: true });
      await gw.idle();
      return adapter.posted.at(-1)!.text;
    };
    assert.equal(await say('hello from the first thread', '11'), 'First thread answered.');
    // No model call for the second thread: the channel spent its $1.00 in the first.
    assert.match(
      await say('hello from the second thread', '22'),
      /Stopped: this channel \(all its threads\) has spent \$1\.00 today, its daily budget is \$1\.00/,
    );
    assert.equal(provider.requests.length, 1);
    assert.match(await say('/usage', '22'), /Conversation budget: \$0\.00 left of \$1\.00 today/);
  });
