// Tool names come from each tool's help, not its file: a user's file whose help names a bundled
// tool takes that name over, and the registry says so (a warning, and in shadowed()) instead of
// replacing it silently.
import assert from 'node:assert/strict';
import { copyFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createToolRegistry, type ToolRegistry } from '../../../src/agent/tools/index.ts';
import { createLogger } from '../../../src/core/log.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { root, SHARED_CACHE, tempDir, waitUntil } from '../../helpers.ts';
import { dropTool, nextEvent } from './registry-helpers.ts';

const RCAT = join(root, 'test', 'fixtures', 'rust-clap', 'rcat.wasm');

describe('tool registry: names from help', () => {
  let sandbox: Sandbox;
  let registry: ToolRegistry;
  const bundled = tempDir('boxbot-bundled-');
  const extensions = tempDir('boxbot-ext-');
  const logged: { msg: string; tool?: string; file?: string; by?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });

  before(async () => {
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(SHARED_CACHE, 'sandbox'),
      workers: 1,
    });
    copyFileSync(RCAT, join(bundled, 'rcat.wasm'));
    dropTool(bundled, 'reg-v1', 'hot');
    copyFileSync(RCAT, join(extensions, 'my-cat.wasm'));
    registry = createToolRegistry({
      sandbox,
      cacheDir: tempDir('boxbot-toolcache-'),
      dirs: [
        { path: bundled, source: 'bundled' },
        { path: extensions, source: 'extension' },
      ],
      log: createLogger({ destination: sink }),
    });
    await registry.start();
  });
  after(async () => {
    await registry.close();
    await sandbox.close();
  });

  const userFileWhoseTitle =
    'a user file whose help names a bundled tool takes the name over, and the shadowed file is listed and logged';
  test(userFileWhoseTitle, async () => {
    assert.deepEqual(
      registry.list().map((t) => [t.spec.name, t.source, t.spec.file]),
      [
        ['hot', 'bundled', join(bundled, 'hot.wasm')],
        ['rcat', 'extension', join(extensions, 'my-cat.wasm')],
      ],
    );
    assert.deepEqual(registry.shadowed(), [
      {
        name: 'rcat',
        file: join(bundled, 'rcat.wasm'),
        source: 'bundled',
        by: join(extensions, 'my-cat.wasm'),
        bySource: 'extension',
      },
    ]);
    await waitUntil(
      () =>
        logged.some(
          (l) => l.tool === 'rcat' && l.file === join(bundled, 'rcat.wasm') && l.by === join(extensions, 'my-cat.wasm'),
        ),
      'the shadow to be logged',
      10_000,
    );
  });

  test('a shadow made later is logged too, and one undone disappears', async () => {
    const added = nextEvent(registry, (e) => e.name === 'hot' && e.type === 'added');
    dropTool(extensions, 'reg-v2', 'hot');
    await added;
    assert.equal(registry.get('hot')?.spec.version, '2.0.0');
    assert.ok(registry.shadowed().some((s) => s.name === 'hot' && s.file === join(bundled, 'hot.wasm')));
    await waitUntil(
      () => logged.some((l) => l.tool === 'hot' && l.by === join(extensions, 'hot.wasm')),
      'the new shadow to be logged',
      10_000,
    );
    const removed = nextEvent(registry, (e) => e.name === 'hot' && e.type === 'removed');
    unlinkSync(join(extensions, 'hot.wasm'));
    await removed;
    assert.equal(registry.get('hot')?.source, 'bundled');
    assert.deepEqual(
      registry.shadowed().map((s) => s.name),
      ['rcat'],
    );
  });
});
