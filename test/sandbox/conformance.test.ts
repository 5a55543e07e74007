// The WASI conformance runner against a tiny fake suite laid out as wasi-testsuite's built
// branch is (tests/<lang>/testsuite/wasm32-wasip1/<name>.wasm + <name>.json), with guests built
// from WAT in this repository: specs' args, env, root folder, exit code and stdout are honoured,
// failures say why, and the root folder is copied, never written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findPreview1Tests, runConformanceTest } from '../../scripts/conformance-suite.ts';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { guest, root, sharedCompileCache, tempDir } from '../helpers.ts';

const FS_LINKS_STDOUT = [
  'mkdir 00',
  'rename-slash 00',
  'symlink 00',
  'readlink 00',
  'readlink target',
  'symlink-out 63',
  'create 00',
  'link 00',
  '',
].join('\n');

/** A fake checkout: a preview1 suite of three WAT guests, and a preview3 folder to be ignored. */
function fakeSuite(): string {
  const checkout = tempDir('boxbot-fake-suite-');
  const dir = join(checkout, 'tests', 'wat', 'testsuite', 'wasm32-wasip1');
  mkdirSync(join(dir, 'fs-tests.dir'), { recursive: true });
  mkdirSync(join(checkout, 'tests', 'wat', 'testsuite', 'wasm32-wasip3'), { recursive: true });
  writeFileSync(join(checkout, 'tests', 'wat', 'testsuite', 'wasm32-wasip3', 'p3-only.wasm'), '');
  writeFileSync(join(dir, 'fs-tests.dir', 'keep.txt'), 'original');
  copyFileSync(guest('fs-links'), join(dir, 'fs-links.wasm'));
  // The root named through a symlink must still be copied, not written through.
  symlinkSync('fs-tests.dir', join(dir, 'linked.dir'));
  writeFileSync(join(dir, 'fs-links.json'), JSON.stringify({ root: 'linked.dir', stdout: FS_LINKS_STDOUT }));
  copyFileSync(guest('environ'), join(dir, 'environ.wasm'));
  writeFileSync(
    join(dir, 'environ.json'),
    JSON.stringify({
      args: ['first', 'the "second" arg'],
      env: { a: 'new\nline' },
      stdout: 'environ\nfirst\nthe "second" arg\na=new\nline\n',
    }),
  );
  copyFileSync(guest('exit42'), join(dir, 'exit42.wasm'));
  writeFileSync(join(dir, 'exit42.json'), JSON.stringify({ exit_code: 42, stdout: 'bye\n' }));
  copyFileSync(guest('exit42'), join(dir, 'exit42-unexpected.wasm'));
  return checkout;
}

describe('WASI conformance runner', () => {
  let sandbox: Sandbox;
  let checkout: string;
  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 1 });
    checkout = fakeSuite();
  });
  after(() => sandbox.close());

  it('finds every preview1 test with its spec, and only those', async () => {
    const tests = await findPreview1Tests(checkout);
    assert.deepEqual(
      tests.map((t) => t.id),
      ['wat/environ', 'wat/exit42', 'wat/exit42-unexpected', 'wat/fs-links'],
    );
    assert.deepEqual(tests.find((t) => t.id === 'wat/exit42-unexpected')!.spec, {});
  });

  it('runs each test as boxbot tool run does and judges exit code and output', async () => {
    const tests = await findPreview1Tests(checkout);
    const outcomes = [];
    for (const t of tests) outcomes.push(await runConformanceTest(sandbox, t));
    assert.deepEqual(
      outcomes.filter((o) => o.passed).map((o) => o.id),
      ['wat/environ', 'wat/exit42', 'wat/fs-links'],
    );
    const failed = outcomes.find((o) => !o.passed)!;
    assert.equal(failed.id, 'wat/exit42-unexpected');
    assert.match(failed.reason!, /exit code 42, expected 0/);
    // The test wrote into a copy: the checkout's root folder is as it was.
    const fsRoot = join(checkout, 'tests', 'wat', 'testsuite', 'wasm32-wasip1', 'fs-tests.dir');
    assert.deepEqual(readdirSync(fsRoot), ['keep.txt']);
    assert.equal(readFileSync(join(fsRoot, 'keep.txt'), 'utf8'), 'original');
  });

  it('a folder that is not a built suite is an error, never "0 of 0 passed"', async () => {
    await assert.rejects(findPreview1Tests(tempDir()), /not a wasi-testsuite checkout/);
    const noPreview1 = tempDir();
    mkdirSync(join(noPreview1, 'tests', 'rust', 'src'), { recursive: true });
    await assert.rejects(findPreview1Tests(noPreview1), /prod\/testsuite-base/);
  });

  it('npm run conformance without a checkout says where to get the suite', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'conformance.ts')], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no checkout given/);
    assert.match(r.stderr, /wasi-testsuite/);
  });
});
