// The on-disk index from file identity to content hash: a file changed moments ago is never
// indexed (a same-tick rewrite could hide behind its metadata), any change of content gives a
// new identity, and a damaged entry is ignored rather than trusted.
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileIdentity, lookupHash, recordHash } from '../../src/sandbox/hash-index.ts';
import { tempDir } from '../helpers.ts';

const SHA = 'a'.repeat(64);

describe('sandbox: stat -> hash index', () => {
  it('does not index a file changed moments ago, and does once it has settled', async () => {
    const cache = tempDir('boxbot-index-');
    const file = join(tempDir(), 'tool.wasm');
    writeFileSync(file, 'v1');
    const st = statSync(file, { bigint: true });
    const id = fileIdentity(st);
    await recordHash(cache, id, st, SHA);
    assert.equal(await lookupHash(cache, id), undefined, 'a just-written file must be hashed again');
    await recordHash(cache, id, st, SHA, Date.now() + 5000);
    assert.equal(await lookupHash(cache, id), SHA);
  });

  it('a rewritten file has a new identity, so its old hash is never used', async () => {
    const file = join(tempDir(), 'tool.wasm');
    writeFileSync(file, 'v1');
    const before = fileIdentity(statSync(file, { bigint: true }));
    writeFileSync(file, 'v2 longer');
    assert.notEqual(fileIdentity(statSync(file, { bigint: true })), before);
  });

  it('ignores an entry that is not a sha-256', async () => {
    const cache = tempDir('boxbot-index-');
    await mkdir(join(cache, 'by-stat'), { recursive: true });
    await writeFile(join(cache, 'by-stat', '1-2-3-4-5'), '../../etc/passwd');
    assert.equal(await lookupHash(cache, '1-2-3-4-5'), undefined);
  });
});
