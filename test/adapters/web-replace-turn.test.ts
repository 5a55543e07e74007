// The runner's side of the web chat's Edit and Regenerate (InboundMessage.replacesTurn) over the
// real memory and file stores and a scripted model: the last turn it names is dropped from the
// history the model gets and the history saved; one that is not the last drops nothing; a run
// again after a crash (the new turn saved) answers from the history without dropping it.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import { resolvePolicy } from '../../src/runner/policy.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createFileStore, createMemoryStore, type Store } from '../../src/store/index.ts';
import { scriptedDeps } from '../agent/loop/helpers.ts';
import { reply, type ScriptStep, scriptedModel } from '../agent/loop/scripted.ts';
import { inboundMessage } from '../gateway/fakes.ts';
import { tempDir } from '../helpers.ts';

const KEY = 'web:f00dcafe-tab0123456789';
const say = (id: string, text: string, replaces?: string): InboundMessage =>
  inboundMessage(text, {
    platform: 'web',
    chatId: 'f00dcafe-tab0123456789',
    conversationKey: KEY,
    id: `${KEY}:${id}`,
    messageId: id,
    userId: 'f00dcafe',
    ...(replaces ? { replacesTurn: `${KEY}:${replaces}` } : {}),
  });

for (const [backend, open] of [
  ['memory', () => createMemoryStore()],
  ['file', () => createFileStore(tempDir('boxbot-replace-'))],
] as const) {
  const runnerOn = (t: TestContext, store: Store, steps: ScriptStep[]) => {
    const provider = scriptedModel(t, steps, 'test');
    const deps = scriptedDeps(provider);
    const runner = createAgentRunner({
      store,
      deps,
      workspacesDir: tempDir(),
      sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
    });
    return (m: InboundMessage) =>
      runner.run({
        message: m,
        policy: resolvePolicy(configSchema.parse({}), m),
        signal: new AbortController().signal,
        onEvent: () => undefined,
      });
  };
  const texts = async (store: Store) =>
    ((await store.conversations.get(KEY))?.messages ?? []).map(
      (m) => `${m.role}: ${m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')}`,
    );

  test(`${backend}: a message replacing the last turn runs in its place; saved history drops the old`, async (t) => {
    const store = open();
    const run = runnerOn(t, store, [reply('One.'), reply('Lyon.'), reply('Paris.'), reply('Paris.')]);
    await run(say('msg00001', 'hello'));
    await run(say('msg00002', 'capital of France?'));
    assert.equal((await run(say('msg00003', 'capital of France?', 'msg00002'))).text, 'Paris.');
    assert.deepEqual(await texts(store), [
      'user: hello',
      'assistant: One.',
      'user: capital of France?',
      'assistant: Paris.',
    ]);
    // Naming a turn that is not the last (msg00001) drops nothing: an ordinary message.
    await run(say('msg00004', 'capital of France?', 'msg00001'));
    assert.equal((await texts(store)).length, 6);
    // The same replacing message run again (a crash after its turn was saved) is answered from the
    // history: no model call, nothing else dropped.
    assert.equal((await run(say('msg00003', 'capital of France?', 'msg00002'))).outcome, 'replayed');
    assert.equal((await texts(store)).length, 6);
    await store.close();
  });
}
