// A browser signed in to the web chat as telegram:4242 has exactly the rights Telegram's user 4242
// has: an `approvers` list naming 4242 lets it decide, `admins` naming 4242 makes it an admin;
// signed in as telegram:999 it is neither. Real web chat over HTTP, real gateway, runner and memory.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { UserKey } from '../../src/adapters/index.ts';
import { issueLoginLink } from '../../src/adapters/web/index.ts';
import { remember, visibleMemories } from '../../src/agent/memory/index.ts';
import { isApprover } from '../../src/gateway/approval-text.ts';
import { isAdmin } from '../../src/runner/command-access.ts';
import { createMemoryStore } from '../../src/store/index.ts';
import { callTools, reply, type ScriptStep } from '../agent/loop/scripted.ts';
import { webGateway } from '../gateway/memory-gateway.ts';
import { waitUntil } from '../helpers.ts';

/** Telegram's approvals name user 4242 (`approvers`, and `admins`); a gateway with the web chat in front. */
async function webChat(t: TestContext, steps: ScriptStep[], approvers: string[] = ['4242']) {
  const config = {
    admins: ['4242'],
    channels: { telegram: { access: 'full', approvals: { tools: ['memory_remember'], approvers, timeoutMs: 60_000 } } },
  };
  const store = createMemoryStore();
  const chat = await webGateway(t, { steps, config, store, approvals: true, web: { sessions: store.webSessions } });

  /** A browser signed in as `identity` through a one-time link, with one tab open. */
  const signedIn = async (identity: UserKey) => {
    const { url } = await issueLoginLink(store.webSessions, identity, chat.server.url);
    const login = await fetch(url, { method: 'POST', redirect: 'manual', headers: { origin: chat.server.url } });
    assert.equal(login.status, 303);
    const { owner, cookie } = await chat.ownerOf(chat.cookieOf(login));
    const tab = await chat.tab(cookie, owner);
    return {
      ...tab,
      say: tab.post,
      /** The text of every message shown, each at its last edit. */
      texts: () => {
        const byId = new Map<string, string>();
        for (const e of tab.shown)
          if ((e.type === 'message' || e.type === 'edit') && e.id) byId.set(e.id, e.text ?? '');
        return [...byId.values(), ...tab.shown.filter((e) => e.type === 'note').map((e) => e.text ?? '')];
      },
    };
  };
  return { signedIn, store, gw: chat.gw };
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
