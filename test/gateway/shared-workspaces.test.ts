// Replicas must share one workspaces folder: the first marks it, a replica with another folder
// (unmarked or marked differently) is refused with the folder named.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/config/load.ts';
import { checkSharedWorkspaces } from '../../src/gateway/shared-workspaces.ts';
import { createMemoryStore } from '../../src/store/index.ts';
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
