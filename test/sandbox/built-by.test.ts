// The compile cache's entries are named by what made them: upgrading boxbot or the jco-transpile it
// pins makes every old entry a miss, so a data folder kept across an upgrade is never served glue
// from the code before it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtBy } from '../../src/sandbox/compile.ts';

const jco = '@bytecodealliance/jco-transpile';

test('compile cache: a new boxbot or jco-transpile version names new entries; the same install the same', () => {
  const before = builtBy({ version: '0.1.0', dependencies: { [jco]: '0.15.0' } });
  assert.equal(builtBy({ version: '0.1.0', dependencies: { [jco]: '0.15.0' } }), before);
  assert.notEqual(builtBy({ version: '0.2.0', dependencies: { [jco]: '0.15.0' } }), before, 'boxbot upgraded');
  assert.notEqual(builtBy({ version: '0.1.0', dependencies: { [jco]: '0.16.0' } }), before, 'jco-transpile upgraded');
  // A checkout pins it as a devDependency (the packed tarball carries a copy): the same entries.
  assert.equal(builtBy({ version: '0.1.0', devDependencies: { [jco]: '0.15.0' } }), before);
});
