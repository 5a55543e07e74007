// The long-term memory part of the store contract: every backend runs it (file-store.test.ts,
// memory-store.test.ts, postgres-store.test.ts; the file cases only where there are files).
// Scopes are separate lists, notes survive a restart, a corrupt scope file is moved aside and
// reported, and a write touches one scope's file only.
import assert from 'node:assert/strict';
import { type MemoryRecord, type MemoryScope, StoreCorruptError, StoreError } from '../../src/store/index.ts';
import type { StoreHarness } from './contract.ts';
import { harnessCases } from './harness-test.ts';

const ada: MemoryScope = { kind: 'user', userKey: 'telegram:1' };
const bob: MemoryScope = { kind: 'user', userKey: 'telegram:2' };
const group: MemoryScope = { kind: 'conversation', conversationKey: 'telegram:-500' };

const note = (id: string, scope: MemoryScope, text = `note ${id}`): MemoryRecord => ({
  id,
  scope,
  text,
  createdAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
  createdBy: 'telegram:1',
  conversationKey: 'telegram:-500',
});

/** Runs the memory contract against `makeHarness`'s backend. */
export function memoriesContract(
  backend: string,
  makeHarness: () => Promise<StoreHarness>,
  { files = true }: { files?: boolean } = {},
): void {
  const it = harnessCases(backend, 'memories', makeHarness);

  it('each scope is its own list, in the order added, and survives a restart', async (h) => {
    const s = h.open();
    await s.memories.add(note('m-1', ada));
    await s.memories.add(note('m-2', group));
    await s.memories.add(note('m-3', ada));
    await s.close();
    const r = h.open();
    assert.deepEqual(
      (await r.memories.list(ada)).map((m) => m.id),
      ['m-1', 'm-3'],
    );
    assert.deepEqual(
      (await r.memories.list(group)).map((m) => m.text),
      ['note m-2'],
    );
    assert.deepEqual(await r.memories.list(bob), []);
    assert.deepEqual((await r.memories.list(ada))[0], note('m-1', ada), 'stored as given');
    await r.close();
  });

  it('remove and clear touch one scope; an id is unique within its scope', async (h) => {
    const s = h.open();
    await s.memories.add(note('m-1', ada));
    await s.memories.add(note('m-1', bob));
    await assert.rejects(
      s.memories.add(note('m-1', ada)),
      (e: unknown) => e instanceof StoreError && e.code === 'invalid',
    );
    assert.equal(await s.memories.remove(group, 'm-1'), false);
    assert.equal(await s.memories.remove(ada, 'm-1'), true);
    assert.equal(await s.memories.remove(ada, 'm-1'), false);
    assert.deepEqual(
      (await s.memories.list(bob)).map((m) => m.id),
      ['m-1'],
    );
    await s.memories.add(note('m-2', group));
    await s.memories.add(note('m-3', group));
    assert.equal(await s.memories.clear(group), 2);
    assert.equal(await s.memories.clear(group), 0);
    assert.deepEqual(await s.memories.list(group), []);
    assert.equal((await s.memories.list(bob)).length, 1);
    if (files)
      assert.deepEqual(
        (await h.listRaw()).filter((p) => p.startsWith('memories/')).length,
        1,
        'only the non-empty scope keeps a file',
      );
    await s.close();
  });

  if (files)
    it('a corrupt scope file is moved aside and reported, never silently reset', async (h) => {
      const s = h.open();
      await s.memories.add(note('m-1', ada));
      const path = (await h.listRaw()).find((p) => p.startsWith('memories/user/'))!;
      await h.writeRaw(path, '{"scope": 1');
      await s.close();
      const reports: string[] = [];
      const r = h.open({ onCorrupt: (c) => reports.push(c.file) });
      await assert.rejects(r.memories.list(ada), (e: unknown) => e instanceof StoreCorruptError);
      assert.equal(reports.length, 1);
      assert.ok((await h.listRaw()).some((p) => p.startsWith(`${path}.corrupt-`)));
      assert.deepEqual(await r.memories.list(ada), [], 'then the scope starts fresh');
      await r.close();
    });
}
