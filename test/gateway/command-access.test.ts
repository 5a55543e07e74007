// Chat commands follow the same access rules as tools: in a read-only group nobody but an admin
// runs a command that deletes (/forget, /reset), a note saved for the conversation is deleted only
// by its author or an admin (by command or by the memory tool), and /help lists only what the
// user may run there.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { remember } from '../../src/agent/memory/index.ts';
import { createMemoryStore, type Store } from '../../src/store/index.ts';
import { callTools, reply, type ScriptStep } from '../agent/loop/scripted.ts';
import { FakeAdapter } from './fakes.ts';
import { memoryGateway } from './memory-gateway.ts';

const GROUP = 'telegram:-500';
const ADA = 'telegram:1';
const BOB = 'telegram:2';

/** A Telegram group (`access`) with the real runner and memory; Ada (1) saved a note for it and one for herself. */
async function group(t: TestContext, access: 'read-only' | 'full', steps: ScriptStep[] = [], admins: string[] = []) {
  const store: Store = createMemoryStore();
  const ada = { conversationKey: GROUP, userKey: ADA };
  const shared = await remember(store.memories, ada, 'The group meets on Fridays', 'conversation');
  await remember(store.memories, ada, 'Ada is planning a surprise party', 'user');
  assert.ok(shared.ok);
  const adapter = new FakeAdapter('telegram', {
    edit: false,
    typing: false,
    threads: false,
    maxTextLength: 4000,
    editIntervalMs: 5,
    typingIntervalMs: 5000,
  });
  const { gw, provider } = await memoryGateway(t, {
    adapters: [adapter],
    config: { admins, channels: { telegram: { access, requireMention: false } } },
    steps,
    store,
  });
  /** What `userId` says in the group, and the reply. */
  const say = async (text: string, userId: string): Promise<string> => {
    await adapter.say(text, {
      userId,
      userName: `user${userId}`,
      chatId: '-500',
      conversationKey: GROUP,
      isDirect: false,
    });
    await gw.idle();
    return adapter.texts('-500').at(-1)!;
  };
  const notes = async () => ({
    group: (await store.memories.list({ kind: 'conversation', conversationKey: GROUP })).map((m) => m.text),
    ada: (await store.memories.list({ kind: 'user', userKey: ADA })).map((m) => m.text),
  });
  return { say, notes, noteId: shared.record.id, store, provider };
}

test('a read-only group: /forget and /reset are refused in one line, and nothing is deleted', async (t) => {
  const g = await group(t, 'read-only');
  for (const text of ['/forget all', `/forget ${g.noteId}`, '/reset']) {
    const answer = await g.say(text, '2');
    assert.match(answer, /^Sorry, \/(forget|reset) is not allowed for you here: .*access here is read-only/);
    assert.doesNotMatch(answer, /\n/, 'one line');
  }
  // Ada herself may not delete in a read-only group either (she can, in her own chat with the bot).
  assert.match(await g.say(`/forget ${g.noteId}`, '1'), /^Sorry, \/forget is not allowed/);
  assert.deepEqual(await g.notes(), {
    group: ['The group meets on Fridays'],
    ada: ['Ada is planning a surprise party'],
  });
  // Looking is fine.
  assert.match(await g.say('/memory', '2'), /Notes I keep \(1\)[\s\S]*meets on Fridays/);
});

test('/help in a read-only group leaves out what the user may not run; /whoami and /memory stay', async (t) => {
  const g = await group(t, 'read-only');
  const help = await g.say('/help', '2');
  assert.match(help, /\/whoami: [\s\S]*\/memory: /);
  assert.doesNotMatch(help, /\/reset|\/forget/);
});

test("a full-access group: another user's note of the conversation is kept; one's own are deleted", async (t) => {
  const g = await group(t, 'full');
  assert.match(
    await g.say(`/forget ${g.noteId}`, '2'),
    /was saved by another user; only they or an admin may delete it/,
  );
  await remember(g.store.memories, { conversationKey: GROUP, userKey: BOB }, 'Bob brings the cake', 'conversation');
  assert.equal(
    await g.say('/forget all', '2'),
    'Done: I deleted 1 note(s). 1 note(s) other users saved here are kept: only they or an admin may delete them.',
  );
  assert.deepEqual(await g.notes(), {
    group: ['The group meets on Fridays'],
    ada: ['Ada is planning a surprise party'],
  });
  // The author may.
  assert.equal(await g.say(`/forget ${g.noteId}`, '1'), `Done: I deleted ${g.noteId}.`);
  assert.deepEqual((await g.notes()).group, []);
});

test('an admin deletes any note of the conversation, even in a read-only group', async (t) => {
  const g = await group(t, 'read-only', [], ['telegram:9']);
  assert.equal(await g.say(`/forget ${g.noteId}`, '9'), `Done: I deleted ${g.noteId}.`);
  await remember(g.store.memories, { conversationKey: GROUP, userKey: BOB }, 'Bob brings the cake', 'conversation');
  assert.equal(await g.say('/forget all', '9'), 'Done: I deleted 1 note(s).');
  // Ada's own notes are hers: an admin's /forget all in the group does not reach them.
  assert.deepEqual(await g.notes(), { group: [], ada: ['Ada is planning a surprise party'] });
});

test("the memory_forget tool keeps the author rule too: Bob's run cannot delete Ada's note of the group", async (t) => {
  let id = '';
  // The note's id is known only once the group is set up: the model's step reads it then.
  const forgetIt: ScriptStep = () =>
    (async function* () {
      yield* callTools([['memory_forget', { id }]]);
    })();
  const g = await group(t, 'full', [forgetIt, reply('I could not.')]);
  id = g.noteId;
  assert.equal(await g.say('forget the Friday note', '2'), 'I could not.');
  const result = g.provider.requests[1]!.messages.at(-1)!.content[0]!;
  assert.ok(result.type === 'tool-result');
  assert.match(result.content, /saved by another user; only they or an admin may delete it/);
  assert.equal(result.isError, true);
  assert.deepEqual((await g.notes()).group, ['The group meets on Fridays']);
});
