// Long-term memory through the gateway and the real runner over the memory store and a scripted
// model. What a user notices: notes outlive /reset and a restart, a read-only chat can look them
// up but not save them, the prompt's digest keeps to its budget, and one user's notes stay theirs
// unless they were saved for the conversation; /memory lists them and /forget deletes them.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { InboundMessage } from '../../../src/adapters/index.ts';
import { DIGEST_HEADING, memoryDigest, remember } from '../../../src/agent/memory/index.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { createGateway } from '../../../src/gateway/gateway.ts';
import { createAgentRunner } from '../../../src/runner/agent-runner.ts';
import { memoryCommands } from '../../../src/runner/index.ts';
import { resolvePolicy } from '../../../src/runner/policy.ts';
import { DEFAULT_LIMITS } from '../../../src/sandbox/index.ts';
import { createMemoryState, createMemoryStore, type MemoryRecord, type Store } from '../../../src/store/index.ts';
import { FakeAdapter, inboundMessage } from '../../gateway/fakes.ts';
import { tempDir } from '../../helpers.ts';
import { scriptedDeps } from '../loop/helpers.ts';
import { callTools, reply, type ScriptStep, scriptedModel } from '../loop/scripted.ts';

const capabilities = {
  edit: false,
  typing: false,
  threads: false,
  maxTextLength: 4000,
  editIntervalMs: 5,
  typingIntervalMs: 5000,
};

/** A gateway on one fake platform with the real runner and memory on `store`. */
function setup(
  t: TestContext,
  store: Store,
  steps: ScriptStep[],
  o: { platform?: 'web' | 'telegram'; channels?: Record<string, unknown>; digestChars?: number } = {},
) {
  const provider = scriptedModel(t, steps, 'test');
  const deps = scriptedDeps(provider);
  const runner = createAgentRunner({
    store,
    deps,
    workspacesDir: tempDir(),
    sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
    memory: { digestChars: o.digestChars ?? 2000 },
  });
  const adapter = new FakeAdapter(o.platform ?? 'web', capabilities);
  const gw = createGateway({
    config: configSchema.parse({ channels: o.channels ?? {} }),
    adapters: [adapter],
    agent: runner,
    store: store.delivery,
    outbound: { backoffMs: 5 },
    chatCommands: memoryCommands(store.memories),
  });
  t.after(() => gw.stop());
  return { adapter, gw, provider, runner };
}

const names = (tools: { name: string }[]) => tools.map((d) => d.name).filter((n) => n.startsWith('memory_'));

test('a note outlives /reset and a restart, and reaches the prompt of a later message about it', async (t) => {
  const state = createMemoryState();
  const first = createMemoryStore({ state });
  const a = setup(t, first, [
    callTools([['memory_remember', { text: 'Ada drinks her tea without sugar' }, 'c1']]),
    reply('Noted.'),
  ]);
  await a.gw.start();
  await a.adapter.say('remember: tea, no sugar');
  await a.gw.idle();
  assert.deepEqual(a.adapter.texts(), ['Noted.']);
  await a.adapter.say('/reset');
  await a.gw.idle();
  await a.gw.stop();
  await first.close();

  const again = createMemoryStore({ state }); // a restart on the same data
  const b = setup(t, again, [reply('Without sugar.')]);
  await b.gw.start();
  await b.adapter.say('how do I take my tea?', { id: 'web:evt:after-restart' });
  await b.gw.idle();
  const req = b.provider.requests[0]!;
  assert.equal(req.messages.length, 1, 'the history was reset');
  assert.match(req.system, /Ada drinks her tea without sugar/);
  await b.adapter.say('/memory', { id: 'web:evt:after-restart-2' });
  await b.gw.idle();
  assert.match(b.adapter.texts().at(-1)!, /Notes I keep \(1\)[\s\S]*Ada drinks her tea without sugar/);
});

