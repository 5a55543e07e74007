// `glob`, `grep` and `ls` through the real sandbox and registry: matching, ordering, modes,
// caps, skipped directories, and that they see nothing outside the workspace.
import assert from 'node:assert/strict';
import { symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { policyFor, toolHarness, workspace } from './helpers.ts';

const h = toolHarness();
after(() => h.close());

const README = '# Demo\nTODO: write docs\n';
const APP = 'import { x } from "./lib/util";\n// TODO: remove\nexport const app = x;\n';
const UTIL = 'export const x = 1;\nexport function helper() {\n  return x;\n}\n';
const ws = workspace({
  'README.md': README,
  'src/app.ts': APP,
  'src/lib/util.ts': UTIL,
  'src/lib/old.js': 'var todo = 1;\n',
  'docs/guide.md': 'Guide\n',
  '.hidden/secret.txt': 'TODO hidden\n',
  'node_modules/dep/index.ts': 'TODO in a dependency\n',
  'data.bin': new Uint8Array([0x54, 0x4f, 0x44, 0x4f, 0, 1, 2]),
});
// Modification times: util.ts newest, app.ts oldest.
const t = Date.now() / 1000;
utimesSync(join(ws, 'src/app.ts'), t - 300, t - 300);
utimesSync(join(ws, 'src/lib/old.js'), t - 200, t - 200);
utimesSync(join(ws, 'src/lib/util.ts'), t - 10, t - 10);
symlinkSync('/etc', join(ws, 'etc'));
const policy = policyFor(ws);

describe('glob', () => {
  it('finds files by pattern at any depth, newest first', async () => {
    const r = await h.call('glob', { pattern: '**/*.ts' }, policy);
    assert.equal(r.isError, false, r.content);
    assert.deepEqual(r.content.split('\n'), ['src/lib/util.ts', 'src/app.ts']);
    assert.equal(r.metadata.count, 2);
  });

  it('matches a pattern without ** only at its own level, relative to --path', async () => {
    assert.deepEqual((await h.call('glob', { pattern: '*.md' }, policy)).content.split('\n'), ['README.md']);
    assert.deepEqual((await h.call('glob', { pattern: '*.{ts,js}', path: 'src/lib' }, policy)).content.split('\n'), [
      'src/lib/util.ts',
      'src/lib/old.js',
    ]);
  });

  it('skips node_modules unless the pattern names it', async () => {
    assert.doesNotMatch((await h.call('glob', { pattern: '**/index.ts' }, policy)).content, /node_modules/);
    assert.equal(
      (await h.call('glob', { pattern: 'node_modules/**/*.ts' }, policy)).content,
      'node_modules/dep/index.ts',
    );
  });

  it('caps the result and says how many more there are', async () => {
    const r = await h.call('glob', { pattern: '**/*', limit: 2 }, policy);
    assert.equal(r.content.split('\n\n')[0]!.split('\n').length, 2);
    assert.match(r.content, /more not shown/);
    assert.equal(r.metadata.truncated, true);
  });

  it('says so when nothing matches', async () => {
    const r = await h.call('glob', { pattern: '**/*.py' }, policy);
    assert.equal(r.isError, false);
    assert.match(r.content, /No files match/);
  });

  it('does not follow a symlink out of the workspace', async () => {
    const r = await h.call('glob', { pattern: 'etc/**/passwd' }, policy);
    assert.doesNotMatch(r.content, /etc\/passwd$/m);
  });
});

describe('grep', () => {
  it('lists matching files by default, skipping binaries and node_modules', async () => {
    const r = await h.call('grep', { pattern: 'TODO' }, policy);
    assert.equal(r.isError, false, r.content);
    assert.deepEqual(r.content.split('\n').sort(), ['.hidden/secret.txt', 'README.md', 'src/app.ts']);
    assert.equal(r.metadata.skippedBinary, 1);
  });

  it('shows matching lines with numbers and context', async () => {
    const r = await h.call('grep', { pattern: 'helper', output_mode: 'content', context: 1, path: 'src' }, policy);
    assert.equal(
      r.content,
      'src/lib/util.ts-1-export const x = 1;\nsrc/lib/util.ts:2:export function helper() {\nsrc/lib/util.ts-3-  ' +
        'return x;',
    );
  });

  it('counts matches per file, case-insensitively, within include globs', async () => {
    const r = await h.call(
      'grep',
      { pattern: 'todo', ignore_case: true, output_mode: 'count', include: ['*.ts', '*.js'] },
      policy,
    );
    assert.deepEqual(r.content.split('\n').sort(), ['src/app.ts:1', 'src/lib/old.js:1']);
  });

  it('searches a single file', async () => {
    const r = await h.call('grep', { pattern: '^export', path: 'src/lib/util.ts', output_mode: 'content' }, policy);
    assert.deepEqual(r.content.split('\n'), [
      'src/lib/util.ts:1:export const x = 1;',
      'src/lib/util.ts:2:export function helper() {',
    ]);
  });

  it('matches across lines with --multiline', async () => {
    const r = await h.call(
      'grep',
      { pattern: 'helper\\(\\) \\{\\n\\s+return', multiline: true, output_mode: 'content' },
      policy,
    );
    assert.deepEqual(r.content.split('\n'), [
      'src/lib/util.ts:2:export function helper() {',
      'src/lib/util.ts:3:  return x;',
    ]);
  });

  it('caps results at --limit and says so', async () => {
    const r = await h.call('grep', { pattern: '.', output_mode: 'content', limit: 3 }, policy);
    assert.equal(r.content.split('\n\n')[0]!.split('\n').length, 3);
    assert.match(r.content, /cut at --limit 3/);
    assert.equal(r.metadata.truncated, true);
  });

  it('reports a bad regular expression as an error', async () => {
    const r = await h.call('grep', { pattern: '(unclosed' }, policy);
    assert.equal(r.isError, true);
    assert.match(r.content, /invalid regular expression/);
  });

  it('finds nothing of the host through a symlink', async () => {
    const r = await h.call('grep', { pattern: 'root:', path: 'etc' }, policy);
    assert.equal(r.isError, true);
    assert.doesNotMatch(r.content, /root:x/);
  });
});

describe('ls', () => {
  it('lists a directory with types, sizes and link targets', async () => {
    const r = await h.call('ls', {}, policy);
    assert.equal(r.isError, false, r.content);
    const rows = r.content.split('\n');
    assert.equal(rows[0], '/ (workspace root)');
    assert.ok(rows.includes(`README.md  ${README.length}`), r.content);
    assert.ok(rows.includes('src/'));
    assert.ok(rows.includes('.hidden/'));
    assert.ok(rows.includes('etc -> /etc'));
    assert.doesNotMatch(r.content, /util\.ts/, 'depth 1 does not descend');
  });

  it('descends with --depth, leaves out hidden and ignored entries on request', async () => {
    const r = await h.call('ls', { path: 'src', depth: 3, no_hidden: true, ignore: ['*.js'] }, policy);
    assert.equal(r.content, `src/\napp.ts  ${APP.length}\nlib/\n  util.ts  ${UTIL.length}`);
  });

  it('names a missing directory', async () => {
    const r = await h.call('ls', { path: 'missing' }, policy);
    assert.equal(r.isError, true);
    assert.match(r.content, /\/missing: no such file or directory/);
  });

  it('cannot list through a symlink that leaves the workspace', async () => {
    const r = await h.call('ls', { path: 'etc' }, policy);
    assert.equal(r.isError, true);
    assert.doesNotMatch(r.content, /passwd/);
  });
});
