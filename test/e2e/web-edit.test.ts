// Edit and Regenerate in the web chat, in a real headless Chromium against a whole boxbot (the
// gateway's queue and policy, the agent, the LLM emulator, the store), driven from the keyboard:
// Regenerate runs the last message again and Edit runs it changed, each in place of the last turn,
// whose old answer leaves the page, the model's next request and the stored history alike; a
// reload draws the same page; a message that is not the last cannot be replaced.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import type { Message } from '../../src/agent/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';
import { browserMissing, connected as connectedOn, launchChromium, waitText as waitTextOn } from './browser.ts';

const missing = browserMissing();
if (missing) test(`web chat edit and regenerate in a browser: skipped: ${missing}`, { skip: missing }, () => {});

describe('web chat Edit and Regenerate, in Chromium', { skip: missing }, () => {
  let bot: RestartableBoxbot;
  let browser: Browser;
  let page: Page;

  before(async () => {
    bot = await bootBoxbot({});
    browser = await launchChromium();
    page = await browser.newPage();
    await page.evaluateOnNewDocument('globalThis.__name = (f) => f;');
    await page.goto(`${bot.app.url}/`);
    await connected();
  });
  after(async () => {
    await browser?.close();
    await bot?.close();
  });

  const connected = () => connectedOn(page);
  const waitText = (selector: string, text: string) => waitTextOn(page, selector, text);
  const texts = (selector: string) => page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
  /** The conversation's stored history, as role: text lines. */
  const stored = async () => {
    const session = await page.evaluate(() => sessionStorage.getItem('boxbot.session'));
    const c = await bot.app.store.conversations.get(`web:${session}`);
    return (c?.messages ?? []).map(
      (m: Message) => `${m.role}: ${m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')}`,
    );
  };
  /** What the model was sent last, as role: text lines. */
  const asked = () =>
    (bot.llm.requests.at(-1)!.body.messages as { role: string; content: unknown }[])
      .filter((m) => m.role !== 'system')
      .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);

  test('Regenerate, from the keyboard, runs the last message again in place of its turn', async () => {
    bot.llm.script([llm.say('Lyon is the capital.')]);
    await page.type('#t', 'capital of France?');
    await page.keyboard.press('Enter');
    await waitText('.bot', 'Lyon is the capital.');
    await bot.app.gateway.idle();
    await page.waitForSelector('.turn-actions button.regenerate');
    assert.equal(
      await page.$eval('.turn-actions', (e) => e.getAttribute('aria-label')),
      'Your last message',
      'a labelled toolbar',
    );

    bot.llm.script([llm.say('Paris.')]);
    await page.focus('.turn-actions button.regenerate');
    await page.keyboard.press('Enter');
    await waitText('.bot', 'Paris.');
    await bot.app.gateway.idle();
    assert.deepEqual(asked(), ['user: capital of France?'], 'the old turn is not sent to the model');
    assert.deepEqual(await texts('.me'), ['capital of France?']);
    assert.deepEqual(await texts('.bot'), ['Paris.'], 'the old answer left the page');
    assert.deepEqual(await stored(), ['user: capital of France?', 'assistant: Paris.'], 'and the stored history');
    bot.llm.assertDone();
  });

  test('Edit, from the keyboard, puts the message in the box; Enter runs it changed in place of the turn', async () => {
    await page.focus('.turn-actions button.edit');
    await page.keyboard.press('Enter');
    assert.equal(await page.$eval('#t', (e) => (e as HTMLTextAreaElement).value), 'capital of France?');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 't', 'the box has the focus');
    assert.match(await page.$eval('#editing', (e) => e.textContent ?? ''), /Escape cancels/);
    // Escape cancels; Edit again, then the changed text.
    await page.keyboard.press('Escape');
    assert.equal(await page.$eval('#editing', (e) => e.textContent), '');
    await page.focus('.turn-actions button.edit');
    await page.keyboard.press('Enter');
    await page.$eval('#t', (e) => {
      (e as HTMLTextAreaElement).value = '';
    });
    bot.llm.script([llm.say('Madrid.')]);
    await page.type('#t', 'capital of Spain?');
    await page.keyboard.press('Enter');
    await waitText('.bot', 'Madrid.');
    await bot.app.gateway.idle();
    assert.deepEqual(asked(), ['user: capital of Spain?'], 'the model sees only the edited message');
    assert.deepEqual(await texts('.me'), ['capital of Spain?']);
    assert.deepEqual(await texts('.bot'), ['Madrid.']);
    assert.deepEqual(await stored(), ['user: capital of Spain?', 'assistant: Madrid.']);

    // The next message is a turn of its own after the edited one.
    bot.llm.script([llm.say('About 3.3 million.')]);
    await page.type('#t', 'how many people live there?');
    await page.keyboard.press('Enter');
    await waitText('.bot', 'About 3.3 million.');
    await bot.app.gateway.idle();
    assert.deepEqual(asked(), ['user: capital of Spain?', 'assistant: Madrid.', 'user: how many people live there?']);
    bot.llm.assertDone();
  });

  test('a reload draws the same page; an earlier message cannot be replaced', async () => {
    const shown = () => page.$$eval('#log > *', (els) => els.map((e) => `${e.className}: ${e.textContent}`));
    const live = await shown();
    await page.reload();
    await connected();
    await waitText('.bot', 'About 3.3 million.');
    assert.deepEqual(await shown(), live);
    const first = await page.$eval('.me', (e) => (e as HTMLElement).dataset.id);
    const status = await page.evaluate(async (replaces) => {
      const boot = JSON.parse(document.getElementById('boot')!.textContent!);
      const session = sessionStorage.getItem('boxbot.session');
      const r = await fetch('chat/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-boxbot-token': boot.TOKEN },
        body: JSON.stringify({ session, text: 'sneaky', id: 'replace-0001', replaces }),
      });
      return r.status;
    }, first);
    assert.equal(status, 409);
    assert.deepEqual(await stored(), [
      'user: capital of Spain?',
      'assistant: Madrid.',
      'user: how many people live there?',
      'assistant: About 3.3 million.',
    ]);
  });
});
