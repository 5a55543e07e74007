// The web chat page in a real headless Chromium, against the web adapter alone (a recording sink
// instead of the gateway): Markdown, the copy button, buttons and presses, commands, files,
// accessibility (labels, landmarks, computed contrast), the favicon, and layout at desktop and
// phone sizes (screenshots saved under test-results/, facts asserted rather than pixels).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, ElementHandle, Page, Viewport } from 'puppeteer-core';
import type { InboundMessage } from '../../src/adapters/index.ts';
import { createWebAdapter, type WebAdapter } from '../../src/adapters/web/index.ts';
import type { HttpServer } from '../../src/gateway/http-server.ts';
import { browserMissing, launchChromium, screenshotDir } from '../e2e/browser.ts';
import { tempDir, waitUntil } from '../helpers.ts';
import { PNG_1X1 } from './contract.ts';
import { serveAdapter } from './web-server.ts';

const missing = browserMissing();
if (missing) test(`web chat in a browser: skipped: ${missing}`, { skip: missing }, () => {});

const MAX_UPLOAD = 64 * 1024;

describe('web chat page in Chromium', { skip: missing }, () => {
  let browser: Browser;
  let server: HttpServer;
  let adapter: WebAdapter;
  const received: InboundMessage[] = [];

  before(async () => {
    adapter = createWebAdapter({ filesDir: tempDir('boxbot-web-files-'), maxUploadBytes: MAX_UPLOAD });
    await adapter.start(async (m) => void received.push(m));
    server = await serveAdapter(adapter);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await adapter?.stop();
    await server?.close();
  });

  /** A fresh browser context (its own cookie) with the page open and connected; its session id too. */
  async function open(viewport: Viewport = { width: 1280, height: 800 }, scheme: 'light' | 'dark' = 'light') {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    // tsx names the functions handed to page.evaluate with a helper the page lacks.
    await page.evaluateOnNewDocument('globalThis.__name = (f) => f;');
    await page.setViewport(viewport);
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => document.getElementById('state')?.textContent === 'connected');
    const session = await page.evaluate(() => sessionStorage.getItem('boxbot.session')!);
    return {
      page,
      session,
      target: { chatId: session, conversationKey: `web:${session}` },
      close: () => context.close(),
    };
  }
  const textOf = (page: Page, selector: string) => page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ''));

  test('Markdown answers render as elements (table, list, heading, code) and raw HTML stays text', async () => {
    const { page, target, close } = await open();
    await adapter.send(
      target,
      '# Plan\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst x = 1;\n```\n\n' +
        '<img src=x onerror="window.pwned=1"> [ok](https://example.com) [bad](javascript:alert(1))',
    );
    await page.waitForSelector('.bot table');
    assert.equal(await page.$eval('.bot h1', (e) => e.textContent), 'Plan');
    assert.deepEqual(await textOf(page, '.bot ul li'), ['one', 'two']);
    assert.deepEqual(await textOf(page, '.bot td'), ['1', '2']);
    assert.equal(await page.$eval('.bot pre code', (e) => e.textContent), 'const x = 1;\n');
    assert.equal(await page.$('.bot img'), null, 'raw HTML is not an element');
    assert.match(await page.$eval('.bot', (e) => e.textContent ?? ''), /<img src=x/);
    assert.deepEqual(
      await page.$$eval('.bot a', (as) => as.map((a) => [a.textContent, a.getAttribute('href'), a.rel])),
      [['ok', 'https://example.com', 'noopener noreferrer']],
      'only the http(s) link became a link',
    );
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    await close();
  });

  test('a code block has a copy button that puts the code on the clipboard', async () => {
    const { page, target, close } = await open();
    await page.browserContext().overridePermissions(server.url, ['clipboard-read', 'clipboard-write']);
    await adapter.send(target, 'Run:\n\n```sh\nnpm start\n```');
    await page.waitForSelector('.bot .code button.copy');
    await page.click('.bot .code button.copy');
    await page.waitForFunction(() => document.querySelector('.bot .code button.copy')?.textContent === 'Copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'npm start\n');
    await close();
  });

  test('buttons: a press reaches the sink as an action, the note shows only there, an edit removes them', async () => {
    const { page, session, target, close } = await open();
    const other = await open();
    const sent = await adapter.send(target, 'Deploy now?', {
      buttons: [
        { id: 'deploy:yes', label: 'Yes', style: 'primary' },
        { id: 'deploy:no', label: 'No' },
      ],
    });
    await page.waitForSelector('.bot .buttons button');
    assert.deepEqual(await textOf(page, '.bot .buttons button'), ['Yes', 'No']);
    const before = received.length;
    await page.click('.bot .buttons button.primary');
    await waitUntil(() => received.length > before, 'the press at the sink', 10_000);
    const press = received.at(-1)!;
    assert.equal(press.text, '');
    assert.equal(press.conversationKey, `web:${session}`);
    assert.deepEqual(press.action, { id: 'deploy:yes', messageId: sent.messageId });

    await adapter.answerPress!(press, 'Deploying…');
    await page.waitForSelector('.note');
    assert.equal(await page.$eval('.note', (e) => e.textContent), 'Deploying…');
    assert.equal(await other.page.$('.note'), null, 'another session sees no note');

    // Another session cannot press this session's button, even knowing its ids.
    const forged = await other.page.evaluate(async (messageId) => {
      const boot = JSON.parse(document.getElementById('boot')!.textContent!);
      const r = await fetch('chat/press', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-boxbot-token': boot.TOKEN },
        body: JSON.stringify({ session: sessionStorage.getItem('boxbot.session'), messageId, button: 'deploy:yes' }),
      });
      return r.status;
    }, sent.messageId);
    assert.equal(forged, 404);
    assert.equal(received.length, before + 1);

    await adapter.edit(target, sent.messageId, 'Deployed.', { buttons: [] });
    await page.waitForFunction(() => document.querySelector('.bot')?.textContent?.includes('Deployed.'));
    assert.equal(await page.$('.bot .buttons'), null, 'an edit with no buttons removes them');
    await close();
    await other.close();
  });

  test('commands from setCommands are offered when typing /', async () => {
    await adapter.setCommands!([
      { name: 'stop', description: 'stop what I am doing' },
      { name: 'model', description: 'choose the model', argument: { name: 'name', description: 'a model' } },
    ]);
    const { page, close } = await open();
    await page.type('#t', '/');
    await page.waitForSelector('#cmds:not([hidden]) li');
    assert.deepEqual(
      await page.$$eval('#cmds li', (lis) =>
        lis.map((li) => [li.firstChild?.textContent, li.querySelector('small')?.textContent]),
      ),
      [
        ['/stop', 'stop what I am doing'],
        ['/model [name]', 'choose the model'],
      ],
    );
    await page.type('#t', 'mo');
    assert.equal((await textOf(page, '#cmds li')).length, 1);
    await page.keyboard.press('Tab');
    assert.equal(await page.$eval('#t', (e) => (e as HTMLTextAreaElement).value), '/model ');
    await close();
  });

  test('files: picked and dropped files reach the sink as attachments; fetchAttachment returns the bytes', async () => {
    const { page, session, close } = await open();
    const dir = tempDir('boxbot-upload-');
    const picked = join(dir, 'notes.txt');
    writeFileSync(picked, 'picked bytes');
    const input = (await page.$('#file')) as ElementHandle<HTMLInputElement>;
    await input!.uploadFile(picked);
    await page.waitForFunction(() => document.getElementById('pending')?.textContent?.includes('notes.txt'));
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped bytes'], 'drop.csv', { type: 'text/csv' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => document.getElementById('pending')?.textContent?.includes('drop.csv'));
    const before = received.length;
    await page.type('#t', 'here are two files');
    await page.keyboard.press('Enter');
    await waitUntil(() => received.length > before, 'the message at the sink', 10_000);
    const msg = received.at(-1)!;
    assert.equal(msg.conversationKey, `web:${session}`);
    assert.deepEqual(
      msg.attachments.map((a) => [a.name, a.mimeType, a.size, a.kind, a.url]),
      [
        ['notes.txt', 'text/plain', 12, 'document', undefined],
        ['drop.csv', 'text/csv', 13, 'document', undefined],
      ],
    );
    const bytes = await Promise.all(
      msg.attachments.map(async (a) =>
        Buffer.from((await adapter.fetchAttachment!(a, { maxBytes: 1000 })).bytes).toString(),
      ),
    );
    assert.deepEqual(bytes, ['picked bytes', 'dropped bytes']);
    await assert.rejects(adapter.fetchAttachment!(msg.attachments[0]!, { maxBytes: 5 }), { code: 'too-large' });
    await close();
  });

  test('Regenerate and Edit send the last message again with its files, in place of its turn', async () => {
    const { page, target, close } = await open();
    const picked = join(tempDir('boxbot-upload-'), 'report.txt');
    writeFileSync(picked, 'quarterly figures');
    const input = (await page.$('#file')) as ElementHandle<HTMLInputElement>;
    await input!.uploadFile(picked);
    await page.waitForFunction(() => document.getElementById('pending')?.textContent?.includes('report.txt'));
    const sent = async (what: string, act: () => Promise<void>) => {
      const before = received.length;
      await act();
      await waitUntil(() => received.length > before, what, 10_000);
      return received.at(-1)!;
    };
    const first = await sent('the message', async () => {
      await page.type('#t', 'sum this up');
      await page.keyboard.press('Enter');
    });
    const names = (m: InboundMessage) => m.attachments.map((a) => a.name);
    assert.deepEqual(names(first), ['report.txt']);
    await adapter.send({ ...target, replyToMessageId: first.messageId! }, 'A short summary.');
    await page.waitForSelector('.turn-actions button.regenerate');

    const again = await sent('the regenerated message', () => page.click('.turn-actions button.regenerate'));
    assert.equal(again.text, 'sum this up');
    assert.deepEqual(names(again), ['report.txt'], 'the file goes with it');
    assert.equal(again.replacesTurn, `${target.conversationKey}:${first.messageId}`);
    const bytes = await adapter.fetchAttachment!(again.attachments[0]!, { maxBytes: 1000 });
    assert.equal(Buffer.from(bytes.bytes).toString(), 'quarterly figures');

    await adapter.send({ ...target, replyToMessageId: again.messageId! }, 'Another summary.');
    await page.waitForSelector('.turn-actions button.edit');
    await page.click('.turn-actions button.edit');
    assert.match(await page.$eval('#editing', (e) => e.textContent ?? ''), /with its file/);
    await page.$eval('#t', (e) => {
      (e as HTMLTextAreaElement).value = '';
    });
    const edited = await sent('the edited message', async () => {
      await page.type('#t', 'sum this up in one line');
      await page.keyboard.press('Enter');
    });
    assert.equal(edited.text, 'sum this up in one line');
    assert.deepEqual(names(edited), ['report.txt']);
    assert.equal(edited.replacesTurn, `${target.conversationKey}:${again.messageId}`);
    await close();
  });

  test('a file over the limit is refused in one line naming the limit, by the page and by the server', async () => {
    const { page, session, close } = await open();
    await page.evaluate((size) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(size)], 'big.bin'));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, MAX_UPLOAD + 1);
    await page.waitForSelector('.note');
    assert.equal(
      await page.$eval('.note', (e) => e.textContent),
      'Not attached: big.bin is larger than the limit of 0.1 MB per file.',
    );
    // The server holds the same line for a client that does not check first.
    const status = await page.evaluate(
      async (s, size) => {
        const boot = JSON.parse(document.getElementById('boot')!.textContent!);
        const r = await fetch(`chat/upload?session=${s}&name=big.bin`, {
          method: 'POST',
          headers: { 'x-boxbot-token': boot.TOKEN },
          body: new Uint8Array(size),
        });
        return [r.status, (await r.json()).error];
      },
      session,
      MAX_UPLOAD + 1,
    );
    assert.deepEqual(status, [413, 'File too large: the limit is 0.1 MB per file.']);
    await close();
  });

  test('sendFile shows a download link that only the session owner can fetch', async () => {
    const { page, target, close } = await open();
    await adapter.sendFile!(target, {
      name: 'report.txt',
      mimeType: 'text/plain',
      bytes: new TextEncoder().encode('the report'),
      caption: 'Your **report**',
    });
    await page.waitForSelector('.bot .file a');
    assert.equal(await page.$eval('.bot strong', (e) => e.textContent), 'report');
    const href = await page.$eval('.bot .file a', (a) => (a as HTMLAnchorElement).href);
    assert.equal(await page.evaluate(async (u) => (await fetch(u)).text(), href), 'the report');
    const other = await open();
    assert.equal(await other.page.evaluate(async (u) => (await fetch(u)).status, href), 403);
    assert.equal((await fetch(href)).status, 403, 'no cookie, no file');
    await other.close();
    await close();
  });

  test('a PNG the bot sends is shown as an image above its link; an SVG only as a link', async () => {
    const { page, target, close } = await open();
    await adapter.sendFile!(target, { name: 'chart.png', mimeType: 'image/png', bytes: PNG_1X1 });
    await adapter.sendFile!(target, {
      name: 'logo.svg',
      mimeType: 'image/svg+xml',
      bytes: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    await page.waitForFunction(() => document.querySelectorAll('.bot .file a').length === 2);
    await page.waitForFunction(() => {
      const img = document.querySelector('.bot .file img') as HTMLImageElement | null;
      return img?.complete && img.naturalWidth > 0;
    });
    const shown = await page.$$eval('.bot .file', (ps) =>
      ps.map((p) => `${p.querySelector('a')!.textContent} ${p.querySelectorAll('img').length}`),
    );
    assert.deepEqual(shown, ['chart.png (1 KB) 1', 'logo.svg (1 KB) 0']);
    await close();
  });

  test('accessibility: labelled input, landmarks, favicon, contrast at least 4.5:1 in light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, target, close } = await open({ width: 1280, height: 800 }, scheme);
      await adapter.send(target, 'Some **bold** text, `code`, a [link](https://example.com).\n\n| x |\n|---|\n| y |', {
        buttons: [{ id: 'b1', label: 'Button' }],
      });
      await adapter.answerPress!({ chatId: target.chatId } as InboundMessage, 'A note');
      await page.evaluate(() => {
        const t = document.getElementById('t') as HTMLTextAreaElement;
        t.value = '';
      });
      await page.waitForSelector('.note');
      const a11y = await page.evaluate(() => ({
        label: (document.getElementById('t') as HTMLTextAreaElement).labels?.[0]?.textContent,
        header: document.querySelectorAll('header').length,
        main: document.querySelectorAll('main').length,
        form: document.querySelector('form')?.getAttribute('aria-label'),
        nav: document.querySelector('nav')?.getAttribute('aria-label'),
        stop: document.getElementById('stop')?.textContent,
        icon: (document.querySelector('link[rel=icon]') as HTMLLinkElement | null)?.href,
      }));
      assert.deepEqual(
        { ...a11y, icon: undefined },
        {
          label: 'Message',
          header: 1,
          main: 1,
          form: 'Send a message',
          nav: 'Conversations',
          stop: 'Stop',
          icon: undefined,
        },
      );
      const icon = await fetch(a11y.icon!);
      assert.equal(icon.status, 200);
      assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      await page.screenshot({ path: join(screenshotDir(), `colours-${scheme}.png`) });
      const worst = await page.evaluate(contrastReport);
      assert.ok(worst.length > 10, 'texts were measured');
      const low = worst.filter((w) => w.ratio < 4.5);
      assert.deepEqual(low, [], `${scheme}: texts under 4.5:1`);
      await close();
    }
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
  ] as const) {
    test(`layout at ${name} size: no sideways overflow, input and send on screen, readable messages`, async () => {
      const { page, target, close } = await open(viewport);
      await page.type('#t', 'A question with a long word: supercalifragilisticexpialidocious-and-more-and-more');
      await page.keyboard.press('Enter');
      await adapter.send(
        target,
        'An answer with a wide table and code:\n\n| column one | column two | column three | column four |\n' +
          '|---|---|---|---|\n| a long cell value | another long value | and another one | the last |\n\n' +
          `\`\`\`\n${'x'.repeat(300)}\n\`\`\``,
      );
      await page.waitForSelector('.bot table');
      await page.screenshot({ path: join(screenshotDir(), `${name}.png`) });
      const facts = await page.evaluate(() => {
        const inView = (id: string) => {
          const r = document.getElementById(id)!.getBoundingClientRect();
          return r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight && r.width > 0;
        };
        const bubbles = Array.from(document.querySelectorAll('.m')).map((m) => {
          const r = m.getBoundingClientRect();
          return { right: r.right, left: r.left, font: Number.parseFloat(getComputedStyle(m).fontSize) };
        });
        return {
          overflow: document.documentElement.scrollWidth - innerWidth,
          input: inView('t'),
          send: inView('send'),
          bubbles,
          width: innerWidth,
          nav: getComputedStyle(document.querySelector('nav')!).display,
        };
      });
      assert.equal(facts.overflow, 0, 'no horizontal scrolling of the page');
      assert.ok(facts.input, 'the input is inside the screen');
      assert.ok(facts.send, 'the send button is inside the screen');
      assert.equal(facts.bubbles.length, 2);
      for (const b of facts.bubbles) {
        assert.ok(b.left >= 0 && b.right <= facts.width, 'a message fits the screen width');
        assert.ok(b.font >= 14, 'message text is at least 14px');
      }
      assert.equal(facts.nav, name === 'phone' ? 'none' : 'block', 'the chat list folds away on a phone');
      await close();
    });
  }
});