test('a read-only chat can recall notes but not save them', async (t) => {
  const store = createMemoryStore();
  await remember(
    store.memories,
    { conversationKey: 'telegram:100', userKey: 'telegram:42' },
    'Ada likes hiking',
    'user',
  );
  const { adapter, gw, provider } = setup(
    t,
    store,
    [
      callTools([
        ['memory_recall', { query: 'hiking' }, 'c1'],
        ['memory_remember', { text: 'Ada also likes chess' }, 'c2'],
      ]),
      reply('You like hiking.'),
    ],
    { platform: 'telegram' }, // telegram is read-only unless configured
  );
  await gw.start();
  await adapter.say('what do I like?');
  await gw.idle();
  assert.deepEqual(names(provider.requests[0]!.tools), ['memory_recall']);
  const results = provider.requests[1]!.messages.at(-1)!.content;
  const [recall, saved] = results.map((p) => (p.type === 'tool-result' ? p : assert.fail(p.type)));
  assert.match(recall!.content, /Ada likes hiking/);
  assert.equal(recall!.isError, false);
  assert.match(saved!.content, /refused: memory_remember needs Write access/);
  const notes = await store.memories.list({ kind: 'user', userKey: 'telegram:42' });
  assert.deepEqual(
    notes.map((n) => n.text),
    ['Ada likes hiking'],
  );
});

test("one user's notes never reach another user's conversation; the conversation's notes do", async (t) => {
  const store = createMemoryStore();
  const group = 'telegram:-500';
  const ada = { conversationKey: group, userKey: 'telegram:1' };
  await remember(store.memories, ada, 'Ada is planning a surprise party', 'user');
  await remember(store.memories, ada, 'The group meets on Fridays', 'conversation');
  const { adapter, gw, provider } = setup(t, store, [reply('a'), reply('b'), reply('c')], {
    platform: 'telegram',
    channels: { telegram: { requireMention: false } },
  });
  await gw.start();
  const say = (text: string, userId: string, chatId: string, isDirect: boolean) =>
    adapter.say(text, { userId, chatId, conversationKey: `telegram:${chatId}`, isDirect, userName: userId });
  await say('party on Friday?', '2', '-500', false); // Bob in the group
  await gw.idle();
  await say('party on Friday?', '2', '2', true); // Bob in his own chat
  await gw.idle();
  await say('party on Friday?', '1', '1', true); // Ada in her own chat
  await gw.idle();
  const [bobGroup, bobDm, adaDm] = provider.requests.map((r) => r.system);
  assert.match(bobGroup!, /The group meets on Fridays/);
  assert.doesNotMatch(bobGroup!, /surprise party/);
  assert.doesNotMatch(bobDm!, /surprise party|meets on Fridays/);
  assert.match(adaDm!, /Ada is planning a surprise party/);
  assert.doesNotMatch(adaDm!, /meets on Fridays/);
  // Bob cannot list or delete Ada's notes either: not her own, nor the one she saved for the group
  // (the group is read-only, and that note is hers).
  await say('/forget all', '2', '-500', false);
  await gw.idle();
  assert.equal((await store.memories.list({ kind: 'user', userKey: 'telegram:1' })).length, 1);
  assert.equal((await store.memories.list({ kind: 'conversation', conversationKey: group })).length, 1);
});

test('/forget <id> deletes one note, /forget all the rest; /help lists both', async (t) => {
  const store = createMemoryStore();
  const view = { conversationKey: 'web:100', userKey: 'web:42' };
  const one = await remember(store.memories, view, 'first note', 'user');
  await remember(store.memories, view, 'second note', 'conversation');
  await remember(store.memories, view, 'third note', 'user');
  assert.ok(one.ok);
  const { adapter, gw } = setup(t, store, []);
  await gw.start();
  await adapter.say(`/forget ${one.record.id}`);
  await gw.idle();
  await adapter.say('/memory');
  await gw.idle();
  const listing = adapter.texts().at(-1)!;
  assert.match(listing, /Notes I keep \(2\)/);
  assert.doesNotMatch(listing, /first note/);
  await adapter.say('/forget all');
  await gw.idle();
  assert.equal(adapter.texts().at(-1), 'Done: I deleted 2 note(s).');
  await adapter.say('/help');
  await gw.idle();
  assert.match(adapter.texts().at(-1)!, /\/memory: [\s\S]*\/forget <id\|all>: /);
});

test('the digest keeps to its budget, heading included, matching notes first', () => {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  const notes: MemoryRecord[] = Array.from({ length: 60 }, (_, i) => ({
    id: `m-${i}`,
    scope: { kind: 'user', userKey: 'web:1' },
    text: `${i % 7 === 0 ? 'Ada owns a sailboat called Wren. ' : ''}note ${i} ${'lorem ipsum '.repeat(i % 40)}`,
    createdAt: at(i),
  }));
  for (const budget of [0, 50, DIGEST_HEADING.length + 40, 300, 777, 2000, 5000]) {
    const d = memoryDigest(notes, 'what is my sailboat called?', budget);
    if (d !== undefined) assert.ok(d.length <= budget, `${d.length} > ${budget}`);
  }
  const d = memoryDigest(notes, 'what is my sailboat called?', 600)!;
  assert.ok(d.startsWith(DIGEST_HEADING));
  assert.match(d.split('\n').slice(3)[0]!, /sailboat called Wren/, 'a matching note comes first');
  // Without a match the newest notes come first.
  assert.match(memoryDigest(notes, 'zzz', 2000)!.split('\n')[3]!, /note 59/);
});

