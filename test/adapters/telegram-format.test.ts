// Markdown → Telegram HTML: the constructs models write, escaping, and the guarantee that every
// output (including every prefix of a streamed answer) is HTML Telegram's parser accepts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, markdownToTelegramHtml as md, telegramRenderedLength } from '../../src/adapters/telegram/index.ts';
import { parseTelegramHtml } from '../emulators/telegram/html.ts';

/** What a user sees (text and entity types) once Telegram has parsed the HTML. */
function shown(markdown: string): { text: string; entities: string[] } {
  const parsed = parseTelegramHtml(md(markdown));
  assert.ok(parsed.ok, `Telegram would refuse ${JSON.stringify(md(markdown))}: ${parsed.ok ? '' : parsed.error}`);
  return {
    text: parsed.text,
    entities: parsed.entities.map(
      (e) => `${e.type}${e.language ? `:${e.language}` : ''}${e.url ? `:${e.url}` : ''}@${e.offset}+${e.length}`,
    ),
  };
}

test('<, > and & are escaped everywhere, including code', () => {
  assert.equal(escapeHtml('a < b && c > "d"'), 'a &lt; b &amp;&amp; c &gt; &quot;d&quot;');
  assert.equal(md('if a < b && c > d'), 'if a &lt; b &amp;&amp; c &gt; d');
  assert.equal(md('`<div class="x">&amp;</div>`'), '<code>&lt;div class=&quot;x&quot;&gt;&amp;amp;&lt;/div&gt;</code>');
  assert.equal(md('<script>alert(1)</script>'), '&lt;script&gt;alert(1)&lt;/script&gt;');
  assert.deepEqual(shown('1 < 2 & 3 > 2').text, '1 < 2 & 3 > 2');
});

test('bold, italic, strikethrough and inline code', () => {
  assert.equal(md('**bold** and __also bold__'), '<b>bold</b> and <b>also bold</b>');
  assert.equal(md('*italic* and _italic_'), '<i>italic</i> and <i>italic</i>');
  assert.equal(md('~~gone~~'), '<s>gone</s>');
  assert.equal(md('run `npm test` now'), 'run <code>npm test</code> now');
  assert.equal(md('***both***'), '<b><i>both</i></b>');
  assert.equal(md('*see **this** here*'), '<i>see <b>this</b> here</i>');
  assert.deepEqual(shown('**Note:** use `x`'), { text: 'Note: use x', entities: ['bold@0+5', 'code@10+1'] });
});

test('fenced code keeps its language and its text verbatim', () => {
  assert.equal(
    md('```ts\nconst a: Array<number> = [];\n```'),
    '<pre><code class="language-ts">const a: Array&lt;number&gt; = [];</code></pre>',
  );
  assert.equal(md('```\n**not bold**\n```'), '<pre>**not bold**</pre>');
  assert.deepEqual(shown('Run:\n```bash\necho "hi" && ls\n```\ndone'), {
    text: 'Run:\necho "hi" && ls\ndone',
    entities: ['pre:bash@5+15'],
  });
});

test('links: http(s), tg and mailto become links; other schemes stay text', () => {
  assert.equal(
    md('[docs](https://core.telegram.org/bots/api)'),
    '<a href="https://core.telegram.org/bots/api">docs</a>',
  );
  assert.equal(md('[q](https://e.com/?a=1&b="2")'), '[q](https://e.com/?a=1&amp;b=&quot;2&quot;)');
  assert.equal(md('[q](https://e.com/?a=1&b=2)'), '<a href="https://e.com/?a=1&amp;b=2">q</a>');
  assert.equal(md('[x](javascript:alert(1))'), '[x](javascript:alert(1))');
  assert.equal(md('<https://example.com>'), '<a href="https://example.com">https://example.com</a>');
  assert.deepEqual(shown('see [**the** docs](https://x.dev/a_(b))').entities, [
    'text_link:https://x.dev/a_(b)@4+8',
    'bold@4+3',
  ]);
});

test('headings, bullets and quotes read well without Markdown markers', () => {
  assert.deepEqual(shown('# Plan\n- one\n* two\n> careful'), {
    text: 'Plan\n• one\n• two\ncareful',
    entities: ['bold@0+4', 'blockquote@17+7'],
  });
});

test('a table becomes aligned columns in a <pre> block, escaped', () => {
  const table = '| name | n |\n|:--|--:|\n| **a** & <b> | 1 |\n| c | 22 |';
  assert.equal(
    md(`Counts:\n${table}\nend`),
    'Counts:\n<pre>name    |  n\n--------+---\na &amp; &lt;b&gt; |  1\nc       | 22</pre>\nend',
  );
  // Pipes that are not a table (no delimiter row) stay text.
  assert.equal(md('a | b\nc | d'), 'a | b\nc | d');
});

test('unmatched markers and snake_case stay literal', () => {
  assert.equal(md('snake_case_name and 2 * 3 * 4'), 'snake_case_name and 2 * 3 * 4');
  assert.equal(md('**not closed'), '**not closed');
  assert.equal(md('a `lonely backtick'), 'a `lonely backtick');
  assert.equal(md('\\*not italic\\*'), '*not italic*');
});

test('every prefix of a streamed answer renders to HTML Telegram accepts', () => {
  const answer = [
    '# Result',
    '',
    'Here is **the fix** for `parse<T>()` & friends:',
    '',
    '```ts',
    'function parse<T>(s: string): T { return JSON.parse(s) as T; }',
    '```',
    '',
    '- *first* step, see [the docs](https://example.com/a?b=1&c=2)',
    '> note: _snake_case_ ~~old~~',
    'done.',
  ].join('\n');
  for (let i = 0; i <= answer.length; i++) {
    const out = parseTelegramHtml(md(answer.slice(0, i)));
    assert.ok(out.ok, `prefix ${i} ${JSON.stringify(answer.slice(0, i))}: ${out.ok ? '' : out.error}`);
  }
});

test('arbitrary marker soup always renders to accepted HTML', () => {
  const parts = [
    '*',
    '**',
    '_',
    '__',
    '~~',
    '`',
    '```',
    '[',
    ']',
    '(',
    ')',
    'https://a.b',
    '<',
    '>',
    '&',
    '\\',
    ' ',
    '\n',
    'x',
    'word',
    '# ',
    '- ',
    '> ',
  ];
  let seed = 42;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let k = 0; k < 3000; k++) {
    let s = '';
    for (let j = next(24); j > 0; j--) s += parts[next(parts.length)];
    const out = parseTelegramHtml(md(s));
    assert.ok(out.ok, `${JSON.stringify(s)} → ${JSON.stringify(md(s))}: ${out.ok ? '' : out.error}`);
  }
});

test('telegramRenderedLength counts what Telegram counts: the text after the HTML is parsed', () => {
  for (const markdown of [
    'plain words',
    '**bold** and `code` & <tags>',
    '# Title\n\n- one\n- two\n\n---\n\n> quoted',
    '```js\nconst a = 1 < 2;\n```',
    '```\n```',
    '| a | **b** |\n|---|:-:|\n| 1 < 2 | x |',
  ]) {
    const parsed = parseTelegramHtml(md(markdown));
    assert.ok(parsed.ok, markdown);
    assert.equal(telegramRenderedLength(markdown), parsed.text.trim() ? parsed.text.length : 0, markdown);
  }
  assert.equal(telegramRenderedLength('---'), 10, 'a rule renders longer than its Markdown');
});
