// The web chat in a real headless Chromium against a whole boxbot (the gateway, the agent, the
// LLM emulator, the store): tool calls kept as collapsible entries, the stop button, a tab open
// across a gateway restart, the history restored after it as it was shown, and the conversation list.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { llm } from '../emulators/llm/index.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';
import { browserMissing, freePort, launchChromium, screenshotDir } from './browser.ts';

const missing = browserMissing();
if (missing) test(`web chat end to end in a browser: skipped: ${missing}`, { skip: missing }, () => {});

describe('web chat end to end in Chromium', { skip: missing }, () => {
  let bot: RestartableBoxbot;
  let browser: Browser;
  let page: Page;

  before(async () => {
    bot = await bootBoxbot({ http: { port: await freePort() } });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.evaluateOnNewDocument('globalThis.__name = (f) => f;');
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${bot.app.url}/`);
    await connected();
  });
  after(async () => {
    await browser?.close();
    await bot?.close();
  });

  const connected = () =>
    page.waitForFunction(() => document.getElementById('state')?.textContent === 'connected', { timeout: 30_000 });
  const say = async (text: string) => {
    await page.type('#t', text);
    await page.keyboard.press('Enter');
  };
  const botTexts = () => page.$$eval('.bot', (els) => els.map((e) => e.textContent ?? ''));
  const waitText = (selector: string, text: string) =>
    page.waitForFunction(
      (s, t) => Array.from(document.querySelectorAll(s)).some((e) => e.textContent?.includes(t)),
      { timeout: 30_000 },
      selector,
      text,
    );

  test('a tool call stays in the transcript as a collapsible entry', async () => {
    bot.llm.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'notes/todo.txt', content: 'buy milk' }))]),
      llm.say('Saved **notes/todo.txt**.'),
    ]);
    await say('save "buy milk" to notes/todo.txt');
    await waitText('.bot strong', 'notes/todo.txt');
    await bot.app.gateway.idle();
    const entry = await page.$('.tools details');
    assert.ok(entry, 'a tool entry is shown');
    assert.match(await page.$eval('.tools summary', (e) => e.textContent ?? ''), /notes\/todo\.txt/);
    assert.equal(await page.$eval('.tools details', (d) => (d as HTMLDetailsElement).open), false);
    await page.click('.tools summary');
    assert.equal(await page.$eval('.tools details', (d) => (d as HTMLDetailsElement).open), true, 'it opens');
    assert.notEqual(await page.$eval('.tools details pre', (e) => e.textContent), 'running…', 'it shows how it ended');
    bot.llm.assertDone();
  });

  test('a reload mid-answer shows the run so far, and the stop button stops it', async () => {
    bot.llm.script([llm.answer([llm.text('Thinking about it'), llm.hang()])]);
    await say('write me a novel');
    await waitText('.bot', 'Thinking about it');
    // A reload while it runs still shows the question and the answer so far (not yet in the store).
    await page.reload();
    await connected();
    await waitText('.me', 'write me a novel');
    await waitText('.bot', 'Thinking about it');
    await page.waitForSelector('#stop:not([hidden])');
    await page.click('#stop');
    await waitText('.bot', '(stopped)');
    await bot.app.gateway.idle();
    bot.llm.assertDone();
  });

  test('a tab open across a gateway restart reconnects and keeps working, with its history', async () => {
    const session = await page.evaluate(() => sessionStorage.getItem('boxbot.session'));
    await bot.restart();
    // The page gets a new token from the new process and reloads the stored history by itself.
    await connected();
    await waitText('.me', 'save "buy milk" to notes/todo.txt');
    bot.llm.script([llm.say('Still here.')]);
    await say('are you there?');
    await waitText('.bot', 'Still here.');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('boxbot.session')), session, 'the same conversation');
    const asked = bot.llm.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    assert.ok(
      asked.some((m) => m.role === 'user' && String(m.content).includes('buy milk')),
      'the model got the history',
    );
    await bot.app.gateway.idle();
    bot.llm.assertDone();
  });

  test('after a restart a reloaded page shows the stored history (user, tool entry, answers)', async () => {
    await bot.restart();
    await page.reload();
    await connected();
    await waitText('.bot', 'Still here.');
    assert.deepEqual(await page.$$eval('.me', (els) => els.map((e) => e.textContent)), [
      'save "buy milk" to notes/todo.txt',
      'write me a novel',
      '/stop',
      'are you there?',
    ]);
    assert.ok((await botTexts()).some((t) => t.includes('Saved notes/todo.txt.')));
    assert.match(
      await page.$eval('.tools summary', (e) => e.textContent ?? ''),
      /^editing notes\/todo\.txt…$/,
      'the live label',
    );
    await page.click('.tools summary');
    assert.match(await page.$eval('.tools details pre', (e) => e.textContent ?? ''), /buy milk/);
  });

  test('the conversation list: a new chat, then switching back to the first', async () => {
    const first = await page.evaluate(() => sessionStorage.getItem('boxbot.session'));
    await page.click('#new');
    await connected();
    assert.equal(await page.$('.m'), null, 'a new chat starts empty');
    bot.llm.script([llm.say('Hello in chat two.')]);
    await say('second chat here');
    await waitText('.bot', 'Hello in chat two.');
    await bot.app.gateway.idle();
    await waitText('#sessions button', 'second chat here');
    await waitText('#sessions button', 'save "buy milk"');
    assert.equal(await page.$eval('#sessions button[aria-current=true]', (b) => b.textContent), 'second chat here');
    const buttons = await page.$$('#sessions button');
    for (const b of buttons)
      if ((await b.evaluate((e) => e.textContent ?? '')).startsWith('save "buy milk"')) await b.click();
    await waitText('.bot', 'Still here.');
    await page.screenshot({ path: join(screenshotDir(), 'conversation-list.png') });
    assert.equal(await page.$eval('#stop', (b) => (b as HTMLButtonElement).hidden), true, 'nothing runs in this chat');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('boxbot.session')), first);
    assert.ok(!(await botTexts()).some((t) => t.includes('Hello in chat two.')), 'only the first chat is shown');
    bot.llm.assertDone();
  });
});
