// Two browsers at one web chat are two users: each browser's cookie owner is the speaker of its
// messages, so long-term memory (and with it budgets and approvals, keyed the same way) never
// mixes one browser's notes into the other's listing or prompt.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { createWebAdapter } from '../../src/adapters/web/index.ts';
import type { AgentDeps } from '../../src/agent/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import { memoryCommands } from '../../src/runner/memory-commands.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { noSandbox, noWasm } from '../agent/loop/helpers.ts';
import { callTools, reply, scriptedModel } from '../agent/loop/scripted.ts';
import { readEventStream, tempDir, waitUntil } from '../helpers.ts';

/** The real web chat over HTTP in front of a gateway with the real runner and memory. */
async function webChat(t: TestContext, steps: Parameters<typeof scriptedModel>[1]) {
  const store = createMemoryStore();
  const provider = scriptedModel(t, steps, 'test');
  const deps: AgentDeps = {
    resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
  };
  const web = createWebAdapter({ filesDir: tempDir('boxbot-web-files-') });
  const gw = createGateway({
    config: configSchema.parse({}),
    adapters: [web],
    agent: createAgentRunner({
      store,
      deps,
      workspacesDir: tempDir(),
      sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
      memory: { digestChars: 2000 },
    }),
    store: store.delivery,
    outbound: { backoffMs: 5 },
    chatCommands: memoryCommands(store.memories),
  });
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(),
    routes: [],
    attach: [(app) => web.attach(app)],
  });
  await gw.start();
  const streams = new AbortController();
  t.after(async () => {
    streams.abort();
    await gw.stop();
    await server.close();
  });
  /** A browser with its own cookie jar and one tab; `say` waits for the tab's next answer. */
  const browser = async () => {
    const page = await fetch(`${server.url}/`);
    const owner = /"OWNER":"([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ');
    const session = `${owner}-tab${Math.random().toString(36).slice(2, 12)}`;
    // Answers by message id: a streamed answer is sent, then edited to its final text.
    const answers: { id: string; text: string }[] = [];
    const res = await fetch(`${server.url}/chat/events?session=${session}&token=${encodeURIComponent(web.apiToken)}`, {
      headers: { cookie },
      signal: streams.signal,
    });
    assert.equal(res.status, 200);
    let connected = false;
    readEventStream(
      res.body!,
      (e) => {
        const ev = e as { type: string; id: string; text: string };
        if (ev.type === 'message') answers.push({ id: ev.id, text: ev.text });
        const edited = ev.type === 'edit' ? answers.find((x) => x.id === ev.id) : undefined;
        if (edited) edited.text = ev.text;
      },
      (c) => {
        if (c.startsWith('connected')) connected = true;
      },
    );
    await waitUntil(() => connected, 'the event stream', 5000);
    let n = 0;
    return {
      owner,
      async say(text: string): Promise<string> {
        const before = answers.length;
        const posted = await fetch(`${server.url}/chat/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-boxbot-token': web.apiToken, cookie },
          body: JSON.stringify({ session, text, id: `msg-${owner.slice(0, 4)}-${n++}` }),
        });
        assert.equal(posted.status, 202);
        await gw.idle();
        await waitUntil(() => answers.length > before, `an answer to ${text}`, 5000);
        return answers.at(-1)!.text;
      },
    };
  };
  return { browser, provider, store };
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
