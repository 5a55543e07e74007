// The bundled tools' shared cache built at install: a tool file that cannot be prepared (a stale
// or broken build) is left out with its reason, the other tools are still prepared, and the
// caller learns which were left out (a checkout's build fails on them).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildBundledToolCache } from '../../../src/agent/tools/bundled-cache.ts';
import { guest, tempDir } from '../../helpers.ts';

test('a broken tool file is left out with its reason; the others are prepared', async () => {
  const root = tempDir('boxbot-bundled-cache-');
  const dirs = {
    tools: join(root, 'tools'),
    compile: join(root, 'cache', 'sandbox'),
    specs: join(root, 'cache', 'specs'),
    root: join(root, 'cache'),
  };
  mkdirSync(dirs.tools);
  copyFileSync(guest('reg-v1'), join(dirs.tools, 'alpha.wasm'));
  writeFileSync(join(dirs.tools, 'broken.wasm'), 'not a WebAssembly file');
  copyFileSync(guest('reg-v1'), join(dirs.tools, 'zeta.wasm'));
  let said = '';
  const { failed } = await buildBundledToolCache((t) => {
    said += t;
  }, dirs);
  assert.deepEqual(failed, ['broken']);
  assert.match(said, /preparing bundled tool broken \(2\/3\)… left out: /);
  assert.match(said, /left out, compiled by each data dir if they work then: broken\n$/);
  // The tools after the broken one were prepared too.
  assert.ok(existsSync(dirs.specs), 'specs written');
  assert.equal(readdirSync(dirs.compile).length > 0, true, 'compile entries written');
  assert.match(said, /preparing bundled tool zeta \(3\/3\)… \d+ ms/);
});
