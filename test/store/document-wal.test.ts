// The document journal while its checkpoints fail (the documents' folder unwritable): the journal
// keeps only each document's newest text instead of every change, and past its cap changes are
// refused with an error that says why, until a checkpoint succeeds again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { silentLogger } from '../../src/core/log.ts';
import { createDocuments } from '../../src/store/documents.ts';
import { StoreError } from '../../src/store/errors.ts';
import type { Files } from '../../src/store/files.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { waitUntil } from '../helpers.ts';

const JOURNAL = 'documents.journal';
const spec = (name: string) => ({ path: `conversations/${name}.json`, schema: z.object({ t: z.string() }) });

test('checkpoints failing: the journal keeps each document once, and past its cap changes wait', async () => {
  const state = new Map<string, string>();
  const base = createMemoryFiles(state, { now: Date.now });
  const disk = { fail: true, failures: 0 };
  const files: Files = {
    ...base,
    async write(path, text) {
      if (disk.fail && path.startsWith('conversations/')) {
        disk.failures++;
        throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
      }
      return base.write(path, text);
    },
  };
  const docs = createDocuments(files, {
    logger: silentLogger,
    // A short delay: the test waits for checkpoints, not for the default's batching.
    journal: { path: JOURNAL, prefixes: ['conversations/'], maxChars: 2000, checkpointDelayMs: 200 },
  });
  const lines = () => (state.get(JOURNAL) ?? '').split('\n').filter(Boolean).length;
  for (let i = 0; i < 20; i++) await docs.update(spec('a'), () => ({ t: `version ${i}` }));
  await waitUntil(() => disk.failures > 0 && lines() === 1, 'a failed checkpoint and the journal compacted', 10_000);
  assert.match(state.get(JOURNAL)!, /version 19/);
  assert.equal(state.has('conversations/a.json'), false, 'never written while the folder refuses');

  // Distinct documents, each held in memory and in the journal until a checkpoint writes it.
  const big = 'x'.repeat(600);
  for (let i = 0; i < 4; i++) await docs.update(spec(`d${i}`), () => ({ t: big }));
  await assert.rejects(
    docs.update(spec('over'), () => ({ t: 'one more' })),
    (e: unknown) =>
      e instanceof StoreError &&
      e.code === 'io' &&
      e.retryable &&
      /document journal holds \d+ characters not yet written to their files \(cap 2000\)/.test(e.message) &&
      /EROFS/.test(e.message),
  );
  assert.equal((await docs.read<{ t: string }>(spec('over')))?.t, undefined, 'the refused change is not kept');

  disk.fail = false; // the folder is writable again: the next checkpoint writes every document
  await waitUntil(() => state.has('conversations/d3.json'), 'the documents written', 10_000);
  await waitUntil(() => lines() === 0, 'the journal emptied', 10_000);
  await docs.update(spec('over'), () => ({ t: 'one more' }));
  assert.equal((await docs.read<{ t: string }>(spec('over')))?.t, 'one more');
  await docs.close();
  assert.equal(JSON.parse(state.get('conversations/a.json')!).t, 'version 19');
});
