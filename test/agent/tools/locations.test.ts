// A tarball install whose postinstall npm skipped (npm 11.19+ runs a dependency's install script
// only once approved) has the bundled components but not their names: doctor and the start banner
// say what to run instead of showing no tools without a reason.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { unlinkedBundledToolsHint } from '../../../src/agent/tools/locations.ts';
import { tempDir } from '../../helpers.ts';

test('bundled components without their name links get the approve-and-rebuild hint', () => {
  const dist = tempDir('boxbot-dist-');
  assert.equal(unlinkedBundledToolsHint(dist), undefined, 'nothing built: not this problem');
  mkdirSync(join(dist, 'components'));
  writeFileSync(join(dist, 'components', 'core.wasm'), 'x');
  assert.match(
    unlinkedBundledToolsHint(dist) ?? '',
    /npm skipped boxbot's install script; run `npm install-scripts approve boxbot` then `npm rebuild boxbot`/,
  );
  symlinkSync(join('components', 'core.wasm'), join(dist, 'read.wasm'));
  assert.equal(unlinkedBundledToolsHint(dist), undefined);
});
