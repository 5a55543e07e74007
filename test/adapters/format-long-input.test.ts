// Renderers on long runs of one Markdown character (inputs the fuzz run found): each must answer
// in about linear time. A quadratic renderer blocks the gateway's event loop for minutes on a
// model answer of 100,000 characters, so each case runs in a child process that is killed
// after 30 s (linear work takes a second or two; the old quadratic code, minutes).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { root } from '../helpers.ts';

/** Runs `call` (over `md`, the value of the expression `input`, renderers imported) in a child, to its end. */
function finishes(input: string, call: string): void {
  const script = `
    import { markdownToTelegramHtml, telegramRenderedLength } from './src/adapters/telegram/format.ts';
    import { toSlackMrkdwn } from './src/adapters/slack/format.ts';
    import { toDiscordMarkdown } from './src/adapters/discord/format.ts';
    const md = ${input};
    ${call};`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    timeout: 30_000,
    encoding: 'utf8',
  });
  assert.equal(r.signal, null, 'still rendering after 30 s');
  assert.equal(r.status, 0, r.stderr);
}

test('a line of 300,000 "[" renders for Telegram without scanning to its end from every "["', () => {
  finishes(`'['.repeat(300_000)`, 'markdownToTelegramHtml(md); telegramRenderedLength(md)');
});

test('a line of 300,000 "[" renders for Slack without scanning to its end from every "["', () => {
  finishes(`'['.repeat(300_000)`, 'toSlackMrkdwn(md)');
});

test('300,000 characters of "__*  " (bold openers without a closer) render for Slack in linear time', () => {
  finishes(`'__*  '.repeat(60_000)`, 'toSlackMrkdwn(md)');
});

test('300,000 characters of "](> *" (emphasis openers without a closer) render for Telegram', () => {
  finishes(`'](> *'.repeat(60_000)`, 'markdownToTelegramHtml(md); telegramRenderedLength(md)');
});
