// The inbox name of an inbound file: `<date>-<time>-<tag>-<stem>.<ext>`, one plain path component
// whatever the declared name and the message's time say.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniffType } from '../../src/core/sniff-type.ts';
import { inboxName } from '../../src/runner/media/file-name.ts';

const binary = sniffType(new Uint8Array([0, 1, 2]));

test('the stamp is the message time; the stem is the declared name made safe', () => {
  const name = inboxName({ id: 'telegram:1:7', receivedAt: '2026-11-24T09:30:00.000Z' }, 0, 1, '../../x y.bin', binary);
  assert.match(name, /^20261124-093000-[0-9a-f]{4}-x-y\.bin$/);
});

test('a time past year 9999 or before year 0 gets the zero stamp, not "+0100000101-000" (found by fuzzing)', () => {
  // A platform date far in the future is a valid Date whose ISO form has a sign and six year digits.
  for (const receivedAt of ['10000', '+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00.000Z']) {
    const name = inboxName({ id: 'telegram:1:7', receivedAt }, 0, 1, 'passwd', binary);
    assert.match(name, /^00000000-000000-[0-9a-f]{4}-passwd\.bin$/, receivedAt);
  }
});
