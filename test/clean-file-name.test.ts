// File names from users and tools: what a reader sees is what the name is. Control and Unicode
// format characters (a right-to-left override turning `gpj.exe` into what reads as `exe.jpg`,
// zero-width characters, bidi isolates, a byte order mark) are dropped, like any path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanFileName } from '../src/core/clean-file-name.ts';

test('format characters (category Cf) are dropped with the control characters', () => {
  assert.equal(cleanFileName('invoice\u202Efdp.exe'), 'invoicefdp.exe');
  assert.equal(cleanFileName('a\u200Bb\u200Cc\u200Dd\u200Ee\u200Ff.txt'), 'abcdef.txt');
  assert.equal(cleanFileName('\u2066x\u2067y\u2068z\u2069.md'), 'xyz.md');
  assert.equal(cleanFileName('\uFEFFnotes\u00AD.txt'), 'notes.txt');
  assert.equal(cleanFileName('line\u2028break\u2029.txt'), 'linebreak.txt');
  assert.equal(cleanFileName('tab\there\u0000\u007f"q".txt'), 'tabhereq.txt');
});

test('only the last path component is kept, and a name with nothing left is "file"', () => {
  assert.equal(cleanFileName('../../etc/passwd'), 'passwd');
  assert.equal(cleanFileName('C:\\Users\\x\\report.pdf'), 'report.pdf');
  assert.equal(cleanFileName('\u202E\u200B'), 'file');
  assert.equal(cleanFileName(undefined), 'file');
});

test('at most 200 characters, never half a surrogate pair', () => {
  const name = cleanFileName(`${'😀'.repeat(250)}.txt`);
  assert.equal([...name].length, 200);
  assert.doesNotMatch(name, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone high surrogate');
});