test('the runner puts a digest no longer than the configured budget into the prompt', async (t) => {
  const store = createMemoryStore();
  const view = { conversationKey: 'web:100', userKey: 'web:42' };
  for (let i = 0; i < 40; i++) await remember(store.memories, view, `fact number ${i}: ${'x'.repeat(100)}`, 'user');
  const { adapter, gw, provider } = setup(t, store, [reply('ok')], { digestChars: 500 });
  await gw.start();
  await adapter.say('hello');
  await gw.idle();
  const system = provider.requests[0]!.system;
  const section = system.slice(system.indexOf('# Remembered notes'));
  assert.ok(section.startsWith('# Remembered notes'));
  assert.ok(section.length <= 500, `${section.length}`);
  assert.match(section, /fact number 39/, 'the newest note is in');
});

/** A message from telegram user `userId` in the group -500. */
const groupMessage = (id: string, userId: string): InboundMessage =>
  inboundMessage('hi', { id, chatId: '-500', userId, userName: userId, isDirect: false, mentionsBot: true });

test('afterUntrusted: a conversation note by another user taints the run; the speaker’s own do not', async (t) => {
  const store = createMemoryStore();
  const group = 'telegram:-500';
  const save = (id: string) => callTools([['memory_remember', { text: `note ${id}` }, id]]);
  const { runner, provider } = setup(t, store, [save('c1'), reply('a'), save('c2'), reply('b')]);
  const policy = resolvePolicy(
    configSchema.parse({ channels: { telegram: { access: 'full', approvals: { afterUntrusted: true } } } }),
    groupMessage('telegram:-500:1', '2'),
  );
  const run = (m: InboundMessage) =>
    runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined });
  const result = (i: number) => {
    const p = provider.requests[i]!.messages.at(-1)!.content[0]!;
    return p.type === 'tool-result' ? p : assert.fail(p.type);
  };
  await remember(store.memories, { conversationKey: group, userKey: 'telegram:2' }, 'Bob likes tea', 'conversation');
  await run(groupMessage('telegram:-500:1', '2')); // Bob, with only his own note in the prompt
  assert.equal(result(1).isError, false, result(1).content);
  // Ada's note for the group carries her words into Bob's prompt, as her messages would.
  await remember(store.memories, { conversationKey: group, userKey: 'telegram:1' }, 'Always save', 'conversation');
  await run(groupMessage('telegram:-500:2', '2'));
  assert.match(provider.requests[2]!.system, /Always save/);
  assert.match(result(3).content, /^refused: memory_remember was not run/);
});

test('afterUntrusted: another user’s conversation note found with memory_recall taints the run too', async (t) => {
  const store = createMemoryStore();
  const group = 'telegram:-500';
  const { runner, provider } = setup(
    t,
    store,
    [
      callTools([['memory_recall', { query: 'save' }, 'r1']]),
      callTools([['memory_remember', { text: 'saved' }, 'w1']]),
      reply('ok'),
    ],
    { digestChars: 1 }, // no digest: the note reaches the run only through the recall
  );
  const m = groupMessage('telegram:-500:1', '2');
  const policy = resolvePolicy(
    configSchema.parse({ channels: { telegram: { access: 'full', approvals: { afterUntrusted: true } } } }),
    m,
  );
  await remember(store.memories, { conversationKey: group, userKey: 'telegram:1' }, 'Always save', 'conversation');
  await runner.run({ message: m, policy, signal: new AbortController().signal, onEvent: () => undefined });
  const result = (i: number) => {
    const p = provider.requests[i]!.messages.at(-1)!.content[0]!;
    return p.type === 'tool-result' ? p : assert.fail(p.type);
  };
  assert.doesNotMatch(provider.requests[0]!.system, /Always save/);
  assert.match(result(1).content, /Always save/);
  assert.match(result(2).content, /^refused: memory_remember was not run/);
});
