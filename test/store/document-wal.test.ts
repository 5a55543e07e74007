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

test('a journal line holds each document as it is; lines of earlier versions (texts as strings) replay', async () => {
  const state = new Map<string, string>();
  const files = createMemoryFiles(state, { now: Date.now });
  const open = () =>
    createDocuments(files, {
      logger: silentLogger,
      // Never checkpointed while the test looks: the journal is all there is.
      journal: { path: JOURNAL, prefixes: ['conversations/'], checkpointDelayMs: 60_000 },
    });
  const docs = open();
  const said = 'she said "hi" \\ then\nleft \u2028';
  await docs.update(spec('a'), () => ({ t: said }));
  await docs.update(spec('gone'), () => ({ t: 'soon deleted' }));
  await docs.update(spec('gone'), () => undefined);
  const lines = state.get(JOURNAL)!.split('\n').filter(Boolean);
  assert.deepEqual(JSON.parse(lines[0]!), { d: { 'conversations/a.json': { t: said } } }, 'the document, not a string');
  assert.deepEqual(JSON.parse(lines[2]!), { d: { 'conversations/gone.json': null } });

  await docs.close();

  // As a crash would leave it: the files never written, the journal holding a line of an earlier
  // version (each text a JSON string) and this version's lines.
  state.delete('conversations/a.json');
  const older = { d: { 'conversations/b.json': JSON.stringify({ t: 'from before' }) } };
  state.set(JOURNAL, `${JSON.stringify(older)}\n${lines.join('\n')}\n`);
  const again = open();
  assert.equal((await again.read<{ t: string }>(spec('b')))?.t, 'from before');
  assert.equal((await again.read<{ t: string }>(spec('a')))?.t, said);
  assert.equal(await again.read(spec('gone')), undefined);
  await again.update(spec('c'), () => ({ t: 'new' })); // a process that journals writes the files at close
  await again.close();
  assert.equal(JSON.parse(state.get('conversations/b.json')!).t, 'from before');
  assert.equal(JSON.parse(state.get('conversations/a.json')!).t, said);
  assert.equal(state.get(JOURNAL) ?? '', '');
});
