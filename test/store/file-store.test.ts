// The store contract against the file backend, plus what only real files can show: a process
// killed between the fsynced temp write and the rename leaves the old file whole.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createFileStore } from '../../src/store/index.ts';
import { storeContract } from './contract.ts';

async function walk(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...(await walk(root, p)));
    else out.push(p);
  }
  return out;
}

storeContract('file', async () => {
  // The store lives in data/; a sibling file shows that nothing escapes it.
  const base = await mkdtemp(join(tmpdir(), 'boxbot-store-'));
  const dir = join(base, 'data');
  return {
    open: (opts) => createFileStore(dir, opts),
    listRaw: async () => {
      const outside = (await readdir(base)).filter((n) => n !== 'data');
      assert.deepEqual(outside, [], 'nothing is written outside the data directory');
      return walk(dir).catch(() => []);
    },
    readRaw: (path) => readFile(join(dir, path), 'utf8').catch(() => undefined),
    writeRaw: (path, text) => writeFile(join(dir, path), text),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
});

test('file: a process killed between the temp write and the rename leaves the old content readable', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-store-crash-'));
  try {
    const child = fileURLToPath(new URL('crash-child.ts', import.meta.url));
    const r = spawnSync(process.execPath, ['--import', 'tsx', child, dir], { encoding: 'utf8' });
    assert.equal(r.signal, 'SIGKILL', `child should die mid-write: ${r.stderr}`);

    const names = await walk(dir);
    const temps = names.filter((n) => n.endsWith('.tmp'));
    assert.equal(temps.length, 2, `the new versions were written but never renamed: ${names.join(', ')}`);
    const store = createFileStore(dir);
    const c = await store.conversations.get('telegram:1');
    assert.deepEqual(c?.messages.map((m) => m.content[0]), [{ type: 'text', text: 'old' }]);
    assert.equal(await store.kv.get('telegram.offset'), 1);
    assert.deepEqual(await store.conversations.keys(), ['telegram:1'], 'temp files are not conversations');
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
