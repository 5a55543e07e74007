// A busy checkpoint's writes made in a thread of their own (bulk-writer.ts): each document is
// replaced atomically as disk-files.ts replaces it (same stamp, same modes, no temp file left), a
// file that cannot be written fails alone, and through the document journal a failed one stays
// journaled (replayed at the next open) while the others leave the journal.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { silentLogger } from '../../src/core/log.ts';
import { type BulkItem, createBulkWriter } from '../../src/store/bulk-writer.ts';
import { createDiskFiles, SYNCED_WRITE_MAX } from '../../src/store/disk-files.ts';
import { createDocuments } from '../../src/store/documents.ts';

const spec = (name: string) => ({ path: `conversations/${name}.json`, schema: z.object({ t: z.string() }) });

test('a batch replaces each document atomically, stamped as reads check; a failing one fails alone', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'boxbot-bulk-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'docs'), { recursive: true });
  await writeFile(join(root, 'docs', 'blocked'), 'a file where a folder is needed');
  await writeFile(join(root, 'docs', 'gone.json'), '{}');
  const bulk = createBulkWriter(root, { syncedMax: SYNCED_WRITE_MAX });
  t.after(() => bulk.close());
  const big = 'y'.repeat(SYNCED_WRITE_MAX + 1); // written, then synced once
  const items: BulkItem[] = [
    { path: 'docs/new/a.json', text: '{"t":"a"}' },
    { path: 'docs/blocked/b.json', text: '{"t":"b"}' },
    { path: 'docs/big.json', text: big },
    { path: 'docs/gone.json', text: null },
    { path: 'docs/never.json', text: null },
  ];
  const results = await bulk.write(items);

  assert.equal(results.length, 5);
  assert.equal(results[0]!.ok, true);
  assert.equal(results[1]!.ok, false);
  const refused = results[1]!.ok ? '' : results[1]!.error;
  assert.match(refused, /EEXIST.*docs\/blocked/, 'the failure says why, naming the path');
  assert.deepEqual(
    results.slice(2).map((r) => r.ok),
    [true, true, true],
    'the rest of the batch is written',
  );
  assert.equal(await readFile(join(root, 'docs/new/a.json'), 'utf8'), '{"t":"a"}');
  assert.equal(await readFile(join(root, 'docs/big.json'), 'utf8'), big);
  await assert.rejects(stat(join(root, 'docs/gone.json')), { code: 'ENOENT' });
  // The stamp is the one the document cache compares with at every read (disk-files.ts's stat).
  const files = createDiskFiles(root, { now: Date.now });
  assert.equal(results[0]!.ok && results[0]!.stamp, await files.stamp('docs/new/a.json'));
  assert.equal(results[2]!.ok && results[2]!.stamp, await files.stamp('docs/big.json'));
  assert.equal((await stat(join(root, 'docs/new'))).mode & 0o777, 0o700, 'a new folder is private');
  assert.equal((await stat(join(root, 'docs/new/a.json'))).mode & 0o777, 0o600, 'a file is private');
  const left = [...(await readdir(join(root, 'docs'))), ...(await readdir(join(root, 'docs/new')))];
  assert.deepEqual(
    left.filter((n) => n.endsWith('.tmp')),
    [],
    'no temp file left behind',
  );

  await bulk.close();
  await assert.rejects(bulk.write(items), /closed/);
});

test('a busy checkpoint goes through the thread; a document it cannot write stays journaled', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'boxbot-bulk-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const real = createBulkWriter(root, { syncedMax: SYNCED_WRITE_MAX });
  let batches = 0;
  const bulk = { ...real, write: (items: BulkItem[]) => (batches++, real.write(items)) };
  const journal = { path: 'documents.journal', prefixes: ['conversations/'], checkpointDelayMs: 60_000 };
  const docs = createDocuments(createDiskFiles(root, { now: Date.now }), {
    logger: silentLogger,
    journal: { ...journal, bulk, bulkMinFiles: 3 },
  });
  for (const name of ['a', 'b', 'c', 'd']) await docs.update(spec(name), () => ({ t: `text of ${name}` }));
  // A folder where `d`'s file goes: its rename fails, the other three are written.
  await mkdir(join(root, 'conversations', 'd.json', 'in-the-way'), { recursive: true });
  await docs.close(); // the final checkpoint (four documents: through the thread)

  assert.equal(batches, 1, 'the four documents went as one batch');
  for (const name of ['a', 'b', 'c'])
    assert.equal(JSON.parse(await readFile(join(root, 'conversations', `${name}.json`), 'utf8')).t, `text of ${name}`);
  const kept = await readFile(join(root, 'documents.journal'), 'utf8');
  assert.match(kept, /text of d/, "the unwritten document's text is still in the journal");
  assert.doesNotMatch(kept, /text of a/, 'what was written left the journal');

  // The folder is gone: the next open replays the journal, and its next checkpoint writes the file.
  await rm(join(root, 'conversations', 'd.json'), { recursive: true });
  const again = createDocuments(createDiskFiles(root, { now: Date.now }), { logger: silentLogger, journal });
  assert.equal((await again.read<{ t: string }>(spec('d')))?.t, 'text of d');
  await again.update(spec('e'), () => ({ t: 'text of e' }));
  await again.close();
  assert.equal(JSON.parse(await readFile(join(root, 'conversations', 'd.json'), 'utf8')).t, 'text of d');
});
