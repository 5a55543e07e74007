// The bundled tools' specs built at install (shared by every data dir): a fresh data dir registers
// a tool from them without compiling or running it; a tool they lack (a new extension) is prepared,
// and the log says so while it happens (seconds on a terminal otherwise unexplained).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createToolRegistry, registerFile } from '../../../src/agent/tools/index.ts';
import { createLogger } from '../../../src/core/log.ts';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../../compiled-src.ts';
import { SHARED_CACHE, tempDir } from '../../helpers.ts';
import { dropTool } from './registry-helpers.ts';

describe('tool specs shared by every data dir', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({
      workerFile: compiledSandboxWorker(),
      cacheDir: join(SHARED_CACHE, 'sandbox'),
      workers: 1,
    });
  });
  after(() => sandbox.close());

  test('a spec in the shared cache registers the tool without preparing it', async () => {
    const file = dropTool(tempDir('boxbot-bundled-'), 'reg-v1', 'peek');
    const install = tempDir('boxbot-install-');
    const built = await registerFile(sandbox, file, install, 'peek');
    assert.equal(built.cached, false);
    let prepared = false;
    const fresh = await registerFile(sandbox, file, tempDir('boxbot-data-'), 'peek', {
      sharedSpecDirs: [join(install, 'specs')],
      onPrepare: () => (prepared = true),
    });
    assert.equal(fresh.cached, true);
    assert.equal(prepared, false, 'nothing compiled or run for a fresh data dir');
    assert.deepEqual(fresh.spec.inputSchema, built.spec.inputSchema);
  });

  test('a new extension tool is logged as being prepared, once', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const extensions = tempDir('boxbot-ext-');
    dropTool(extensions, 'reg-v1', 'fresh_tool');
    const registry = createToolRegistry({
      sandbox,
      cacheDir: tempDir('boxbot-toolcache-'),
      dirs: [{ path: extensions, source: 'extension' }],
      log: createLogger({ level: 'info', destination }),
      watch: false,
    });
    await registry.start();
    await registry.close();
    const preparing = lines.filter((l) => l.includes('preparing a new tool'));
    assert.equal(preparing.length, 1, lines.join(''));
    assert.match(preparing[0]!, /fresh_tool/);
  });
});
