// Signing in to the web chat from Telegram, in a real headless Chromium against a whole boxbot
// (the Telegram emulator, the LLM emulator, the store): `/web` answers privately with a one-time
// link; the browser then speaks as telegram:4242 under that user's policy; used, forged and
// expired links are refused, a guesser is rate-limited; the history is the same after a gateway
// restart and in a fresh browser profile signed in again; the admin API lists and ends sessions.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { accessLines } from '../../src/gateway/commands/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { startTelegramEmulator, type TelegramEmulator } from '../emulators/telegram/index.ts';
import { waitUntil } from '../helpers.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';
import { browserMissing, connected, freePort, launchChromium, openSignIn, say, waitText } from './browser.ts';

const missing = browserMissing();
if (missing) test(`web sign-in in a browser: skipped: ${missing}`, { skip: missing }, () => {});

const ADMIN = 'admin-token-for-the-e2e-test-0123456789';
const ana = { id: 4242, is_bot: false, first_name: 'Ana' };
const dm = { id: 4242, type: 'private' as const, first_name: 'Ana' };
const group = { id: -100555, type: 'supergroup' as const, title: 'team' };

describe('web chat sign-in from Telegram, in Chromium', { skip: missing }, () => {
  let bot: RestartableBoxbot;
  let tg: TelegramEmulator;
  let browser: Browser;
  let page: Page;

  before(async () => {
    tg = await startTelegramEmulator();
    bot = await bootBoxbot(
      {
        http: { port: await freePort() },
        // Ana's private chat is chat-only: the web chat signed in as her must be too (the local web user is full).
        channels: {
          telegram: { apiRoot: tg.apiRoot, requireMention: false, chats: { '4242': { access: 'chat-only' } } },
        },
      },
      { TELEGRAM_BOT_TOKEN: tg.token, BOXBOT_ADMIN_TOKEN: ADMIN },
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await bot?.close();
    await tg?.close();
  });

  const linkIn = (text: string) => /https?:\/\/\S+\/login\/[A-Za-z0-9_-]+/.exec(text)?.[0];
  /** Sends /web in Ana's private chat and returns the link it answered with. */
  const askLink = async (): Promise<string> => {
    const before = tg.botMessages(String(dm.id)).length;
    tg.userMessage({ chat: dm, from: ana, text: '/web' });
    let link: string | undefined;
    await waitUntil(
      () => {
        link = tg
          .botMessages(String(dm.id))
          .slice(before)
          .map((m) => linkIn(m.text ?? ''))
          .find(Boolean);
        return !!link;
      },
      'a sign-in link in the private chat',
      30_000,
    );
    return link!;
  };
  const pageText = (p: Page) => p.evaluate(() => document.body.textContent ?? '');
  const signIn = openSignIn;
  const transcript = (p: Page) =>
    p.$$eval('#log .m', (els) => els.map((e) => `${e.classList.contains('me') ? 'me' : 'bot'}: ${e.textContent}`));

  test('/web in a group sends no link there; in a private chat it sends one', async () => {
    tg.userMessage({ chat: group, from: ana, text: '/web' });
    await waitUntil(() => tg.botMessages(String(group.id)).length > 0, 'the answer in the group', 30_000);
    const said = tg.botMessages(String(group.id)).map((m) => m.text ?? '');
    // The emulator has no private chat with Ana yet (she never wrote to the bot): Telegram refuses.
    assert.match(said.join('\n'), /could not send you a private message/);
    assert.equal(said.map(linkIn).filter(Boolean).length, 0, 'no link in the group');
    const link = await askLink();
    assert.ok(link.startsWith(bot.app.url), `the link is on the gateway: ${link}`);
  });

  test('the link signs the browser in as telegram:4242, with her policy', async () => {
    page = await signIn(browser.defaultBrowserContext(), await askLink());
    await connected(page);
    assert.equal(await page.$eval('#who', (e) => e.textContent), 'telegram:4242');
    await say(page, '/whoami');
    await waitText(page, '.bot', 'telegram:4242');
    const whoami = (await page.$$eval('.bot', (els) => els.map((e) => e.textContent ?? ''))).join('\n');
    assert.match(whoami, /You are telegram:4242, signed in to the web chat/);
    assert.ok(whoami.includes(accessLines('chat-only', [])[0]!), `chat-only, as in her private chat: ${whoami}`);
  });

  test('a used, a forged and an expired link are refused', async () => {
    const ctx = await browser.createBrowserContext();
    try {
      const link = await askLink();
      const first = await signIn(ctx, link);
      await connected(first);
      const again = await signIn(ctx, link);
      assert.match(await pageText(again), /does not work/);
      const forged = await signIn(ctx, `${bot.app.url}/login/${randomBytes(32).toString('base64url')}`);
      assert.match(await pageText(forged), /does not work/);
      // A link made 11 minutes ago (10 is its life), through the same function /web uses.
      const token = randomBytes(32).toString('base64url');
      const { createHash } = await import('node:crypto');
      const past = Date.now() - 11 * 60_000;
      await bot.app.store.webSessions.addLogin({
        tokenHash: createHash('sha256').update(token).digest('hex'),
        identity: 'telegram:4242',
        createdAt: past,
        expiresAt: past + 10 * 60_000,
      });
      const expired = await signIn(ctx, `${bot.app.url}/login/${token}`);
      assert.match(await pageText(expired), /does not work/);
    } finally {
      await ctx.close();
    }
  });

  test('the history is the same after a gateway restart and in a fresh browser profile', async () => {
    // A new chat: command answers (the /whoami above) are not kept in the stored history yet.
    await page.click('#new');
    await connected(page);
    bot.llm.script([llm.say('Hello **Ana**.')]);
    await say(page, 'hello from the web');
    await waitText(page, '.bot', 'Hello Ana.');
    await bot.app.gateway.idle();
    const live = await transcript(page);
    assert.ok(live.includes('me: hello from the web'), JSON.stringify(live));
    await bot.restart();
    await page.reload();
    await connected(page);
    await waitText(page, '.bot', 'Hello Ana.');
    assert.deepEqual(await transcript(page), live, 'after a restart');
    const fresh = await browser.createBrowserContext();
    try {
      const p = await signIn(fresh, await askLink());
      await connected(p);
      await waitText(p, '#sessions button', 'hello from the web');
      await p.$$eval('#sessions button', (bs) =>
        (bs as HTMLButtonElement[]).find((b) => b.textContent?.includes('hello from the web'))?.click(),
      );
      await waitText(p, '.bot', 'Hello Ana.');
      assert.deepEqual(await transcript(p), live, 'in another browser signed in as her');
    } finally {
      await fresh.close();
    }
  });

  test('the admin API lists the sessions and ends one; the browser is then not her any more', async () => {
    const auth = { authorization: `Bearer ${ADMIN}` };
    const r = await fetch(`${bot.app.url}/admin/api/web-sessions?identity=telegram:4242`, { headers: auth });
    const { sessions } = (await r.json()) as { sessions: { id: string; identity: string; secretHash?: string }[] };
    assert.ok(sessions.length >= 2, 'one per browser signed in');
    assert.ok(sessions.every((s) => s.identity === 'telegram:4242' && s.secretHash === undefined));
    for (const s of sessions) {
      const d = await fetch(`${bot.app.url}/admin/api/web-sessions/${s.id}`, { method: 'DELETE', headers: auth });
      assert.equal(d.status, 200);
    }
    await page.reload();
    await connected(page);
    assert.equal(await page.$('#who'), null, 'back to the local user (loopback)');
    const gone = await fetch(`${bot.app.url}/admin/api/web-sessions/${sessions[0]!.id}`, {
      method: 'DELETE',
      headers: auth,
    });
    assert.equal(gone.status, 404);
  });

  test('an address that keeps trying links is refused for a while', async () => {
    let status = 0;
    let tries = 0;
    while (status !== 429 && tries < 11) {
      tries++;
      status = (await fetch(`${bot.app.url}/login/${randomBytes(32).toString('base64url')}`)).status;
    }
    assert.equal(status, 429, `refused after at most 10 attempts in the window (took ${tries})`);
    const link = await askLink();
    const r = await fetch(link);
    assert.equal(r.status, 429, 'even a good link, until the window ends');
    assert.ok(Number(r.headers.get('retry-after')) > 0);
  });
});