/** Every visible text's contrast against the background behind it (alpha composited), computed in the page. */
function contrastReport(): { text: string; ratio: number; color: string; background: string }[] {
  type Rgba = [number, number, number, number];
  const parse = (c: string): Rgba => {
    const n = c.match(/[\d.]+/g)!.map(Number);
    return [n[0]!, n[1]!, n[2]!, n[3] ?? 1];
  };
  const over = (top: Rgba, under: Rgba): Rgba => {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
  };
  const background = (el: Element | null): Rgba => {
    const layers: Rgba[] = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    const canvas: Rgba = matchMedia('(prefers-color-scheme: dark)').matches ? [0, 0, 0, 1] : [255, 255, 255, 1];
    return layers.reduceRight<Rgba>((acc, l) => over(l, acc), canvas);
  };
  const lum = (c: Rgba) => {
    const f = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const out: { text: string; ratio: number; color: string; background: string }[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set<Element>();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent?.trim() || el.closest('script,style,[hidden]')) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
    seen.add(el);
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x) as [number, number];
    out.push({
      text: n.textContent.trim().slice(0, 40),
      ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100,
      color: getComputedStyle(el).color,
      background: `rgb(${bg.slice(0, 3).map(Math.round).join(',')})`,
    });
  }
  return out;
}
