// What a run costs the file-family store in reads: the documents it reads and writes back (its
// history, its usage, its memory notes) come from memory while nobody changed their files, and
// one changed behind the store's back is read again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { DOCUMENT_CACHE } from '../../src/store/create.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import { createMemories } from '../../src/store/memories.ts';
import { createMemoryFiles } from '../../src/store/memory-files.ts';
import { createUsage } from '../../src/store/usage.ts';

/** Memory files whose whole-file reads are counted, by top folder. */
function countingFiles(state: Map<string, string>) {
  const base = createMemoryFiles(state, { now: Date.now });
  const reads: Record<string, number> = {};
  const files: Files = {
    ...base,
    read(path) {
      const top = path.split('/')[0]!;
      reads[top] = (reads[top] ?? 0) + 1;
      return base.read(path);
    },
  };
  return { files, reads };
}

const charge = (at: string) => ({
  conversationKey: 'web:a',
  userKey: 'web:u1',
  model: 'm',
  usage: { inputTokens: 10, outputTokens: 3 },
  costUsd: 0.25,
  at,
});

test('usage charged and read again, run after run, is read from its files once', async () => {
  const state = new Map<string, string>();
  const { files, reads } = countingFiles(state);
  const usage = createUsage(createDocuments(files, { logger: silentLogger, cache: DOCUMENT_CACHE }));
  for (let run = 0; run < 5; run++) {
    await usage.add(charge('2026-01-01T10:00:00Z'));
    await usage.get({ userKey: 'web:u1' }, '2026-01-01');
  }
  assert.equal((await usage.get({ conversationKey: 'web:a' }, '2026-01-01')).day.costUsd, 1.25);
  assert.equal(reads.usage ?? 0, 0, 'each write leaves the document in memory for the next read');

  // Changed behind the store's back (another process): read again, not the copy in memory.
  const path = [...state.keys()].find((p) => p.startsWith('usage/conversations/'))!;
  const doc = JSON.parse(state.get(path)!) as { days: Record<string, { costUsd: number }> };
  doc.days['2026-01-01']!.costUsd = 9;
  state.set(path, JSON.stringify(doc));
  assert.equal((await usage.get({ conversationKey: 'web:a' }, '2026-01-01')).day.costUsd, 9);
  assert.equal(reads.usage, 1);
});

test('a memory digest read before every run reads the notes file once while it is unchanged', async () => {
  const { files, reads } = countingFiles(new Map());
  const memories = createMemories(createDocuments(files, { logger: silentLogger, cache: DOCUMENT_CACHE }));
  const scope = { kind: 'user', userKey: 'web:u1' } as const;
  assert.deepEqual(await memories.list(scope), []);
  assert.equal(reads.memories ?? 0, 0, 'an absent file costs no read beyond the stat');
  await memories.add({ id: 'm-1', scope, text: 'likes tea', createdAt: '2026-01-01T10:00:00Z', createdBy: 'web:u1' });
  for (let run = 0; run < 5; run++) assert.equal((await memories.list(scope)).length, 1);
  assert.equal(reads.memories ?? 0, 0);
});
