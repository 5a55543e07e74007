// The gateway over a fake platform and a fake agent: what a user would notice about ordering,
// duplicates, streaming, long answers, rate limits, commands, policy and restarts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { FakeAdapter, FakeAgent, inboundMessage, MemoryGatewayStore, memoryLeases, sleep, until } from './fakes.ts';

const config = (channels: Record<string, unknown> = {}) => configSchema.parse({ channels });

function setup(
  opts: {
    agent?: FakeAgent;
    adapter?: FakeAdapter;
    store?: MemoryGatewayStore;
    channels?: Record<string, unknown>;
  } = {},
) {
  const adapter = opts.adapter ?? new FakeAdapter();
  const agent = opts.agent ?? new FakeAgent();
  const store = opts.store ?? new MemoryGatewayStore();
  const gw = createGateway({
    config: config(opts.channels),
    adapters: [adapter],
    agent,
    store,
    outbound: { backoffMs: 5 },
  });
  return { adapter, agent, store, gw };
}

test('each message gets one answer, in order within a conversation', async () => {
  const { adapter, gw } = setup({
    agent: new FakeAgent(async (r) => (await sleep(r.message.text === 'one' ? 30 : 1), `echo: ${r.message.text}`)),
  });
  await gw.start();
  for (const t of ['one', 'two', 'three']) await adapter.say(t);
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: one', 'echo: two', 'echo: three']);
  await gw.stop();
});

test('conversations run in parallel: a slow one does not hold up another', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const agent = new FakeAgent(async (r) => {
    if (r.message.chatId === 'slow') await gate;
    return `echo: ${r.message.text}`;
  });
  const { adapter, gw } = setup({ agent });
  await gw.start();
  await adapter.say('first', { chatId: 'slow', conversationKey: 'telegram:slow' });
  await adapter.say('second', { chatId: 'fast', conversationKey: 'telegram:fast' });
  await until(() => adapter.texts('fast').includes('echo: second'), 'the fast conversation answered');
  assert.deepEqual(adapter.texts('slow'), []);
  release();
  await gw.idle();
  assert.deepEqual(adapter.texts('slow'), ['echo: first']);
  await gw.stop();
});

test('a redelivered event is answered once', async () => {
  const { adapter, agent, gw } = setup();
  await gw.start();
  const msg = await adapter.say('hello');
  await adapter.sink!(msg);
  await adapter.sink!(structuredClone(msg));
  await gw.idle();
  assert.equal(agent.seen.length, 1);
  assert.deepEqual(adapter.texts(), ['echo: hello']);
  assert.equal(gw.metrics.duplicates.get({ platform: 'telegram' }), 2);
  await gw.stop();
});

test('a streamed answer is one message edited as text arrives, then the final text', async () => {
  const adapter = new FakeAdapter();
  // Each step waits until the preview shows it, as a user watching the chat would see it.
  const agent = new FakeAgent(async (r) => {
    r.onEvent({ type: 'status', text: 'reading notes.txt…' });
    await until(() => adapter.posted[0]?.text === '_reading notes.txt…_', 'the status preview');
    let text = '';
    for (const w of ['The ', 'answer ', 'is ', '42.']) {
      r.onEvent({ type: 'text-delta', text: w });
      text += w;
      await until(
        () => adapter.posted[0]?.text.startsWith(text.trim()) === true,
        `the preview showing ${JSON.stringify(text)}`,
      );
    }
    return 'The answer is 42.';
  });
  const { gw } = setup({ agent, adapter });
  await gw.start();
  await adapter.say('question');
  await gw.idle();
  assert.equal(adapter.posted.length, 1, `one message, got ${JSON.stringify(adapter.posted)}`);
  assert.equal(adapter.posted[0]!.text, 'The answer is 42.');
  assert.ok(adapter.posted[0]!.edits >= 2, `expected streamed edits, got ${adapter.posted[0]!.edits}`);
  await gw.stop();
});

