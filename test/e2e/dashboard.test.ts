// The dashboard (/admin) in a real headless Chromium against a whole boxbot (gateway, agent, LLM
// emulator, store), its data made through the real paths (the web chat, the store, the jobs API
// the page itself calls): sign in with the token, then every page as an admin sees and uses it,
// each checked by axe-core (no serious or critical violation) and for CSP violations; a
// question approved on the web lets the chat's run go on; a job run from the page logs its run.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { workspaceOf } from '../../src/runner/index.ts';
import { llm } from '../emulators/llm/index.ts';
import { root, waitUntil } from '../helpers.ts';
import { bootBoxbot, type RestartableBoxbot } from './boot.ts';
import { browserMissing, launchChromium } from './browser.ts';
import { WebChatClient } from './harness.ts';

const TOKEN = 'dashboard-e2e-token-5f2c9a';
const missing = browserMissing();
if (missing) test(`dashboard in a browser: skipped: ${missing}`, { skip: missing }, () => {});

describe('the dashboard in Chromium', { skip: missing }, () => {
  let bot: RestartableBoxbot;
  let browser: Browser;
  let page: Page;
  let chat: WebChatClient;
  const axeSource = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

  before(async () => {
    // `npm run build` makes the bundle; one missing, or older than a source under ui/admin, is built here.
    const bundle = join(root, 'dist', 'admin', 'app.js');
    const sources = readdirSync(join(root, 'ui', 'admin')).map((f) => statSync(join(root, 'ui', 'admin', f)).mtimeMs);
    if (!existsSync(bundle) || statSync(bundle).mtimeMs < Math.max(...sources))
      execFileSync(process.execPath, [join(root, 'scripts', 'build-dashboard.js')], { stdio: 'inherit' });
    bot = await bootBoxbot(
      {
        channels: {
          web: {
            enabled: true,
            access: 'full',
            approvals: { tools: ['write'], approvers: 'requester' },
            // Far above what the emulator's calls cost: the Usage page's bars, never a refusal.
            budget: { conversationUsdPerDay: 5, userUsdPerDay: 3 },
          },
        },
      },
      { BOXBOT_ADMIN_TOKEN: TOKEN },
    );
    chat = await WebChatClient.open(bot.app.url);
    browser = await launchChromium();
    page = await browser.newPage();
    await page.evaluateOnNewDocument(`
      globalThis.__name = (f) => f;
      globalThis.__csp = [];
      addEventListener('securitypolicyviolation', (e) =>
        globalThis.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
    `);
    page.on('dialog', (d) => void d.accept());
    await page.setViewport({ width: 1280, height: 900 });
  });
  after(async () => {
    chat?.close();
    await browser?.close();
    await bot?.close();
  });

  // innerText, not textContent: the text as a user sees it (hidden parts left out, blocks on their own lines);
  // biome.json turns off its textContent rule for test/e2e for this reason.
  const textOf = () => page.$eval('body', (b) => (b as HTMLElement).innerText);
  const waitText = (text: string) =>
    page.waitForFunction((t) => document.body.innerText.includes(t), { timeout: 30_000 }, text);
  const open = async (id: string, heading: string) => {
    await page.click(`nav a[href="#/${id}"]`);
    await page.waitForFunction(
      (h) => document.querySelector('main h1')?.textContent === h,
      { timeout: 30_000 },
      heading,
    );
  };
  /** axe-core's serious and critical violations, and the CSP violations so far, must both be none. */
  const clean = async (what: string) => {
    await page.evaluate(axeSource);
    const found = (await page.evaluate(async () => {
      const r = await (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe.run();
      return r.violations;
    })) as { id: string; impact: string; nodes: { target: string[] }[] }[];
    const bad = found
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    assert.deepEqual(bad, [], `${what}: axe-core`);
    assert.deepEqual(
      await page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp),
      [],
      `${what}: CSP`,
    );
  };

  test('sign-in: a wrong token is refused, the right one opens the overview', async () => {
    await page.goto(`${bot.app.url}/admin`);
    await page.waitForSelector('#token');
    await clean('sign-in');
    await page.type('#token', 'wrong-token');
    await page.click('button[type=submit]');
    await page.waitForSelector('[role=alert]');
    assert.match(await page.$eval('[role=alert]', (e) => e.textContent ?? ''), /wrong admin token/);
    await page.$eval('#token', (e) => {
      (e as HTMLInputElement).value = '';
    });
    await page.type('#token', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Overview', {
      timeout: 30_000,
    });
    const cookies = await browser.cookies();
    const session = cookies.find((c) => c.name === 'boxbot_admin')!;
    assert.ok(session.httpOnly && session.sameSite === 'Strict', 'an HttpOnly SameSite=Strict session cookie');
    assert.notEqual(session.value, TOKEN);
    assert.equal(await page.evaluate(() => document.cookie), '', 'the page cannot read the session cookie');
    await waitText('Runs in flight'); // the overview's figures arrive after its heading
    const text = await textOf();
    assert.match(text, /Model\s+openai\/gpt-4o-mini/);
    assert.match(text, /web\s+up/);
    assert.match(text, /Runs in flight\s+0/);
    await clean('overview');
  });

  test('approvals: the exact call waits on the page; approving it there lets the chat run go on', async () => {
    bot.llm.script([
      llm.answer([llm.toolCalls(llm.call('write', { file_path: 'notes/plan.txt', content: 'ship it' }))]),
      llm.say('Saved the plan after your approval.'),
    ]);
    assert.equal(await chat.say('save the plan to notes/plan.txt'), 202);
    await waitUntil(async () => (await bot.app.store.approvals.pending()).length === 1, 'the question', 60_000);
    await open('approvals', 'Approvals');
    await waitText('write in web:');
    assert.match(await page.$eval('.approval pre', (e) => e.textContent ?? ''), /"file_path": "notes\/plan\.txt"/);
    await clean('approvals');
    await page.click('.approval button:not(.danger)');
    await waitText('Approved: write runs once.');
    await waitUntil(() => chat.messages().includes('Saved the plan after your approval.'), 'the answer', 60_000);
    const file = join(workspaceOf(join(bot.dataDir, 'workspaces'), `web:${chat.session}`), 'notes', 'plan.txt');
    assert.equal(readFileSync(file, 'utf8'), 'ship it');
    await waitText('Nothing waits for a decision.');
    assert.match(await textOf(), /write\s+web:\S+\s+approved\s+dashboard:admin token \(session\)/);
    await bot.app.gateway.idle();
    bot.llm.assertDone();
  });

  test('conversations: a search finds the chat, and its transcript opens read-only', async () => {
    await open('conversations', 'Conversations');
    await page.type('#q', 'the plan');
    await page.click('form[role=search] button');
    await waitText('1 conversation');
    await page.click('td button.link');
    await page.waitForSelector('.transcript li');
    const transcript = await page.$eval('.transcript', (e) => (e as HTMLElement).innerText);
    assert.match(transcript, /save the plan to notes\/plan\.txt/);
    assert.match(transcript, /Saved the plan after your approval\./);
    assert.equal(await page.$('.transcript input, .transcript textarea'), null, 'nothing to edit');
    await clean('conversations');
  });

  test('jobs: create, run now (its run log with cost), edit, disable, delete', async () => {
    await open('jobs', 'Jobs');
    await page.click('main > button');
    await page.type('#job-name', 'daily-digest');
    await page.$eval('#job-cron', (e) => {
      (e as HTMLInputElement).value = '';
    });
    await page.type('#job-cron', '0 9 * * *');
    await page.type('#job-prompt', 'Summarise the day');
    await page.type('#job-target', `web:${chat.session}`);
    await clean('jobs form');
    await page.click('.job-form button[type=submit]');
    await waitText('daily-digest');
    const job = (await bot.app.store.jobs.list()).find((j) => j.name === 'daily-digest')!;
    assert.equal(job.cron, '0 9 * * *');
    assert.match(await textOf(), /daily-digest\s+0 9 \* \* \*\s+web:\S+\s+\d{4}-\d{2}-\d{2} 09:00/);
    bot.llm.script([llm.say('Today: one plan shipped.')]);
    await page.click('button[aria-label="Run now: daily-digest"]');
    await waitText('Runs of daily-digest');
    await page.waitForFunction(() => document.querySelector('.logs tbody tr') !== null, { timeout: 60_000 });
    assert.match(await page.$eval('.logs tbody', (e) => (e as HTMLElement).innerText), /final\s+\d+\s+\$\d+\.\d{4}/);
    await waitUntil(() => chat.messages().includes('Today: one plan shipped.'), 'the job posted to its target', 60_000);
    await clean('jobs');
    await page.click('button[aria-label="Edit daily-digest"]');
    await page.$eval('#job-name', (e) => {
      (e as HTMLInputElement).value = '';
    });
    await page.type('#job-name', 'morning-digest');
    await page.click('.job-form button[type=submit]');
    await waitText('morning-digest');
    await page.click('button[aria-label="Disable morning-digest"]');
    await waitText('morning-digest disabled');
    assert.equal((await bot.app.store.jobs.get(job.id))?.enabled, false);
    // The list is read again after the change: wait for it rather than for the note above it.
    await page.waitForFunction(
      () => /morning-digest\s+0 9 \* \* \*\s+web:\S+\s+disabled/.test(document.body.innerText),
      { timeout: 30_000 },
    );
    await page.click('button[aria-label="Delete morning-digest"]');
    await waitText('morning-digest deleted');
    assert.equal(await bot.app.store.jobs.get(job.id), undefined);
    bot.llm.assertDone();
  });

  test('usage: charts and tables per day by channel, user and model, spending per conversation, today', async () => {
    await open('usage', 'Usage');
    await page.waitForSelector('.chart canvas');
    assert.equal((await page.$$('.chart canvas')).length, 6, 'a cost chart and a token chart per breakdown');
    const labels = await page.$$eval('.chart', (els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    const user = `web:${chat.session.slice(0, chat.session.lastIndexOf('-'))}`;
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const [channelCost, channelTokens, userCost, userTokens, modelCost, modelTokens] = labels;
    assert.match(channelCost!, /^Cost per day by channel \(USD\), totals over 14 days: web: \$\d+\.\d{4}$/);
    assert.match(channelTokens!, /^Tokens per day by channel, totals over 14 days: web: [1-9]\d*$/, 'tokens used');
    assert.match(userCost!, new RegExp(`^Cost per day by user \\(USD\\), totals over 14 days: ${esc(user)}: \\$`));
    assert.match(userTokens!, new RegExp(`^Tokens per day by user, totals over 14 days: ${esc(user)}: [1-9]\\d*$`));
    assert.match(modelCost!, /^Cost per day by model \(USD\), totals over 14 days: openai\/gpt-4o-mini: \$0\.\d{4}$/);
    assert.match(modelTokens!, /^Tokens per day by model, totals over 14 days: openai\/gpt-4o-mini: [1-9]\d*$/);
    // The same figures as tables: a row per user and per model with cost, input and output tokens, calls.
    const rows = (id: string) =>
      page.$$eval(`table[data-breakdown="${id}"] tbody tr`, (trs) =>
        trs.map((tr) => Array.from(tr.children, (c) => (c.textContent ?? '').trim())),
      );
    const [userRow] = await rows('by-user');
    assert.equal(userRow![0], user);
    const [modelRow] = await rows('by-model');
    assert.equal(modelRow![0], 'openai/gpt-4o-mini');
    assert.match(modelRow![1]!, /^\$0\.\d{4}$/);
    assert.ok(Number(modelRow![2]) > 0 && Number(modelRow![3]) > 0 && Number(modelRow![4]) >= 1, String(modelRow));
    // The chat's calls are the user's; the job run from the Jobs page called the same model for nobody.
    const [channelRow] = await rows('by-channel');
    assert.deepEqual(channelRow!.slice(1), modelRow!.slice(1), 'one channel, one model: the same calls');
    assert.equal(Number(modelRow![4]), Number(userRow![4]) + 1, 'the job’s one call counts for no user');
    assert.match(await textOf(), new RegExp(`web:${chat.session}\\s+\\$0\\.\\d{4}\\s+[1-9]\\d*`));
    assert.match(
      await textOf(),
      /Spent today \(\d{4}-\d{2}-\d{2}\): \$0\.\d{4}, [1-9]\d* tokens in [1-9]\d* model calls/,
    );
    // Budgets and today's spend: the web channel's budget for the chat and the person's, each the
    // calls' real cost against its limit, as a figure and as a meter; a job's cap per run.
    const budgets = await page.$$eval('table[data-budgets] tbody tr', (trs) =>
      trs.map((tr) => ({
        cells: Array.from(tr.children, (c) => (c.textContent ?? '').trim()),
        meter: Number(tr.querySelector('meter')?.value),
        label: tr.querySelector('meter')?.getAttribute('aria-label') ?? '',
      })),
    );
    const row = (who: string) => budgets.find((b) => b.cells[1] === who);
    const personal = row(`Person: ${user}`)!;
    assert.equal(personal.cells[0], 'channels.web.budget');
    assert.equal(personal.cells[2], `${userRow![1]} of $3.0000 per day`, 'the person’s real spend against 3 USD');
    // The emulator's calls cost a few millionths of a dollar: the meter holds the exact share (the figure rounds).
    assert.ok(personal.meter > 0 && personal.meter < 1e-3, `meter ${personal.meter}`);
    assert.equal(personal.label, `channels.web.budget, ${user}: ${personal.cells[2]}`);
    const convRow = (await textOf()).match(new RegExp(`web:${esc(chat.session)}\\s+(\\$0\\.\\d{4})`))!;
    const channel = row(`Channel: web:${chat.session}`)!;
    assert.equal(channel.cells[2], `${convRow[1]} of $5.0000 per day`, 'the chat’s spend against 5 USD');
    assert.ok(channel.meter > 0 && channel.meter < 1e-3, `meter ${channel.meter}`);
    assert.equal(channel.cells[3], '0%');
    await clean('usage');
  });

  test('tools and policy: the tools with levels, and the policy of the chat user in the chat', async () => {
    await open('tools', 'Tools and policy');
    await waitText('write');
    assert.match(await textOf(), /write\s+Write/);
    await page.type('#pol-user', `web:${chat.session.slice(0, chat.session.lastIndexOf('-'))}`);
    await page.type('#pol-conv', `web:${chat.session}`);
    await page.click('#pol-conv ~ button');
    await page.waitForSelector('.permitted');
    assert.match(await page.$eval('.permitted', (e) => e.textContent ?? ''), /write: permitted/);
    assert.match(await page.$eval('main pre', (e) => e.textContent ?? ''), /"access": "full"/);
    await clean('tools');
  });

  test('memory: a user note is listed and deleted from the page', async () => {
    const scope = { kind: 'user' as const, userKey: 'telegram:4242' };
    await bot.app.store.memories.add({
      id: 'm-1',
      scope,
      text: 'prefers short answers',
      createdAt: new Date().toISOString(),
    });
    await open('memory', 'Memory');
    await page.select('#kind', 'user');
    await page.type('#scope', 'telegram:4242');
    await page.click('main form button[type=submit]');
    await waitText('prefers short answers');
    await clean('memory');
    await page.click('button[aria-label="Delete note m-1"]');
    await waitText('0 notes');
    assert.deepEqual(await bot.app.store.memories.list(scope), []);
  });

  test('config: the effective config, secrets shown as set but never their values', async () => {
    await open('config', 'Config');
    await waitText('BOXBOT_ADMIN_TOKEN');
    const text = await textOf();
    assert.match(text, /BOXBOT_ADMIN_TOKEN\s+set/);
    assert.match(text, /OPENAI_API_KEY\s+set/);
    assert.ok(!text.includes(TOKEN) && !text.includes('sk-test-e2e'), 'no secret value on the page');
    assert.match(text, /"model": "openai\/gpt-4o-mini"/);
    await clean('config');
  });

  test('at 375 px every page fits without sideways scrolling, and the keyboard reaches the content', async () => {
    await page.setViewport({ width: 375, height: 800 });
    for (const [id, heading] of [
      ['overview', 'Overview'],
      ['conversations', 'Conversations'],
      ['jobs', 'Jobs'],
      ['usage', 'Usage'],
      ['approvals', 'Approvals'],
      ['tools', 'Tools and policy'],
      ['memory', 'Memory'],
      ['config', 'Config'],
    ] as const) {
      await open(id, heading);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 375, `${heading} is ${wide} px wide at 375`);
    }
    await page.reload();
    await page.waitForSelector('nav');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    await page.keyboard.press('Tab');
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest('main') !== null),
      'the next Tab lands inside the content',
    );
    await page.setViewport({ width: 1280, height: 900 });
  });

  test('signing out ends the session: the API refuses the old cookie', async () => {
    const before = (await browser.cookies()).find((c) => c.name === 'boxbot_admin')!.value;
    await page.click('header button');
    await page.waitForSelector('#token');
    const res = await fetch(`${bot.app.url}/admin/api/overview`, { headers: { cookie: `boxbot_admin=${before}` } });
    assert.equal(res.status, 401);
  });
});
