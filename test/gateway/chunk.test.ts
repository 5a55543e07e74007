// splitMessage as a table: what fits stays whole, long text is cut at paragraph, line, then word
// boundaries, code fences cut in two are closed and reopened with their language, and a hard
// cut never splits a surrogate pair.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { splitMessage } from '../../src/gateway/chunk.ts';

const words = (n: number, w = 'word') => Array.from({ length: n }, () => w).join(' ');

describe('splitMessage', () => {
  const cases: { name: string; text: string; limit: number; want: string[] }[] = [
    { name: 'short text is one chunk, unchanged', text: 'hello  world\n', limit: 32, want: ['hello  world\n'] },
    { name: 'text exactly at the limit is one chunk', text: 'x'.repeat(40), limit: 40, want: ['x'.repeat(40)] },
    { name: 'empty text is one (empty) chunk', text: '', limit: 32, want: [''] },
    {
      name: 'paragraph boundary preferred over lines',
      text: `${'a'.repeat(20)}\n${'b'.repeat(10)}\n\n${'c'.repeat(20)}`,
      limit: 40,
      want: [`${'a'.repeat(20)}\n${'b'.repeat(10)}`, `\n${'c'.repeat(20)}`],
    },
    {
      name: 'line boundary when there is no paragraph',
      text: `${'a'.repeat(25)}\n${'b'.repeat(25)}`,
      limit: 40,
      want: ['a'.repeat(25), 'b'.repeat(25)],
    },
    {
      name: 'word boundary when there is no line',
      text: words(10),
      limit: 32,
      want: ['word word word word word ', 'word word word word word'],
    },
    {
      name: 'hard cut when no boundary lies in the second half',
      text: 'x'.repeat(70),
      limit: 32,
      want: ['x'.repeat(27), 'x'.repeat(27), 'x'.repeat(16)],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(splitMessage(c.text, c.limit), c.want);
    });
  }

  test('every chunk is within the limit and nothing is lost (prose)', () => {
    const text = Array.from(
      { length: 40 },
      (_, i) => `Sentence number ${i} says something.${i % 5 === 4 ? '\n\n' : ' '}`,
    ).join('');
    for (const limit of [32, 50, 100, 333]) {
      const chunks = splitMessage(text, limit);
      for (const c of chunks) assert.ok(c.length <= limit, `chunk of ${c.length} > ${limit}`);
      assert.equal(chunks.join('').replace(/\s+/g, ''), text.replace(/\s+/g, ''));
    }
  });

  test('a code block cut in two is closed and reopened with its language', () => {
    const code = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
    const chunks = splitMessage(`Here:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`, 60);
    assert.ok(chunks.length >= 2);
    for (const c of chunks) {
      assert.ok(c.length <= 60, `chunk of ${c.length} > 60`);
      assert.equal((c.match(/```/g) ?? []).length % 2, 0, `unbalanced fence in ${JSON.stringify(c)}`);
    }
    // Every chunk after the first that carries code starts by reopening the js fence.
    for (const c of chunks.slice(1)) if (c.includes('line ')) assert.match(c, /^```js\n/);
    const body = chunks.join('\n').replace(/```js\n|```\n?/g, '');
    for (let i = 0; i < 12; i++) assert.ok(body.includes(`line ${i}`), `line ${i} kept`);
  });

  test('tilde fences are reopened with their own marker', () => {
    const chunks = splitMessage(`~~~py\n${Array.from({ length: 10 }, (_, i) => `print(${i})`).join('\n')}\n~~~`, 48);
    assert.ok(chunks.length >= 2);
    assert.match(chunks[0]!, /\n~~~$/);
    assert.match(chunks[1]!, /^~~~py\n/);
  });

  test('a hard cut never splits a surrogate pair', () => {
    const text = '😀'.repeat(40); // 80 UTF-16 units, no boundaries
    const chunks = splitMessage(text, 32);
    for (const c of chunks) {
      assert.ok(c.length <= 32);
      assert.doesNotMatch(c, /^[\udc00-\udfff]|[\ud800-\udbff]$/, 'no lone surrogate at either end');
    }
    assert.equal(chunks.join(''), text);
  });

  test('whitespace-only chunks are dropped', () => {
    const chunks = splitMessage(`${'a'.repeat(20)}\n\n${' '.repeat(60)}\n\n${'b'.repeat(20)}`, 32);
    assert.ok(
      chunks.every((c) => c.trim().length > 0),
      JSON.stringify(chunks),
    );
    assert.deepEqual(
      chunks.map((c) => c.trim()),
      ['a'.repeat(20), 'b'.repeat(20)],
    );
  });

  // Found by the fuzz run: the fence line was carried into the next chunk whole, so a fence line
  // near or over the limit left a negative budget; chunks came out longer than the limit (and
  // splitRendered, splitting those again, never ended).
  test('a fence line longer than the limit never makes a chunk longer than the limit', () => {
    for (const fence of ['```', '~~~']) {
      const text = `${fence}${'x'.repeat(5000)}\n${'y '.repeat(5000)}\n${fence}`;
      const chunks = splitMessage(text, 4096);
      for (const c of chunks) assert.ok(c.length <= 4096, `a chunk of ${c.length}`);
      assert.equal(chunks.join('').replace(/[^y]/g, '').length, 5000, 'nothing is lost');
    }
  });

  test('a long closing marker is counted, so the closed chunk still fits', () => {
    const text = `\`\`\`\`\`\`\`\`js\n${'ab '.repeat(100)}\n\`\`\`\`\`\`\`\``;
    const chunks = splitMessage(text, 64);
    assert.ok(chunks.length > 1);
    for (const c of chunks) assert.ok(c.length <= 64, `a chunk of ${c.length}: ${JSON.stringify(c)}`);
    for (const c of chunks.slice(0, -1)) assert.match(c, /\n````````$/, 'closed with its own marker');
  });

  test('a limit below 32 is refused', () => {
    assert.throws(() => splitMessage('hi', 31), RangeError);
  });
});
