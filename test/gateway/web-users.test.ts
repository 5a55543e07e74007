// Two browsers at one web chat are two users: each browser's cookie owner is the speaker of its
// messages, so long-term memory (and with it budgets and approvals, keyed the same way) never
// mixes one browser's notes into the other's listing or prompt.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { callTools, reply, type scriptedModel } from '../agent/loop/scripted.ts';
import { tempDir, waitUntil } from '../helpers.ts';
import { webGateway } from './memory-gateway.ts';

/** The real web chat over HTTP in front of a gateway with the real runner and memory. */
async function webChat(t: TestContext, steps: Parameters<typeof scriptedModel>[1]) {
  const chat = await webGateway(t, { steps, web: { filesDir: tempDir('boxbot-web-files-') } });
  /** A browser with its own cookie jar and one tab; `say` waits for the tab's next answer. */
  const browser = async () => {
    const { owner, cookie } = await chat.ownerOf();
    const tab = await chat.tab(cookie, owner);
    // Answers by message id: a streamed answer is sent, then edited to its final text.
    const answers = () => {
      const byId = new Map<string, string>();
      for (const e of tab.shown)
        if ((e.type === 'message' || (e.type === 'edit' && byId.has(e.id!))) && e.id) byId.set(e.id, e.text ?? '');
      return [...byId.values()];
    };
    return {
      owner,
      async say(text: string): Promise<string> {
        const before = answers().length;
        await tab.post(text);
        await chat.gw.idle();
        await waitUntil(() => answers().length > before, `an answer to ${text}`, 5000);
        return answers().at(-1)!;
      },
    };
  };
  return { browser, provider: chat.provider, store: chat.store };
}

test("web chat: each browser is its own user: B neither lists nor is prompted with A's notes", async (t) => {
  const chat = await webChat(t, [
    callTools([['memory_remember', { text: 'A keeps the spare key under the blue pot' }, 'c1']]),
    reply('Noted.'),
    reply('Hello B.'),
  ]);
  const a = await chat.browser();
  const b = await chat.browser();
  assert.notEqual(a.owner, b.owner);
  assert.equal(await a.say('remember where the spare key is'), 'Noted.');
  assert.match(await a.say('/memory'), /Notes I keep \(1\)[\s\S]*spare key under the blue pot/);

  assert.equal(await b.say('/memory'), 'I keep no notes about you or this conversation.');
  assert.equal(await b.say('where is the spare key?'), 'Hello B.');
  assert.doesNotMatch(chat.provider.requests.at(-1)!.system, /blue pot/);
  // The note belongs to A's browser, by its owner id; so does A's spending (a user budget counts it).
  const notes = await chat.store.memories.list({ kind: 'user', userKey: `web:${a.owner}` });
  assert.deepEqual(
    notes.map((m) => m.text),
    ['A keeps the spare key under the blue pot'],
  );
  const day = new Date().toISOString().slice(0, 10);
  const calls = async (owner: string) => (await chat.store.usage.get({ userKey: `web:${owner}` }, day)).total.calls;
  assert.deepEqual([await calls(a.owner), await calls(b.owner)], [2, 1]);
});
