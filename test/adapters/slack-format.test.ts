// Markdown → Slack mrkdwn: what a Slack user sees must be what the model meant, and nothing
// the model writes can turn into Slack control syntax (<!channel>, fake links).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  escapeSlackText,
  SLACK_MARKDOWN_BLOCK_LIMIT,
  slackMarkdownBlocks,
  toSlackMrkdwn,
  unescapeSlackText,
} from '../../src/adapters/slack/index.ts';

describe('slack format', () => {
  test('emphasis, strike, headings and bullets', () => {
    assert.equal(toSlackMrkdwn('**bold** and *it* and _it_ and ~~gone~~'), '*bold* and _it_ and _it_ and ~gone~');
    assert.equal(toSlackMrkdwn('# Title\n## Sub **x**'), '*Title*\n*Sub x*');
    assert.equal(toSlackMrkdwn('- one\n* two\n  + nested\n1. first'), '• one\n• two\n  • nested\n1. first');
  });

  test('links become <url|text>, and their URLs are not mangled by emphasis', () => {
    assert.equal(
      toSlackMrkdwn('see [the docs](https://x.io/a_b_c?q=1&r=2)'),
      'see <https://x.io/a_b_c?q=1&amp;r=2|the docs>',
    );
    assert.equal(toSlackMrkdwn('<https://x.io/a_b>'), '<https://x.io/a_b>');
    assert.equal(toSlackMrkdwn('[a|b](https://x.io/p|q)'), '<https://x.io/p%7Cq|a∣b>');
  });

  test('&, < and > are escaped everywhere, so model text cannot ping a channel or forge a link', () => {
    assert.equal(toSlackMrkdwn('<!channel> 1 < 2 && 3 > 2'), '&lt;!channel&gt; 1 &lt; 2 &amp;&amp; 3 &gt; 2');
    // An autolink shows its real target: a `|` cannot smuggle in a misleading label.
    assert.equal(toSlackMrkdwn('<https://evil.example|bank.example>'), '<https://evil.example%7Cbank.example>');
    assert.equal(escapeSlackText('<@U1> & co'), '&lt;@U1&gt; &amp; co');
    assert.equal(unescapeSlackText(escapeSlackText('a <b> & c')), 'a <b> & c');
  });

  test('code blocks keep their content verbatim (escaped, not formatted) and drop the language', () => {
    const md = 'before\n```ts\nconst x = a**2 < b && *p;\n```\nafter **b**';
    assert.equal(toSlackMrkdwn(md), 'before\n```\nconst x = a**2 &lt; b &amp;&amp; *p;\n```\nafter *b*');
  });

  test('an unclosed fence runs to the end', () => {
    assert.equal(toSlackMrkdwn('```\nrow *1*'), '```\nrow *1*\n```');
  });

  test('inline code is escaped but not formatted', () => {
    assert.equal(toSlackMrkdwn('run `a **b** <c>` now'), 'run `a **b** &lt;c&gt;` now');
  });

  test('identifiers with underscores and arithmetic stars are left alone', () => {
    assert.equal(toSlackMrkdwn('snake_case_name and 2*3*4'), 'snake_case_name and 2*3*4');
  });

  test('quotes stay quotes: the > at line start goes literal (Slack shows &gt; as a > character)', () => {
    assert.equal(toSlackMrkdwn('> quoted'), '> quoted');
    assert.equal(toSlackMrkdwn('> **a** <b>\n>\n> > - c\nx > y'), '> *a* &lt;b&gt;\n>\n> • c\nx &gt; y');
    // Only a quote marker is literal: nothing after it can become control syntax.
    assert.equal(toSlackMrkdwn('> <!channel>'), '> &lt;!channel&gt;');
  });

  const table = '| name | n |\n|:-----|--:|\n| **a** | 1 |\n| b<c | 22 |';

  test('a table shows aligned in a code block in the mrkdwn text', () => {
    assert.equal(
      toSlackMrkdwn(`Counts:\n${table}\ndone`),
      'Counts:\n```\nname |  n\n-----+---\na    |  1\nb&lt;c  | 22\n```\ndone',
    );
  });

  test('an answer with a table also gets a markdown block (standard Markdown), within its limit', () => {
    assert.deepEqual(slackMarkdownBlocks(`Counts:\n${table}`), [{ type: 'markdown', text: `Counts:\n${table}` }]);
    assert.equal(slackMarkdownBlocks('no | table here'), undefined);
    assert.equal(slackMarkdownBlocks(`\`\`\`\n${table}\n\`\`\``), undefined, 'a table in a code block is code');
    assert.equal(slackMarkdownBlocks(`${table}\n${'x'.repeat(SLACK_MARKDOWN_BLOCK_LIMIT)}`), undefined);
  });
});
