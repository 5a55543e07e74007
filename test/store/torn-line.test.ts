// What counts as a torn append at the end of the delivery log: the start of a record cut short
// (possibly followed by zeros), never a whole value or one with a wrong character in it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTornJson } from '../../src/store/torn-line.ts';

test('every cut of a record is torn; the whole record is not', () => {
  const line = JSON.stringify({
    op: 'accept',
    at: 17,
    record: { id: 'a"\\b', n: -1.5e3, ok: true, no: null, list: [1, 'x', false], u: '\u00e9\u{1F600}' },
  });
  for (let n = 1; n < line.length; n++) assert.equal(isTornJson(line.slice(0, n)), true, line.slice(0, n));
  assert.equal(isTornJson(line), false);
  assert.equal(isTornJson(`${line.slice(0, 20)}\0\0\0\0`), true, 'zeros after a cut');
  assert.equal(isTornJson('\0\0\0'), true, 'only zeros');
});

test('damage is not torn', () => {
  for (const text of [
    '{"op":"seen"} x',
    '{"op":"se\u0001',
    'nonsense',
    '{"op":"seen","id":"a"}{"op":"seen"',
    '{"op" "seen"',
    '{"a":tru3',
    '{"a":1x',
    '{"a":"\\q',
  ]) {
    assert.equal(isTornJson(text), false, text);
  }
});
