// The host's positional read: a guest may ask for far more than a file holds; what comes back is
// the bytes read and nothing else, not even through the returned array's underlying buffer (a
// read buffer left unzeroed for speed must never leak what the memory held before).
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readAt } from '../../../src/sandbox/host/fs-io.ts';
import { tempDir } from '../../helpers.ts';

test('a 1 MiB read of a short file returns its bytes alone, with no other memory behind them', () => {
  const text = 'forty-odd bytes of text in one small file\n';
  const path = join(tempDir('boxbot-read-at-'), 'short.txt');
  writeFileSync(path, text);
  const fd = openSync(path, 'r');
  const read = (max: number, at: bigint) => {
    const got = readAt(fd, max, at);
    assert.equal(got.buffer.byteLength, got.byteLength, 'nothing behind the bytes read');
    return Buffer.from(got).toString();
  };
  try {
    assert.equal(read(1 << 20, 0n), text);
    assert.equal(read(1 << 20, 30n), text.slice(30));
    assert.equal(read(5, 0n), text.slice(0, 5), 'a read that fills its buffer');
    assert.equal(read(1 << 20, 1000n), '', 'past the end');
    assert.equal(read(64 << 20, 0n), text, 'more than the largest read asked for');
  } finally {
    closeSync(fd);
  }
});
