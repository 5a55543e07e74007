// Renderers on long runs of one Markdown character (inputs the fuzz run found): each must answer
// in about linear time. A quadratic renderer blocks the gateway's event loop for minutes on a
// model answer of 100,000 characters, so each case runs in a child process that is killed
// after 30 s (linear work takes a second or two; the old quadratic code, minutes).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compiledSrc } from '../compiled-src.ts';
import { root } from '../helpers.ts';

/**
 * A renderer module of the compiled copy of src/: the child loads plain modules instead of registering
 * tsx (its start took 0.5-0.7 s of CPU through tsx, 0.15-0.2 s compiled; the renders take 1-2 s).
 */
const compiled = (file: string): string => JSON.stringify(pathToFileURL(join(compiledSrc(), file)).href);

/** Runs `call` (over `md`, the value of the expression `input`, renderers imported) in a child, to its end. */
function finishes(input: string, call: string): void {
  const script = `
    import { markdownToTelegramHtml, telegramRenderedLength } from ${compiled('adapters/telegram/format.js')};
    import { toSlackMrkdwn } from ${compiled('adapters/slack/format.js')};
    import { toDiscordMarkdown } from ${compiled('adapters/discord/format.js')};
    const md = ${input};
    ${call};`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
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
