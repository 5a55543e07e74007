// Where executors work: a copy of the workspace (links left out), or a checkout of its git HEAD
// read through isomorphic-git; each one's changes come back as a patch that applies only onto the
// state it started from.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import git from 'isomorphic-git';
import { prepareFolder } from '../../../src/agent/managed/isolation.ts';
import { applyPatch, diffFolder } from '../../../src/agent/managed/patch.ts';
import { tempDir } from '../../helpers.ts';

function workspaceDir(): string {
  const dir = join(tempDir('boxbot-iso-'), 'ws');
  mkdirSync(dir);
  return dir;
}

test('copy: the executor works on a copy without links; its patch adds, changes and removes', async () => {
  const ws = workspaceDir();
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'gone.txt'), 'bye\n');
  symlinkSync('/etc/passwd', join(ws, 'passwd'));
  const folder = await prepareFolder(ws, 'copy', 'writer');
  assert.notEqual(folder.dir, ws);
  assert.equal(existsSync(join(folder.dir, 'passwd')), false, 'links are not copied');
  writeFileSync(join(folder.dir, 'a.txt'), 'a, edited\n');
  writeFileSync(join(folder.dir, 'new.txt'), 'new\n');
  fs.rmSync(join(folder.dir, 'gone.txt'));
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'a\n', 'the workspace is untouched meanwhile');
  const patch = await diffFolder(folder.base!, folder.dir, { id: 'p', executor: 'writer' });
  await folder.dispose();
  assert.equal(existsSync(folder.dir), false);
  assert.deepEqual(
    patch.changes.map((c) => [c.kind, c.path]),
    [
      ['changed', 'a.txt'],
      ['removed', 'gone.txt'],
      ['added', 'new.txt'],
    ],
  );
  assert.deepEqual(await applyPatch(patch, ws), { applied: true, files: 3 });
  assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'a, edited\n');
  assert.equal(readFileSync(join(ws, 'new.txt'), 'utf8'), 'new\n');
  assert.equal(existsSync(join(ws, 'gone.txt')), false);
});

test('worktree: the executor starts from git HEAD; a file changed but not committed since is a conflict', async () => {
  const ws = workspaceDir();
  await git.init({ fs, dir: ws });
  writeFileSync(join(ws, 'src.txt'), 'committed\n');
  mkdirSync(join(ws, 'lib'));
  writeFileSync(join(ws, 'lib', 'x.txt'), 'x\n');
  await git.add({ fs, dir: ws, filepath: 'src.txt' });
  await git.add({ fs, dir: ws, filepath: 'lib/x.txt' });
  await git.commit({ fs, dir: ws, message: 'first', author: { name: 't', email: 't@example.com' } });
  writeFileSync(join(ws, 'src.txt'), 'edited, not committed\n');
  writeFileSync(join(ws, 'untracked.txt'), 'not in git\n');

  const folder = await prepareFolder(ws, 'worktree', 'coder');
  assert.equal(readFileSync(join(folder.dir, 'src.txt'), 'utf8'), 'committed\n', 'HEAD, not the edited file');
  assert.equal(readFileSync(join(folder.dir, 'lib', 'x.txt'), 'utf8'), 'x\n');
  assert.equal(existsSync(join(folder.dir, 'untracked.txt')), false);
  assert.equal(existsSync(join(folder.dir, '.git')), false);
  writeFileSync(join(folder.dir, 'src.txt'), 'by the executor\n');
  writeFileSync(join(folder.dir, 'lib', 'x.txt'), 'x2\n');
  const patch = await diffFolder(folder.base!, folder.dir, { id: 'p', executor: 'coder' });
  await folder.dispose();
  assert.deepEqual(await applyPatch(patch, ws), {
    applied: false,
    conflicts: ['src.txt: changed by the executor, but changed in the workspace since it started'],
  });
  assert.equal(readFileSync(join(ws, 'lib', 'x.txt'), 'utf8'), 'x\n', 'nothing written when any file conflicts');
  assert.equal(readFileSync(join(ws, 'src.txt'), 'utf8'), 'edited, not committed\n');
});

test('worktree in a folder that is not a git repository is refused, naming the alternative', async () => {
  await assert.rejects(
    prepareFolder(workspaceDir(), 'worktree', 'coder'),
    /needs the workspace to be a git repository \(use "copy"/,
  );
});

test('a patch never writes through a link or outside the workspace', async () => {
  const ws = workspaceDir();
  const outside = tempDir('boxbot-outside-');
  symlinkSync(outside, join(ws, 'out'));
  const patch = {
    id: 'p',
    executor: 'x',
    state: 'pending' as const,
    changes: [
      { path: 'out/evil.txt', kind: 'added' as const, bytes: Buffer.from('x') },
      { path: '../escape.txt', kind: 'added' as const, bytes: Buffer.from('x') },
    ],
  };
  const r = await applyPatch(patch, ws);
  assert.deepEqual(r, {
    applied: false,
    conflicts: ['out/evil.txt: passes through a link', '../escape.txt: outside the workspace'],
  });
  assert.equal(existsSync(join(outside, 'evil.txt')), false);
});
