// Snapshots of tool files: each cache folder gets its own copy, even when one process already
// snapshotted the same unchanged file into another folder that is gone since.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { snapshot } from '../../../src/agent/tools/snapshot.ts';
import { tempDir } from '../../helpers.ts';

test('a second cache folder gets its own blob of an unchanged file, after the first folder was removed', async () => {
  const src = tempDir();
  const file = join(src, 'tool.wasm');
  writeFileSync(file, 'not really wasm, but bytes all the same');
  const first = tempDir();
  const a = await snapshot(file, join(first, 'blobs'));
  assert.ok(a.blob.startsWith(first));
  rmSync(first, { recursive: true, force: true });

  // A second boxbot in the same process (or a fresh data folder) on the same tools folder.
  const second = tempDir();
  const b = await snapshot(file, join(second, 'blobs'));
  assert.equal(b.sha256, a.sha256);
  assert.ok(b.blob.startsWith(second), `the blob lives in the second cache folder: ${b.blob}`);
  assert.equal(readFileSync(b.blob, 'utf8'), 'not really wasm, but bytes all the same');
  assert.ok(existsSync(b.blob));
});
