// Markdown → Discord markdown: what passes through, what Discord would misread, code untouched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toDiscordMarkdown } from '../../src/adapters/discord/index.ts';

test('ordinary Markdown passes through unchanged', () => {
  const md = [
    '# Title',
    '## Section',
    'Some **bold**, *italic*, _also italic_, ~~gone~~, `code` and a [link](https://example.com).',
    '',
    '- one',
    '  - nested',
    '1. first',
    '> quoted',
    'snake_case_name and 2*3 stay as they are <https://example.com/a_b>',
  ].join('\n');
  assert.equal(toDiscordMarkdown(md), md);
});

test('__strong__ becomes **strong** (Discord reads __ as underline), not inside words or code', () => {
  assert.equal(toDiscordMarkdown('this is __important__ now'), 'this is **important** now');
  assert.equal(toDiscordMarkdown('__init__.py and `__dunder__`'), '**init**.py and `__dunder__`');
  assert.equal(toDiscordMarkdown('call my__var__name'), 'call my__var__name');
});

test('spoiler bars and subtext markers are escaped', () => {
  assert.equal(toDiscordMarkdown('a || b'), 'a \\|\\| b');
  assert.equal(toDiscordMarkdown('-# not small'), '\\-# not small');
  assert.equal(toDiscordMarkdown('`a || b`'), '`a || b`');
});

test('code blocks are kept byte for byte; ~~~ fences become ```, unclosed fences are closed', () => {
  const code = '```ts\nconst x = a || b; // __init__ | -# not\n| a | b |\n|---|---|\n```';
  assert.equal(toDiscordMarkdown(code), code);
  assert.equal(toDiscordMarkdown('~~~python\nprint("__x__")\n~~~'), '```python\nprint("__x__")\n```');
  assert.equal(toDiscordMarkdown('```\nstill open'), '```\nstill open\n```');
  // A ``` line inside a ~~~ block does not close it.
  assert.equal(toDiscordMarkdown('~~~\n```\n~~~\nafter || x'), '```\n```\n```\nafter \\|\\| x');
});

test('tables become aligned code blocks', () => {
  const md = [
    'Results:',
    '',
    '| Name | **Score** | Notes |',
    '|:-----|------:|:---:|',
    '| Ada | 10 | `top` |',
    '| Grace Hopper | 9 | a \\| b |',
    '',
    'done',
  ].join('\n');
  assert.equal(
    toDiscordMarkdown(md),
    [
      'Results:',
      '',
      '```',
      'Name         | Score | Notes',
      '-------------+-------+------',
      'Ada          |    10 |  top',
      'Grace Hopper |     9 | a | b',
      '```',
      '',
      'done',
    ].join('\n'),
  );
});

test('headings below ### become bold lines; setext headings become # headings', () => {
  assert.equal(toDiscordMarkdown('#### Details'), '**Details**');
  assert.equal(toDiscordMarkdown('### Kept ###'), '### Kept');
  assert.equal(toDiscordMarkdown('Overview\n========\ntext'), '# Overview\ntext');
  assert.equal(toDiscordMarkdown('Part two\n---'), '## Part two');
});

test('rules, images, nested quotes, task lists and <br> get Discord equivalents', () => {
  assert.equal(toDiscordMarkdown('above\n\n---\n\nbelow'), 'above\n\n───────────\n\nbelow');
  assert.equal(toDiscordMarkdown('![diagram](https://example.com/d.png "t")'), '[diagram](https://example.com/d.png)');
  assert.equal(toDiscordMarkdown('![](https://example.com/d.png)'), 'https://example.com/d.png');
  assert.equal(toDiscordMarkdown('>>> deep quote'), '> deep quote');
  assert.equal(toDiscordMarkdown('> > nested'), '> nested');
  assert.equal(toDiscordMarkdown('- [ ] todo\n- [x] done'), '- ☐ todo\n- ☑ done');
  assert.equal(toDiscordMarkdown('line one<br>line two'), 'line one\nline two');
});
