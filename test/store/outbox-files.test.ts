// The files of an outbox entry on the real file store: copied into the data dir when the entry is
// written, a receipt each, read back after a restart, removed once the entry is done, and copies
// no entry names (a crash before the entry's line, or before the removal) swept at the next start.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFileStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';
import { reply } from './delivery-fixtures.ts';

const copiesIn = (dir: string) => (existsSync(join(dir, 'outbox-files')) ? readdirSync(join(dir, 'outbox-files')) : []);

test('file copies survive a restart with their receipts, and are removed when the entry is finished', async () => {
  const dir = tempDir();
  let store = createFileStore(dir);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 7]);
  await store.delivery.putOutbox(
    reply('m1', 'web:a', ['text'], {
      files: [
        { name: 'a.png', mimeType: 'image/png', bytes: png, caption: 'chart' },
        { name: 'b.txt', mimeType: 'text/plain', bytes: new Uint8Array(Buffer.from('bee')) },
      ],
    }),
  );
  png.fill(0); // the caller's buffer (a workspace file read) may change: the copy does not
  await store.delivery.receipt('m1', 0, 'p1');
  await store.delivery.fileReceipt('m1', 0, 'p2');
  await store.close();
  assert.equal(copiesIn(dir).length, 2);

  store = createFileStore(dir);
  const [entry] = await store.delivery.pendingOutbox();
  assert.deepEqual(entry?.files, [
    { name: 'a.png', mimeType: 'image/png', caption: 'chart' },
    { name: 'b.txt', mimeType: 'text/plain' },
  ]);
  assert.deepEqual(entry?.receipts, ['p1']);
  assert.deepEqual(entry?.fileReceipts, ['p2', null]);
  assert.deepEqual([...(await store.delivery.outboxFile('m1', 0))!], [0x89, 0x50, 0x4e, 0x47, 0, 255, 7]);
  assert.equal(Buffer.from((await store.delivery.outboxFile('m1', 1))!).toString(), 'bee');
  await assert.rejects(store.delivery.fileReceipt('m1', 2, 'x'), /has no file 2/);
  await store.delivery.finishOutbox('m1');
  assert.deepEqual(copiesIn(dir), []);
  assert.equal(await store.delivery.outboxFile('m1', 0), undefined);
  await store.close();
});

test('a failed entry keeps its line for inspection but not its file copies', async () => {
  const dir = tempDir();
  const store = createFileStore(dir);
  await store.delivery.putOutbox(
    reply('m1', 'web:a', ['text'], { files: [{ name: 'a.txt', mimeType: 'text/plain', bytes: new Uint8Array(3) }] }),
  );
  await store.delivery.failOutbox('m1', 'refused');
  assert.deepEqual(copiesIn(dir), []);
  assert.deepEqual(await store.delivery.pendingOutbox(), []);
  await store.close();
});

test('copies no pending entry names are removed at the next start; named ones are kept', async () => {
  const dir = tempDir();
  let store = createFileStore(dir);
  await store.delivery.putOutbox(
    reply('keep', 'web:a', ['t'], { files: [{ name: 'k.txt', mimeType: 'text/plain', bytes: new Uint8Array(1) }] }),
  );
  await store.close();
  // A crash after a copy was written but before its entry's line (or before a finished entry's removal).
  writeFileSync(join(dir, 'outbox-files', 'orphan.0'), 'left behind');
  store = createFileStore(dir);
  assert.equal((await store.delivery.pendingOutbox()).length, 1);
  assert.deepEqual(copiesIn(dir), ['keep.0']);
  await store.close();
});

test('an entry without files (as earlier versions wrote them) loads and finishes as before', async () => {
  const dir = tempDir();
  let store = createFileStore(dir);
  await store.delivery.putOutbox(reply('old', 'web:a', ['one', 'two']));
  await store.delivery.receipt('old', 0, 'p1');
  await store.close();
  store = createFileStore(dir);
  const [entry] = await store.delivery.pendingOutbox();
  assert.equal(entry?.files, undefined);
  assert.equal(entry?.fileReceipts, undefined);
  assert.deepEqual(entry?.receipts, ['p1', null]);
  await store.delivery.finishOutbox('old');
  assert.deepEqual(await store.delivery.pendingOutbox(), []);
  await store.close();
});
