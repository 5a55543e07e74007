// A browser signed in to the web chat as telegram:4242 has exactly the rights Telegram's user 4242
// has: an `approvers` list naming 4242 lets it decide, `admins` naming 4242 makes it an admin;
// signed in as telegram:999 it is neither. Real web chat over HTTP, real gateway, runner and memory.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { UserKey } from '../../src/adapters/index.ts';
import { createWebAdapter, issueLoginLink } from '../../src/adapters/web/index.ts';
import type { AgentDeps } from '../../src/agent/index.ts';
import { remember, visibleMemories } from '../../src/agent/memory/index.ts';
import { configSchema } from '../../src/config/schema.ts';
import { isApprover } from '../../src/gateway/approval-text.ts';
import { createGateway } from '../../src/gateway/gateway.ts';
import { startHttpServer } from '../../src/gateway/http-server.ts';
import { createMetrics } from '../../src/gateway/metrics.ts';
import { createAgentRunner } from '../../src/runner/agent-runner.ts';
import { isAdmin } from '../../src/runner/command-access.ts';
import { memoryCommands } from '../../src/runner/memory-commands.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/index.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { noSandbox, noWasm } from '../agent/loop/helpers.ts';
import { callTools, reply, type ScriptStep, scriptedModel } from '../agent/loop/scripted.ts';
import { readEventStream, tempDir, waitUntil } from '../helpers.ts';

type Shown = { type: string; id?: string; text?: string; buttons?: { id: string; label: string }[] };

/** Telegram's approvals name user 4242 (`approvers`, and `admins`); a gateway with the web chat in front. */
async function webChat(t: TestContext, steps: ScriptStep[], approvers: string[] = ['4242']) {
  const store = createMemoryStore();
  const provider = scriptedModel(t, steps, 'test');
  const deps: AgentDeps = {
    resolveModel: () => ({ provider, model: 'm', id: 'test/m' }),
    registry: noWasm,
    sandbox: noSandbox,
    costOf: () => 0,
  };
  const config = configSchema.parse({
    admins: ['4242'],
    channels: { telegram: { access: 'full', approvals: { tools: ['memory_remember'], approvers, timeoutMs: 60_000 } } },
  });
  const web = createWebAdapter({ sessions: store.webSessions });
  const gw = createGateway({
    config,
    adapters: [web],
    agent: createAgentRunner({
      store,
      deps,
      workspacesDir: tempDir(),
      sandbox: { block: ['private'], limits: DEFAULT_LIMITS },
      memory: { digestChars: 2000 },
    }),
    store: store.delivery,
    approvals: store.approvals,
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

  /** A browser signed in as `identity` through a one-time link, with one tab open. */
  const signedIn = async (identity: UserKey) => {
    const { url } = await issueLoginLink(store.webSessions, identity, server.url);
    const login = await fetch(url, { method: 'POST', redirect: 'manual', headers: { origin: server.url } });
    assert.equal(login.status, 303);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ');
    const owner = /"OWNER":"([^"]+)"/.exec(await (await fetch(`${server.url}/`, { headers: { cookie } })).text())![1]!;
    const session = `${owner}-tab${Math.random().toString(36).slice(2, 12)}`;
    const shown: Shown[] = [];
    const res = await fetch(`${server.url}/chat/events?session=${session}&token=${encodeURIComponent(web.apiToken)}`, {
      headers: { cookie },
      signal: streams.signal,
    });
    assert.equal(res.status, 200);
    readEventStream(res.body!, (e) => void shown.push(e as Shown));
    const headers = { 'content-type': 'application/json', 'x-boxbot-token': web.apiToken, cookie };
    let n = 0;
    return {
      conversationKey: `web:${session}`,
      shown,
      /** The text of every message shown, each at its last edit. */
      texts: () => {
        const byId = new Map<string, string>();
        for (const e of shown) if ((e.type === 'message' || e.type === 'edit') && e.id) byId.set(e.id, e.text ?? '');
        return [...byId.values(), ...shown.filter((e) => e.type === 'note').map((e) => e.text ?? '')];
      },
      async say(text: string) {
        const r = await fetch(`${server.url}/chat/messages`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ session, text, id: `msg-${n++}-${Date.now()}` }),
        });
        assert.equal(r.status, 202);
      },
      async press(messageId: string, button: string) {
        const r = await fetch(`${server.url}/chat/press`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ session, messageId, button }),
        });
        assert.equal(r.status, 202);
      },
    };
  };
  return { signedIn, store, gw };
}

