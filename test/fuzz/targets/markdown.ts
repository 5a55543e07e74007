// Fuzz targets: what turns a model's Markdown into each platform's markup, and the chunker that
// fits it into messages. The model writes whatever a prompt (or a web page it read) steers it to,
// so these parse outside input too. Telegram's HTML must stay balanced with every `<` escaped
// (Telegram refuses the message otherwise); chunks must fit the platform's limit.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toDiscordMarkdown } from '../../../src/adapters/discord/format.ts';
import { hasMarkdownTable, layoutMarkdownTable, readMarkdownTable } from '../../../src/adapters/markdown-table.ts';
import { slackMarkdownBlocks, toSlackMrkdwn } from '../../../src/adapters/slack/format.ts';
import { markdownToTelegramHtml, telegramRenderedLength } from '../../../src/adapters/telegram/format.ts';
import { splitMessage, splitRendered } from '../../../src/gateway/chunk.ts';
import type { FuzzTarget } from '../harness.ts';
import { markdownText, text } from '../inputs.ts';

/** The tags markdownToTelegramHtml writes; anything else with `<` in the output is unescaped text. */
const TAG = /<(\/?)(b|i|s|code|pre|blockquote|a)(?: (?:href|class)="[^"<>]*")?>/g;

/** Tags properly nested, no `<a>` inside `<a>`, and no stray `<` or `>` left once they are removed. */
export function checkTelegramHtml(html: string): void {
  const open: string[] = [];
  for (const m of html.matchAll(TAG)) {
    const [, close, tag] = m;
    if (!close) {
      if (tag === 'a') assert.ok(!open.includes('a'), 'a link inside a link');
      open.push(tag!);
    } else assert.equal(open.pop(), tag, `</${tag}> closes ${open.at(-1) ?? 'nothing'}`);
  }
  assert.deepEqual(open, [], 'tags left open');
  assert.ok(!/[<>]/.test(html.replace(TAG, '')), 'unescaped < or > in the text');
}

// Each renderer gets text up to its platform's message limit (maxTextLength): the gateway splits
// an answer into chunks of at most that before rendering (reply.ts, chunk.ts).

/** Telegram's HTML and the rendered length the chunker measures with (chunks of at most 4,096). */
export const telegramRenderer: FuzzTarget<string> = {
  name: 'telegram markdown',
  input: text(markdownText, 4096),
  check(md) {
    checkTelegramHtml(markdownToTelegramHtml(md));
    const length = telegramRenderedLength(md);
    assert.ok(Number.isInteger(length) && length >= 0);
  },
};

/** Slack's mrkdwn, the markdown block choice and the table reader behind it (chunks of at most 40,000). */
export const slackRenderer: FuzzTarget<string> = {
  name: 'slack markdown',
  input: text(markdownText, 40_000),
  check(md) {
    assert.equal(typeof toSlackMrkdwn(md), 'string');
    const blocks = slackMarkdownBlocks(md);
    if (blocks) assert.equal(blocks[0]!.text, md);
    if (md.length <= 12_000 && hasMarkdownTable(md)) {
      const lines = md.replace(/\r\n?/g, '\n').split('\n');
      const at = lines.findIndex((_l, i) => readMarkdownTable(lines, i));
      if (at >= 0) layoutMarkdownTable(readMarkdownTable(lines, at)!);
    }
  },
};

/** Discord's markdown (chunks of at most 2,000). */
export const discordRenderer: FuzzTarget<string> = {
  name: 'discord markdown',
  input: text(markdownText, 2000),
  check(md) {
    assert.equal(typeof toDiscordMarkdown(md), 'string');
  },
};

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Every chunk within the limit, none empty, no surrogate pair cut in two (unless the input had a lone one). */
function checkChunks(input: string, chunks: string[], limit: number, measure: (c: string) => number): void {
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(input);
  for (const c of chunks) {
    assert.ok(measure(c) <= limit || c.length <= 32, `a chunk of ${measure(c)} over the limit ${limit}`);
    assert.ok(c.trim().length > 0 || input.trim().length === 0, 'an empty chunk');
    if (!lone && c.length > 0) {
      assert.ok(!isHigh(c.charCodeAt(c.length - 1)), 'a chunk ends inside a surrogate pair');
      assert.ok(!isLow(c.charCodeAt(0)), 'a chunk starts inside a surrogate pair');
    }
  }
}

/** The chunker, plain and with Telegram's rendered length, at the platforms' limits and odd small ones. */
export const chunker: FuzzTarget<[string, number]> = {
  name: 'chunk',
  input: fc.tuple(
    text(markdownText, 12_000),
    fc.oneof(fc.constantFrom(2000, 4000, 4096), fc.integer({ min: 32, max: 300 })),
  ),
  check([md, limit]) {
    checkChunks(md, splitMessage(md, limit), limit, (c) => c.length);
    checkChunks(md, splitRendered(md, limit, telegramRenderedLength), limit, telegramRenderedLength);
  },
};
