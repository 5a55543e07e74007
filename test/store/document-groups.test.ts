// Group commit per document: updates of one document that arrive while its write is under way
// share the next write, each counted once, each caller told when its change is durable; one
// refused update fails alone, and a failed write fails every change it held and leaves the file
// as it was.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/log.ts';
import { createDiskFiles } from '../../src/store/disk-files.ts';
import { createDocuments } from '../../src/store/documents.ts';
import type { Files } from '../../src/store/files.ts';
import { createMemories } from '../../src/store/memories.ts';
import { createUsage } from '../../src/store/usage.ts';
import { waitUntil } from '../helpers.ts';

/** The disk's files, with the writes under `prefix` counted and, while `held`, kept waiting (or failed). */
function heldFiles(root: string, prefix: string) {
  const base = createDiskFiles(root, { now: Date.now });
  const s = { writes: 0, waiting: 0, others: 0, fail: false, release: () => {} };
  let gate: Promise<void> | undefined;
  const files: Files = {
    ...base,
    async write(path, text) {
      if (!path.startsWith(prefix)) {
        const stamp = await base.write(path, text);
        s.others++;
        return stamp;
      }
      s.writes++;
      if (gate) {
        s.waiting++;
        await gate;
        s.waiting--;
      }
      if (s.fail) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return base.write(path, text);
    },
  };
  const hold = () => {
    gate = new Promise((r) => {
      s.release = () => {
        gate = undefined;
        r();
      };
    });
  };
  return { files, s, hold };
}

const charge = (conversation: number) => ({
  conversationKey: `telegram:${conversation}`,
  userKey: 'telegram:42',
  model: 'openai/gpt-5.4',
  usage: { inputTokens: 10, outputTokens: 3 },
  costUsd: 0.5,
  at: '2026-11-28T02:00:00Z',
});

test('charges of one user from many conversations at once share a write, and each is counted once', async () => {
  const root = await mkdtemp(join(tmpdir(), 'boxbot-doc-groups-'));
  try {
    const { files, s, hold } = heldFiles(root, 'usage/users/');
    const usage = createUsage(createDocuments(files, { logger: silentLogger }));
    hold();
    const first = usage.add(charge(0));
    await waitUntil(() => s.waiting === 1, 'the first charge of the user is being written', 10_000);
    // Nine more conversations of the same person are charged while that write is under way.
    const rest = Array.from({ length: 9 }, (_, i) => usage.add(charge(i + 1)));
    let settled = 0;
    for (const p of rest) void p.then(() => settled++);
    // Their conversations' documents are written; the user's waits behind the write under way.
    await waitUntil(() => s.others === 10, "the ten conversations' documents are written", 10_000);
    assert.equal(settled, 0, 'no charge is reported written before its write of the user is');
    assert.equal(s.writes, 1, "the nine wait together for the user's next write");
    s.release();
    await Promise.all([first, ...rest]);
    assert.equal(s.writes, 2, "the user's document is written once for the first charge, once for the nine after");
    const user = await usage.get({ userKey: 'telegram:42' }, '2026-11-28');
    assert.equal(user.day.calls, 10, 'every charge counted once');
    assert.equal(user.day.costUsd, 5);
    // What is on disk, read by a fresh store (as after a restart), holds all ten.
    const again = createUsage(createDocuments(createDiskFiles(root, { now: Date.now }), { logger: silentLogger }));
    assert.equal((await again.get({ userKey: 'telegram:42' }, '2026-11-28')).total.calls, 10);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('in a shared write, a refused change fails alone; a failed write fails all it held, the file kept', async () => {
  const root = await mkdtemp(join(tmpdir(), 'boxbot-doc-groups-'));
  try {
    const { files, s, hold } = heldFiles(root, 'memories/');
    const memories = createMemories(createDocuments(files, { logger: silentLogger }));
    const scope = { kind: 'user', userKey: 'telegram:42' } as const;
    const note = (id: string) => ({ id, scope, text: `note ${id}`, createdAt: '2026-11-28T02:00:00Z', createdBy: 'x' });
    hold();
    const first = memories.add(note('m-1'));
    await waitUntil(() => s.waiting === 1, 'the first note is being written', 10_000);
    const joined = [memories.add(note('m-2')), memories.add(note('m-1')), memories.add(note('m-3'))];
    const outcomes = Promise.allSettled(joined);
    s.release();
    await first;
    type Outcome = PromiseSettledResult<void>;
    const [two, dup, three] = (await outcomes) as [Outcome, Outcome, Outcome];
    assert.equal(two.status, 'fulfilled');
    assert.equal(dup.status, 'rejected', 'a note whose id exists is refused');
    assert.match(String((dup as PromiseRejectedResult).reason), /exists already/);
    assert.equal(three.status, 'fulfilled', 'the change after the refused one still lands');
    assert.deepEqual(
      (await memories.list(scope)).map((m) => m.id),
      ['m-1', 'm-2', 'm-3'],
    );

    // The disk fails while a group waits: every change it held fails, and the file keeps what it had.
    hold();
    const fourth = memories.add(note('m-4'));
    await waitUntil(() => s.waiting === 1, 'the fourth note is being written', 10_000);
    const [fifth, sixth] = [memories.add(note('m-5')), memories.add(note('m-6'))];
    s.fail = true;
    s.release();
    await assert.rejects(fourth, /no space left/);
    await assert.rejects(fifth, /no space left/);
    await assert.rejects(sixth, /no space left/);
    // m-1; m-2 with m-3 (the refused m-1 again among them); m-4; m-5 with m-6.
    assert.equal(s.writes, 4, 'the fifth and sixth notes were one write');
    s.fail = false;
    assert.deepEqual(
      (await memories.list(scope)).map((m) => m.id),
      ['m-1', 'm-2', 'm-3'],
      'nothing of the failed write is kept, in memory or on disk',
    );
    const onDisk = createMemories(createDocuments(createDiskFiles(root, { now: Date.now }), { logger: silentLogger }));
    assert.deepEqual(
      (await onDisk.list(scope)).map((m) => m.id),
      ['m-1', 'm-2', 'm-3'],
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
