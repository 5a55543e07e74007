// File names of keys: the store's folders on disk are named by this encoding, so a faster encoder
// must give the names the earlier one gave (else a restarted store would not find its files).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { decodeName, encodeName, shardOf } from '../../src/store/names.ts';

test('keys keep the file names they had: ASCII, upper case, reserved names, UTF-8, long keys', () => {
  const names: [string, string][] = [
    ['telegram:-100123:45', 'telegram%3A-100123%3A45'],
    ['slack:T1:C9:1712.33', 'slack%3A%541%3A%439%3A1712%2E33'],
    ['Web:Ab_c-9', '%57eb%3A%41b_c-9'],
    ['con', '%63on'],
    ['é日🙂', '%C3%A9%E6%97%A5%F0%9F%99%82'],
    ['a/../b', 'a%2F%2E%2E%2Fb'],
    ['x'.repeat(201), '~84a0678c90937f5dcf9994d5866668da6b995109c8ad845410559b48a4ecafed'],
  ];
  for (const [key, name] of names) {
    assert.equal(encodeName(key), name, key);
    if (!name.startsWith('~')) assert.equal(decodeName(name), key);
  }
});

test('keys keep their shard folders: the first byte of their SHA-256, in hex', () => {
  const shards: [string, string][] = [
    ['telegram:-100123:45', '02'],
    ['é日🙂', 'ff'],
    ['web:a', 'ab'],
  ];
  for (const [key, shard] of shards) assert.equal(shardOf(key), shard, key);
  // Asked again, and after more keys than are remembered: the same folders.
  for (let i = 0; i < 10_000; i++) shardOf(`telegram:${i}`);
  for (const [key, shard] of shards) assert.equal(shardOf(key), shard, key);
  for (let i = 0; i < 10_000; i += 997) {
    const key = `telegram:${i}`;
    assert.equal(shardOf(key), createHash('sha256').update(key).digest('hex').slice(0, 2), key);
  }
});
