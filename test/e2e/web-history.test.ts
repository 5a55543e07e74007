// The web chat's history is what was shown live, in real headless Chromium against a whole boxbot
// (the gateway, the agent, the LLM emulator, the store): a chat with a tool call, a file, /whoami,
// a stopped answer and a model error is drawn the same, in the same order, after a reload, after a
// gateway restart, and in a fresh browser profile signed in as the same user.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { issueLoginLink } from '../../src/adapters/web/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';
import { browserMissing, connected, freePort, launchChromium, openSignIn, say, waitText } from './browser.ts';

const missing = browserMissing();
if (missing) test(`web chat history in a browser: skipped: ${missing}`, { skip: missing }, () => {});

describe('web chat history equals what was shown live, in Chromium', { skip: missing }, () => {
  let bot: RestartableBoxbot;
  let browser: Browser;

  before(async () => {
    bot = await bootBoxbot({ http: { port: await freePort() } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await bot?.close();
  });

  /** A browser profile signed in as `who` (web:ana unless said) through a one-time link. */
  const signIn = async (ctx: BrowserContext, who: `web:${string}` = 'web:ana'): Promise<Page> => {
    const { url } = await issueLoginLink(bot.app.store.webSessions, who, bot.app.url);
    const p = await openSignIn(ctx, url);
    await connected(p);
    return p;
  };
  /** Everything in the chat's log, in order: each entry's kind and text (tool entries with labels and inputs). */
  const shown = (p: Page) =>
    p.$$eval('#log > *', (els) =>
      els.map((e) => {
        const links = Array.from(e.querySelectorAll('a[download]')).map((a) => ` [link ${a.getAttribute('download')}]`);
        return `${e.className}: ${e.textContent}${links.join('')}`;
      }),
    );

  test('tool call, file, /whoami, a stopped answer and a model error come back as shown', async () => {
    const ctx = await browser.createBrowserContext();
    const page = await signIn(ctx);
    bot.llm.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'out/report.csv', content: 'a,b\n1,2\n' }))]),
      llm.answer([llm.toolCalls(llm.call('send_file', { path: '/out/report.csv', caption: 'The report' }))]),
      llm.say('Here is the report.'),
    ]);
    await say(page, 'make me a report');
    await waitText(page, '.bot', 'Here is the report.');
    await bot.app.gateway.idle();
    await say(page, '/whoami');
    await waitText(page, '.bot', 'You are web:ana');
    bot.llm.script([llm.answer([llm.text('Thinking about it'), llm.hang()])]);
    await say(page, 'write me a novel');
    await waitText(page, '.bot', 'Thinking about it');
    await page.waitForSelector('#stop:not([hidden])');
    await page.click('#stop');
    await waitText(page, '.bot', '(stopped)');
    await bot.app.gateway.idle();
    bot.llm.script([llm.fail(400, { errorType: 'invalid_request_error', message: 'context too long' })]);
    await say(page, 'this one fails');
    await waitText(page, '.bot', 'context too long');
    await bot.app.gateway.idle();
    bot.llm.assertDone();

    const live = await shown(page);
    const joined = live.join('\n');
    for (const part of ['[link report.csv]', 'The report', 'You are web:ana', '(stopped)', 'context too long'])
      assert.ok(joined.includes(part), `live shows ${part}: ${joined}`);
    const error = live.find((l) => l.includes('context too long'))!;
    assert.match(error, /^m bot error: Model error.*openai.*400.*context too long.*Retry$/s, 'a distinct error bubble');
    const at = (end: string) => live.findIndex((l) => l.endsWith(`: ${end}`));
    assert.ok(at('write me a novel') < at('/stop') && at('/stop') < at('this one fails'), `/stop in place: ${joined}`);
    assert.match(
      joined,
      /tools: editing out\/report\.csv…input: [^…]*a,b[\s\S]*write done[\s\S]*send_file: \/out\/report\.csv…input: /,
      `both tool entries, labelled, with their input, in order: ${joined}`,
    );
    assert.match(
      joined,
      /write done[^\n]*\n\noutput: Created out\/report\.csv/,
      `the write entry expands to its output too: ${joined}`,
    );
    assert.ok(
      await page.$$eval('.tools pre.untrusted', (els) => els.length >= 2),
      'outputs are marked as untrusted text',
    );

    await page.reload();
    await connected(page);
    await waitText(page, '.bot', 'context too long');
    assert.deepEqual(await shown(page), live, 'after a reload');

    await bot.restart();
    await page.reload();
    await connected(page);
    await waitText(page, '.bot', 'context too long');
    assert.deepEqual(await shown(page), live, 'after a gateway restart');

    const fresh = await browser.createBrowserContext();
    try {
      const other = await signIn(fresh);
      await waitText(other, '#sessions button', 'make me a report');
      await other.$$eval('#sessions button', (bs) =>
        (bs as HTMLButtonElement[]).find((b) => b.textContent?.includes('make me a report'))?.click(),
      );
      await waitText(other, '.bot', 'context too long');
      assert.deepEqual(await shown(other), live, 'in a fresh browser profile signed in as the same user');
      const href = await other.$eval('a[download]', (a) => (a as HTMLAnchorElement).href);
      const got = await other.evaluate(async (u) => (await fetch(u)).text(), href);
      assert.equal(got, 'a,b\n1,2\n', 'the file link still downloads the file');
    } finally {
      await fresh.close();
      await ctx.close();
    }
  });

  test('Retry under a model error sends the message again; after a reload the error is still one', async () => {
    const ctx = await browser.createBrowserContext();
    try {
      const page = await signIn(ctx);
      bot.llm.script([llm.fail(400, { errorType: 'invalid_request_error', message: 'bad request body' })]);
      await say(page, 'tell me a joke');
      await waitText(page, '.bot.error', 'bad request body');
      await bot.app.gateway.idle();
      assert.equal(await page.$eval('.bot.error', (e) => e.getAttribute('role')), 'alert');
      assert.match(await page.$eval('.bot.error', (e) => e.textContent ?? ''), /openai: the API answered 400/);
      bot.llm.script([llm.say('Why did the chicken cross the road?')]);
      await page.click('.bot.error button.retry');
      await waitText(page, '.bot', 'Why did the chicken');
      await bot.app.gateway.idle();
      const asked = bot.llm.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
      assert.match(JSON.stringify(asked.at(-1)), /tell me a joke/, 'the model got the message again');
      const before = await shown(page);
      assert.equal(before.filter((l) => l === 'm me: tell me a joke').length, 2, 'the retry is a message of its own');
      await page.reload();
      await connected(page);
      await waitText(page, '.bot', 'Why did the chicken');
      assert.deepEqual(await shown(page), before);
      assert.ok(await page.$('.bot.error button.retry'), 'the error keeps its Retry');
      bot.llm.assertDone();
    } finally {
      await ctx.close();
    }
  });

  test("search finds one's own chats only, with an excerpt, and opens the chat found", async () => {
    const bobs = await browser.createBrowserContext();
    const anas = await browser.createBrowserContext();
    try {
      const bob = await signIn(bobs, 'web:bob');
      bot.llm.script([llm.say('Boil the chicken for an hour.')]);
      await say(bob, 'a chicken soup recipe please');
      await waitText(bob, '.bot', 'Boil the chicken');
      await bot.app.gateway.idle();
      const ana = await signIn(anas);
      await ana.type('#search', 'chicken');
      await waitText(ana, '#sessions button', 'Why did the chicken');
      const hits = await ana.$$eval('#sessions button', (bs) => bs.map((b) => b.textContent ?? ''));
      assert.equal(hits.length, 1, `only her chat: ${JSON.stringify(hits)}`);
      assert.match(hits[0]!, /^tell me a joke.*Why did the chicken cross the road\?/);
      await ana.click('#sessions button');
      await waitText(ana, '.bot', 'Why did the chicken');
      assert.equal(await ana.$eval('#search', (e) => (e as HTMLInputElement).value), '');
      await ana.type('#search', 'zebra');
      await waitText(ana, '#sessions li', 'No chat matches.');
      bot.llm.assertDone();
    } finally {
      await bobs.close();
      await anas.close();
    }
  });
});
