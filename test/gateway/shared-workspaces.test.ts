// Replicas must share one workspaces folder: the first marks it, a replica with another folder
// (unmarked or marked differently) is refused with the folder named.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/config/load.ts';
import { checkSharedWorkspaces } from '../../src/gateway/shared-workspaces.ts';
import { createMemoryStore, type KvStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';

test('the first replica marks the folder; the same folder passes, another one is refused by name', async () => {
  const store = createMemoryStore();
  const shared = join(tempDir(), 'workspaces');
  await checkSharedWorkspaces(store.kv, shared);
  await checkSharedWorkspaces(store.kv, shared); // a second replica on the shared volume
  const other = join(tempDir(), 'workspaces');
  await assert.rejects(
    checkSharedWorkspaces(store.kv, other),
    (e: unknown) => e instanceof ConfigError && e.message.includes(other) && /no mark/.test(e.message),
  );
  writeFileSync(join(other, '.boxbot-volume'), 'someone-else\n');
  await assert.rejects(checkSharedWorkspaces(store.kv, other), /another mark/);
  await store.close();
});

test('two replicas starting at once on one fresh volume both start, with one mark', async () => {
  const store = createMemoryStore();
  const shared = join(tempDir(), 'workspaces');
  // The first replica reads the store before the second has written anything, and finishes after it.
  let letFirstOn: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    letFirstOn = resolve;
  });
  let calls = 0;
  const slowKv: KvStore = {
    async get(key) {
      if (++calls === 1) await held;
      return store.kv.get(key);
    },
    set: (key, value) => store.kv.set(key, value),
  };
  const first = checkSharedWorkspaces(slowKv, shared);
  await checkSharedWorkspaces(store.kv, shared);
  letFirstOn();
  await first;
  assert.equal(
    readFileSync(join(shared, '.boxbot-volume'), 'utf8').trim(),
    await store.kv.get('cluster.workspacesVolume'),
  );
  assert.deepEqual(readdirSync(shared), ['.boxbot-volume'], 'no temporary file left');
  await store.close();
});