/** The approval question shown in a tab, and its Approve button. */
async function question(tab: Awaited<ReturnType<Awaited<ReturnType<typeof webChat>>['signedIn']>>) {
  await waitUntil(
    () => tab.shown.some((e) => e.buttons?.some((b) => b.id.endsWith(':y'))),
    'the question',
    10_000,
  ).catch((e) => {
    throw new Error(`${e}: ${JSON.stringify(tab.shown)}`);
  });
  const q = tab.shown.find((e) => e.buttons?.some((b) => b.id.endsWith(':y')))!;
  return { id: q.id!, approve: q.buttons!.find((b) => b.id.endsWith(':y'))!.id };
}

test('signed in as telegram:4242, a browser decides a question whose approvers name 4242', async (t) => {
  const chat = await webChat(t, [
    callTools([['memory_remember', { text: 'Ana takes her tea without sugar' }, 'c1']]),
    reply('Noted.'),
  ]);
  const ana = await chat.signedIn('telegram:4242');
  await ana.say('remember how I take my tea');
  const q = await question(ana);
  await ana.press(q.id, q.approve);
  await waitUntil(() => ana.texts().includes('Noted.'), 'the answer after the approval', 10_000);
  await chat.gw.idle();
  assert.ok(!ana.texts().some((x) => /Only .* may decide/.test(x)), `no refusal: ${ana.texts().join(' | ')}`);
  const notes = await visibleMemories(chat.store.memories, {
    conversationKey: ana.conversationKey,
    userKey: 'telegram:4242',
  });
  assert.deepEqual(
    notes.map((m) => m.text),
    ['Ana takes her tea without sugar'],
    'the approved call ran, for her',
  );
});

test('signed in as telegram:999, a browser may not decide a question whose approvers name 4242 only', async (t) => {
  // /stop ends the run while its question waits: the model is not asked again.
  const chat = await webChat(t, [callTools([['memory_remember', { text: 'Bob likes coffee' }, 'c1']])]);
  const bob = await chat.signedIn('telegram:999');
  await bob.say('remember that I like coffee');
  const q = await question(bob);
  await bob.press(q.id, q.approve);
  await waitUntil(() => bob.texts().includes('Only 4242 may decide this.'), 'the refusal', 10_000);
  await bob.say('/stop');
  await chat.gw.idle();
  const notes = await visibleMemories(chat.store.memories, {
    conversationKey: bob.conversationKey,
    userKey: 'telegram:999',
  });
  assert.deepEqual(notes, [], 'the call did not run');
});

test('signed in as telegram:4242 a browser is an admin (admins: ["4242"]); as telegram:999 it is not', async (t) => {
  const chat = await webChat(t, []);
  const ana = await chat.signedIn('telegram:4242');
  const bob = await chat.signedIn('telegram:999');
  // A note someone else saved in each conversation (the browser's own user before it signed in).
  const seeded = async (conversationKey: string) => {
    const r = await remember(
      chat.store.memories,
      { conversationKey, userKey: 'web:earlier' },
      'a shared note',
      'conversation',
    );
    assert.ok(r.ok);
    return r.record.id;
  };
  const forAna = await seeded(ana.conversationKey);
  const forBob = await seeded(bob.conversationKey);
  await ana.say(`/forget ${forAna}`);
  await bob.say(`/forget ${forBob}`);
  await waitUntil(() => ana.texts().length > 0 && bob.texts().length > 0, 'both answers', 10_000);
  assert.deepEqual(ana.texts(), [`Done: I deleted ${forAna}.`], 'the admin deletes it');
  assert.deepEqual(bob.texts(), [`${forBob} was saved by another user; only they or an admin may delete it.`]);
});

test('the matching rule: a signed-in identity matches as that platform user does, by id or platform:id', () => {
  for (const list of [['4242'], ['telegram:4242']]) {
    assert.equal(isApprover(list, '4242', 'telegram'), true, `Telegram's 4242 under ${list}`);
    assert.equal(isApprover(list, 'telegram:4242', 'web'), true, `signed in as telegram:4242 under ${list}`);
    const admins = { admins: list };
    assert.equal(isAdmin(admins, { platform: 'telegram', userId: '4242' }), true);
    assert.equal(isAdmin(admins, { platform: 'web', userId: 'f00d', signedInAs: 'telegram:4242' }), true);
  }
  assert.equal(isApprover(['telegram:4242'], 'discord:4242', 'web'), false, 'another platform’s 4242');
  assert.equal(isApprover(['telegram:4242'], '4242', 'discord'), false);
  assert.equal(isApprover(['4242'], 'telegram:999', 'web'), false);
  assert.equal(isApprover(['4242'], 'f00d', 'web'), false, 'the local browser is not 4242');
  assert.equal(
    isAdmin({ admins: ['telegram:4242'] }, { platform: 'web', userId: 'f', signedInAs: 'discord:4242' }),
    false,
  );
});