test('a long answer is split at the platform limit without breaking a code block', async () => {
  const code = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
  const answer = `Here:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`;
  const { adapter, gw } = setup({ agent: new FakeAgent(() => answer) });
  await gw.start();
  await adapter.say('code please');
  await gw.idle();
  const texts = adapter.texts();
  assert.ok(texts.length >= 2, 'split into several messages');
  for (const t of texts) {
    assert.ok(t.length <= 100, `chunk of ${t.length} > 100`);
    assert.equal((t.match(/```/g) ?? []).length % 2, 0, `unbalanced fence in ${JSON.stringify(t)}`);
  }
  assert.equal(
    texts
      .join('\n')
      .replace(/```js\n|```\n?/g, '')
      .includes('line 11'),
    true,
  );
  await gw.stop();
});

test('a 429 storm delays replies but every one arrives, in order, once', async () => {
  const adapter = new FakeAdapter();
  adapter.rateLimits = 5;
  adapter.rateLimitMs = 20;
  const { gw } = setup({ adapter });
  await gw.start();
  for (let i = 0; i < 5; i++) await adapter.say(`m${i}`);
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: m0', 'echo: m1', 'echo: m2', 'echo: m3', 'echo: m4']);
  assert.equal(gw.metrics.rateLimited.get({ platform: 'telegram' }), 5);
  await gw.stop();
});

test('/stop cancels the running answer; /reset forgets the conversation', async () => {
  const agent = new FakeAgent(async (r) => {
    if (r.message.text === 'long job')
      await new Promise((_, rej) => r.signal.addEventListener('abort', () => rej(new Error('aborted'))));
    return 'ok';
  });
  const { adapter, gw, store } = setup({ agent });
  await gw.start();
  await adapter.say('long job');
  await until(() => agent.seen.length === 1, 'the run started');
  await adapter.say('/stop');
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['Stopped.']);
  assert.deepEqual(
    await store.pending(),
    [],
    'the /stop message and the stopped one are both answered: a restart runs neither',
  );
  await adapter.say('/reset');
  await gw.idle();
  assert.deepEqual(agent.resets, ['telegram:100']);
  assert.match(adapter.texts().at(-1)!, /forgot/);
  await gw.stop();
});

test('/whoami shows the access mode and the tools permitted here', async () => {
  const { adapter, gw } = setup({ channels: { telegram: { access: 'read-only' } } });
  await gw.start();
  await adapter.say('/whoami');
  await gw.idle();
  const reply = adapter.texts().join('\n');
  assert.match(reply, /Access: read-only/);
  assert.match(reply, /Tools: read, ls/);
  await gw.stop();
});

const userOutsideAllowfromTitle =
  'a user outside allowFrom gets a polite refusal, never the agent; silence in groups without a mention';
test(userOutsideAllowfromTitle, async () => {
  const { adapter, agent, gw } = setup({ channels: { telegram: { allowFrom: ['7'] } } });
  await gw.start();
  await adapter.say('let me in');
  await adapter.say('chatter', { isDirect: false, chatId: '-5', conversationKey: 'telegram:-5' });
  await gw.idle();
  assert.equal(agent.seen.length, 0);
  assert.match(adapter.texts()[0]!, /not set up to talk with you.*42/);
  assert.deepEqual(adapter.texts('-5'), []);
  await gw.stop();
});

test('in groups the bot answers only when addressed (requireMention)', async () => {
  const { adapter, agent, gw } = setup();
  await gw.start();
  const group = { isDirect: false, chatId: '-9', conversationKey: 'telegram:-9' };
  await adapter.say('not for you', { ...group, mentionsBot: false });
  await adapter.say('for you', { ...group, mentionsBot: true });
  await gw.idle();
  assert.deepEqual(
    agent.seen.map((r) => r.message.text),
    ['for you'],
  );
  await gw.stop();
});

test('restart mid-run: the accepted message is answered once after the restart', async () => {
  const store = new MemoryGatewayStore();
  const first = setup({ store, agent: new FakeAgent(() => new Promise(() => undefined)) });
  await first.gw.start();
  await first.adapter.say('survive me');
  await until(() => first.agent.seen.length === 1, 'the run started');
  // Crash: drop the gateway without letting it finish (the store keeps what was written).
  const adapter = new FakeAdapter();
  const second = setup({ store, adapter });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: survive me']);
  assert.equal((await store.pending()).length, 0);
  // A redelivery of the same event after the restart is still a duplicate.
  await adapter.sink!({ ...first.agent.seen[0]!.message });
  await second.gw.idle();
  assert.equal(adapter.texts().length, 1);
  await second.gw.stop();
});

test('restart mid-delivery: chunks with receipts are not sent again, the rest are', async () => {
  const store = new MemoryGatewayStore();
  const long = Array.from({ length: 6 }, (_, i) => `paragraph ${i} `.repeat(4).trim()).join('\n\n');
  const adapter1 = new FakeAdapter();
  let sends = 0;
  adapter1.beforeSend = () => {
    if (++sends === 3) throw new Error('power cut');
  };
  const first = setup({ store, adapter: adapter1, agent: new FakeAgent(() => long) });
  await first.gw.start();
  await first.adapter.say('write a lot');
  await first.gw.idle();
  const delivered = adapter1.texts();
  assert.equal(delivered.length, 2);
  const adapter2 = new FakeAdapter();
  const second = setup({
    store,
    adapter: adapter2,
    agent: new FakeAgent(() => assert.fail('must not run the agent again')),
  });
  await second.gw.start();
  await second.gw.idle();
  const all = [...delivered, ...adapter2.texts()];
  assert.equal(all.join('\n\n').replace(/\s+/g, ' '), long.replace(/\s+/g, ' '));
  assert.equal(new Set(all).size, all.length, 'no chunk twice');
  await second.gw.stop();
});

test('restart mid-delivery of a command reply: the reply is resumed, the command not run again', async () => {
  const store = new MemoryGatewayStore();
  const adapter1 = new FakeAdapter();
  adapter1.beforeSend = () => {
    throw new Error('power cut');
  };
  const first = setup({ store, adapter: adapter1 });
  await first.gw.start();
  await first.adapter.say('/help');
  await first.gw.idle();
  assert.deepEqual(adapter1.texts(), []);
  const adapter2 = new FakeAdapter();
  const second = setup({ store, adapter: adapter2 });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(second.agent.seen, [], 'the command message is not handed to the agent');
  const help = adapter2.texts().join('');
  assert.equal(help.split('/reset').length, 2, `the help text once: ${help}`);
  assert.deepEqual(await store.pending(), [], 'the command message is answered');
  await second.gw.stop();
});

test('post() delivers a scheduled text through the outbox and returns the platform ids', async () => {
  const { adapter, gw } = setup();
  await gw.start();
  const ids = await gw.post({ conversationKey: 'telegram:100', chatId: '100' }, 'digest: all quiet');
  assert.equal(ids.length, 1);
  assert.deepEqual(adapter.texts(), ['digest: all quiet']);
  await gw.stop();
});

const threadFollowUpsTitle =
  'thread follow-ups: where the platform follows threads, a reply in a thread the bot answered needs no mention';
test(threadFollowUpsTitle, async () => {
  const adapter = new FakeAdapter('slack', {
    edit: true,
    typing: false,
    threads: true,
    maxTextLength: 1000,
    editIntervalMs: 5,
    typingIntervalMs: 0,
    followThreads: true,
  });
  const store = new MemoryGatewayStore();
  const { agent, gw } = setup({ adapter, store });
  await gw.start();
  const thread = { isDirect: false, chatId: 'C1', threadId: '171.1', conversationKey: 'slack:T1:C1:171.1' };
  await adapter.say('before the bot spoke', { ...thread, mentionsBot: false });
  store.answeredKeys.add('slack:T1:C1:171.1');
  await adapter.say('follow-up', { ...thread, mentionsBot: false });
  await adapter.say('another thread', {
    ...thread,
    threadId: '999.9',
    conversationKey: 'slack:T1:C1:999.9',
    mentionsBot: false,
  });
  await gw.idle();
  assert.deepEqual(
    agent.seen.map((r) => r.message.text),
    ['follow-up'],
  );
  await gw.stop();
});

test('a short answer the preview already shows is not sent or edited again', async () => {
  const adapter = new FakeAdapter();
  const agent = new FakeAgent(async (r) => {
    r.onEvent({ type: 'text-delta', text: 'Hi there.' });
    await until(() => adapter.texts().includes('Hi there.'), 'the preview');
    return 'Hi there.';
  });
  const { gw } = setup({ agent, adapter });
  await gw.start();
  await adapter.say('hello');
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['Hi there.']);
  assert.deepEqual(adapter.calls, ['send:Hi there.']);
  await gw.stop();
});

test('typing shows while a slow answer is worked on; an instant answer sends none', async () => {
  let slow = false;
  const adapter = new FakeAdapter();
  // The slow answer is worked on until the user sees the bot typing (fails if that never happens).
  const agent = new FakeAgent(async () => {
    if (slow) await until(() => adapter.typings >= 1, 'a typing signal during the slow answer');
    return 'done';
  });
  const { gw } = setup({ agent, adapter });
  await gw.start();
  await adapter.say('quick');
  await gw.idle();
  assert.equal(adapter.typings, 0);
  slow = true;
  await adapter.say('slow');
  await gw.idle();
  assert.ok(adapter.typings >= 1, 'typing was shown for the slow answer');
  await gw.stop();
});

test('a message the platform hands over while the gateway starts is answered once', async () => {
  // The platform already holds a message for the bot: the adapter delivers it as it connects.
  class QueuedAtStart extends FakeAdapter {
    override async start(sink: Parameters<FakeAdapter['start']>[0]) {
      await super.start(sink);
      await this.say('waiting since yesterday');
    }
  }
  const adapter = new QueuedAtStart();
  const { agent, gw } = setup({ adapter });
  await gw.start();
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: waiting since yesterday']);
  assert.equal(agent.seen.length, 1);
  await gw.stop();
});

test('a clean restart with messages waiting at the platform answers each once', async () => {
  const store = new MemoryGatewayStore();
  const first = setup({ store });
  await first.gw.start();
  await first.adapter.say('before the restart');
  await first.gw.idle();
  await first.gw.stop();
  class Waiting extends FakeAdapter {
    override async start(sink: Parameters<FakeAdapter['start']>[0]) {
      await super.start(sink);
      for (const t of ['one', 'two']) await this.say(t, { id: `telegram:evt:after-${t}` });
    }
  }
  const adapter = new Waiting();
  const second = setup({ store, adapter });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['echo: one', 'echo: two']);
  assert.deepEqual(await store.pending(), []);
  await second.gw.stop();
});

test('a resumed answer is delivered whole before the next answer in its conversation', async () => {
  const store = new MemoryGatewayStore();
  const target = { conversationKey: 'telegram:100', chatId: '100' };
  await store.putOutbox({
    id: 'telegram:evt:old',
    conversationKey: target.conversationKey,
    target,
    chunks: ['old part 1', 'old part 2', 'old part 3'],
    receipts: [null, null, null],
    createdAt: new Date().toISOString(),
  });
  // A platform that takes a moment per message, so the next answer is ready mid-resume.
  class Slow extends FakeAdapter {
    override async send(t: Parameters<FakeAdapter['send']>[0], text: string) {
      await sleep(10);
      return super.send(t, text);
    }
  }
  const adapter = new Slow();
  const { gw } = setup({ store, adapter });
  await gw.start();
  await adapter.say('new question', { id: 'telegram:evt:new' });
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['old part 1', 'old part 2', 'old part 3', 'echo: new question']);
  await gw.stop();
});

test('a crash mid-stream leaves no stale preview: the run again edits the preview the user saw', async () => {
  const store = new MemoryGatewayStore();
  const adapter = new FakeAdapter(); // the platform outlives the gateway process
  const first = setup({
    store,
    adapter,
    agent: new FakeAgent(async (r) => {
      r.onEvent({ type: 'status', text: 'fetching the page…' });
      r.onEvent({ type: 'text-delta', text: 'Looking it up' });
      return new Promise<string>(() => undefined); // killed before it answers
    }),
  });
  await first.gw.start();
  await adapter.say('what is new?');
  await until(() => adapter.posted.length === 1 && store.previews.size === 1, 'the preview is shown and journaled');
  // Crash: a new gateway on the same store and platform.
  const agent = new FakeAgent(async (r) => {
    r.onEvent({ type: 'text-delta', text: 'Here is ' });
    await sleep(20);
    r.onEvent({ type: 'text-delta', text: 'what is new.' });
    return 'Here is what is new.';
  });
  const second = setup({ store, adapter, agent });
  await second.gw.start();
  await second.gw.idle();
  assert.deepEqual(adapter.texts(), ['Here is what is new.'], 'one message: the old preview, now showing the answer');
  assert.deepEqual(await store.pending(), []);
  await second.gw.stop();
});

test('at the restart, a command accepted before it is answered as a command, never handed to the agent', async () => {
  const store = new MemoryGatewayStore();
  const adapter = new FakeAdapter();
  // Accepted, then the process died before its reply reached the outbox.
  await store.accept({
    id: 'telegram:evt:cmd',
    platform: 'telegram',
    conversationKey: 'telegram:100',
    chatId: '100',
    userId: '42',
    userName: 'ada',
    text: '/help',
    isDirect: true,
    mentionsBot: false,
    attachments: [],
    receivedAt: new Date().toISOString(),
    raw: {},
  });
  const { agent, gw } = setup({ store, adapter });
  await gw.start();
  await gw.idle();
  assert.deepEqual(agent.seen, []);
  assert.match(adapter.texts().join('\n'), /\/reset/);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
});

test('at the restart, a message from a user no longer allowed is not run', async () => {
  const store = new MemoryGatewayStore();
  await store.accept({
    id: 'telegram:evt:old',
    platform: 'telegram',
    conversationKey: 'telegram:100',
    chatId: '100',
    userId: '42',
    userName: 'ada',
    text: 'delete everything',
    isDirect: true,
    mentionsBot: false,
    attachments: [],
    receivedAt: new Date().toISOString(),
    raw: {},
  });
  const { agent, adapter, gw } = setup({ store, channels: { telegram: { allowFrom: ['7'] } } });
  await gw.start();
  await gw.idle();
  assert.deepEqual(agent.seen, []);
  assert.match(adapter.texts()[0]!, /not set up to talk with you/);
  assert.deepEqual(await store.pending(), []);
  await gw.stop();
});

test('at the restart, earlier work in a conversation goes before a message handed over while starting', async () => {
  const store = new MemoryGatewayStore();
  const target = { conversationKey: 'telegram:100', chatId: '100' };
  // Before the restart: one answer half delivered, one message accepted and not yet answered.
  await store.putOutbox({
    id: 'telegram:evt:a',
    conversationKey: target.conversationKey,
    target,
    chunks: ['answer A, part 1', 'answer A, part 2'],
    receipts: ['1', null],
    createdAt: new Date().toISOString(),
  });
  await store.accept({
    id: 'telegram:evt:b',
    platform: 'telegram',
    conversationKey: 'telegram:100',
    chatId: '100',
    userId: '42',
    userName: 'ada',
    text: 'question B',
    isDirect: true,
    mentionsBot: false,
    attachments: [],
    receivedAt: new Date().toISOString(),
    raw: {},
  });
  class NewMessageAtStart extends FakeAdapter {
    override async start(sink: Parameters<FakeAdapter['start']>[0]) {
      await super.start(sink);
      await this.say('question C', { id: 'telegram:evt:c' });
    }
  }
  const adapter = new NewMessageAtStart();
  const { gw } = setup({ store, adapter });
  await gw.start();
  await gw.idle();
  assert.deepEqual(adapter.texts(), ['answer A, part 2', 'echo: question B', 'echo: question C']);
  await gw.stop();
});

test('an adapter left to the caller (deferStart) is started and stopped by the caller only, once each', async () => {
  // The leader starts the single connections and stops them when it steps down (at shutdown
  // too): the gateway stopping them again would stop a connection twice.
  const calls: string[] = [];
  class Counted extends FakeAdapter {
    override async start(sink: Parameters<FakeAdapter['start']>[0]) {
      calls.push('start');
      await super.start(sink);
    }
    override async stop() {
      calls.push('stop');
      await super.stop();
    }
  }
  const adapter = new Counted();
  const gw = createGateway({
    config: config(),
    adapters: [adapter],
    agent: new FakeAgent(),
    store: new MemoryGatewayStore(),
    deferStart: () => true,
  });
  await gw.start();
  assert.deepEqual(calls, []);
  await adapter.start(gw.handle); // the leader takes it up
  await adapter.say('hi');
  await until(() => adapter.posted.length === 1, 'the answer');
  await adapter.stop(); // the leader steps down (shutdown runs that first)
  await gw.stop();
  assert.deepEqual(calls, ['start', 'stop']);
});

test('with replicas, a message reads the unanswered journal once to be taken, once to hand over', async () => {
  // Each read is the whole journal (one query to the shared database): reading it again at the
  // run's turn costs every message a round trip for what this replica already holds.
  const store = new MemoryGatewayStore();
  let reads = 0;
  const pending = store.pending.bind(store);
  store.pending = (key) => {
    reads++;
    return pending(key);
  };
  const adapter = new FakeAdapter();
  const gw = createGateway({
    config: config(),
    adapters: [adapter],
    agent: new FakeAgent(),
    store,
    cluster: { leases: memoryLeases(), holder: 'replica-1', sweepMs: 60_000 },
  });
  await gw.start();
  reads = 0;
  for (const text of ['one', 'two', 'three']) {
    await adapter.say(text);
    await until(() => adapter.posted.at(-1)?.text === `echo: ${text}`, text);
    await gw.idle();
  }
  assert.deepEqual(
    adapter.posted.map((p) => p.text),
    ['echo: one', 'echo: two', 'echo: three'],
  );
  assert.ok(reads <= 2 * 3, `${reads} reads for 3 messages`);
  await gw.stop();
});

test('with replicas, a message reads its own conversation’s unanswered work, never every conversation’s', async () => {
  // Another replica's backlog in other conversations is not read (nor copied) to answer this one.
  const store = new MemoryGatewayStore();
  for (let i = 0; i < 20; i++)
    store.journal.set(
      `backlog${i}`,
      inboundMessage('later', { id: `backlog${i}`, chatId: `${200 + i}`, conversationKey: `telegram:${200 + i}` }),
    );
  const reads: (string | undefined)[] = [];
  const pending = store.pending.bind(store);
  const pendingOutbox = store.pendingOutbox.bind(store);
  store.pending = (key) => {
    reads.push(key);
    return pending(key);
  };
  store.pendingOutbox = (key) => {
    reads.push(key);
    return pendingOutbox(key);
  };
  const adapter = new FakeAdapter();
  const leases = memoryLeases();
  // The backlog's conversations are another replica's.
  for (let i = 0; i < 20; i++) await leases.acquire(`conv:telegram:${200 + i}`, 'replica-2', 60_000);
  const gw = createGateway({
    config: config(),
    adapters: [adapter],
    agent: new FakeAgent(),
    store,
    cluster: { leases, holder: 'replica-1', sweepMs: 60_000 },
  });
  await gw.start();
  reads.length = 0;
  for (const text of ['one', 'two']) {
    await adapter.say(text);
    await until(() => adapter.posted.at(-1)?.text === `echo: ${text}`, text);
    await gw.idle();
  }
  assert.ok(reads.length > 0);
  assert.deepEqual(new Set(reads), new Set(['telegram:100']), 'keyed reads of the message’s conversation alone');
  assert.equal(store.journal.size, 20, 'the backlog is left to its owner');
  await gw.stop();
});

test('with replicas, a run whose conversation lease passed to another replica stops and sends nothing', async () => {
  const store = new MemoryGatewayStore();
  const leases = memoryLeases();
  const adapter = new FakeAdapter();
  let aborted = false;
  const agent = new FakeAgent(
    (req) =>
      new Promise<string>((_, reject) =>
        req.signal.addEventListener('abort', () => {
          aborted = true;
          reject(req.signal.reason as Error);
        }),
      ),
  );
  const gw = createGateway({
    config: config(),
    adapters: [adapter],
    agent,
    store,
    cluster: { leases, holder: 'replica-1', ttlMs: 60, sweepMs: 60_000 },
  });
  await gw.start();
  await adapter.say('hello');
  await until(() => agent.seen.length === 1, 'the run');
  // The database is away past the lease's time; meanwhile another replica takes the conversation.
  leases.down = true;
  await until(() => leases.leaders().length === 0, 'the lease running out');
  leases.down = false;
  assert.notEqual(await leases.acquire('conv:telegram:100', 'replica-2', 60_000), undefined);
  await until(() => aborted, 'the run stopped when the lease was found lost');
  await gw.idle();
  assert.deepEqual(
    adapter.posted.map((p) => p.text),
    [],
    'nothing sent: the new owner answers',
  );
  assert.equal(store.journal.size, 1, 'the message stays unanswered for the new owner');
  await gw.stop();
});
