// A platform's sequence numbers compared as the numbers they are: past a double's precision
// (Discord snowflakes), with fractions (Slack's ts), and nothing else accepted as one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareOrder, platformOrder } from '../../src/adapters/index.ts';

test('orders compare as numbers, not as text', () => {
  const sorted = ['10', '9', '1234567890123456790', '1234567890123456789', '100', '0010'].sort(compareOrder);
  assert.deepEqual(sorted, ['9', '10', '0010', '100', '1234567890123456789', '1234567890123456790']);
  assert.equal(compareOrder('10', '0010'), 0);
});

test('Slack ts: the fraction counts after the whole seconds', () => {
  assert.ok(compareOrder('1712.000600', '1712.5') < 0);
  assert.ok(compareOrder('1712.9', '1713.000001') < 0);
  assert.equal(compareOrder('1712.5', '1712.500000'), 0);
});

test('only plain decimal numbers are orders', () => {
  assert.equal(platformOrder(42), '42');
  assert.equal(platformOrder('1355517523.000005'), '1355517523.000005');
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 60, '', '-1', '1e5', '0x10', ' 1', '1.', '.5', 'x'.repeat(3)])
    assert.equal(platformOrder(bad), undefined, String(bad));
});
