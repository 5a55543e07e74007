// Nothing outside the mounts exists for a guest: `..`, absolute paths and pre-existing symlinks
// to the outside (file or directory, relative or absolute target) are refused for every
// operation, and guests cannot make symlinks or hard links of their own.
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { callOn, codeOf, readText, temp, type Desc } from './harness.ts';

const SECRET = 'TOP-SECRET outside the mount';

describe('filesystem host: escapes', () => {
  let base: string;
  let ws: string;
  let outside: string;

  before(() => {
    base = temp('boxbot-fs-escape-');
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    writeFileSync(join(ws, 'ok.txt'), 'inside');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'abs-file'));
    symlinkSync('../outside/secret.txt', join(ws, 'rel-file'));
    symlinkSync(outside, join(ws, 'abs-dir'));
    symlinkSync('../outside', join(ws, 'rel-dir'));
    symlinkSync('../../outside', join(ws, 'sub/deep-rel-dir'));
    symlinkSync(join(ws, 'ok.txt'), join(ws, 'abs-inside'));
    symlinkSync('loop-b', join(ws, 'loop-a'));
    symlinkSync('loop-a', join(ws, 'loop-b'));
  });

  const escapes = [
    '..',
    '../outside/secret.txt',
    'sub/../../outside/secret.txt',
    'sub/../..',
    '/etc/passwd',
    '/',
    'abs-file',
    'rel-file',
    'abs-dir/secret.txt',
    'rel-dir/secret.txt',
    'sub/deep-rel-dir/secret.txt',
    'abs-dir',
    'rel-dir/',
  ];

  /** Every way a path can be used; each must be refused, and nothing outside may change. */
  function attempts(root: Desc, path: string): Record<string, () => unknown> {
    const ts = { tag: 'timestamp' as const, val: { seconds: 7n, nanoseconds: 0 } };
    return {
      'open read': () => root.openAt({ symlinkFollow: true }, path, {}, { read: true }),
      'open dir': () => root.openAt({ symlinkFollow: true }, path, { directory: true }, { read: true }),
      'open write': () => root.openAt({ symlinkFollow: true }, path, {}, { write: true }),
      'open create': () => root.openAt({ symlinkFollow: true }, `${path}/new.txt`, { create: true }, { write: true }),
      'stat follow': () => root.statAt({ symlinkFollow: true }, path),
      'times follow': () => root.setTimesAt({ symlinkFollow: true }, path, ts, ts),
      'hash follow': () => root.metadataHashAt({ symlinkFollow: true }, path),
      'mkdir inside': () => root.createDirectoryAt(`${path}/made`),
      'unlink inside': () => root.unlinkFileAt(`${path}/secret.txt`),
      'rmdir inside': () => root.removeDirectoryAt(`${path}/x`),
      'rename out of': () => root.renameAt(`${path}/secret.txt`, root, 'stolen.txt'),
      'rename into': () => root.renameAt('ok.txt', root, `${path}/planted.txt`),
    };
  }

  for (const path of escapes) {
    it(`refuses ${JSON.stringify(path)} for every operation`, () => {
      const call = callOn(ws);
      const root = call.dir();
      const before = statSync(join(outside, 'secret.txt'));
      for (const [what, attempt] of Object.entries(attempts(root, path))) {
        const code = codeOf(attempt);
        assert.ok(['not-permitted', 'loop', 'no-entry', 'not-directory'].includes(code), `${what} ${path}: unexpected ${code}`);
        if (!path.includes('..') && !path.startsWith('/') && what.startsWith('open')) {
          assert.equal(code, 'not-permitted', `${what} ${path}`);
        }
      }
      const after = statSync(join(outside, 'secret.txt'));
      assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), SECRET);
      assert.equal(after.mtimeMs, before.mtimeMs);
      assert.equal(after.atimeMs === 7000, false);
      assert.ok(!existsSync(join(outside, 'made')) && !existsSync(join(outside, 'planted.txt')) && !existsSync(join(outside, 'new.txt')));
      assert.ok(existsSync(join(ws, 'ok.txt')));
      call.end();
    });
  }

  it('`..` cannot climb above the mount root, even from a subdirectory descriptor', () => {
    const call = callOn(ws);
    const sub = call.dir().openAt({}, 'sub', { directory: true }, { read: true });
    assert.equal(readText(sub, '../ok.txt'), 'inside');
    assert.equal(codeOf(() => sub.openAt({}, '../..', { directory: true }, { read: true })), 'not-permitted');
    assert.equal(codeOf(() => sub.openAt({}, '../../outside/secret.txt', {}, { read: true })), 'not-permitted');
    call.end();
  });

  it('refuses absolute symlink targets even when they point back inside', () => {
    const call = callOn(ws);
    assert.equal(codeOf(() => readText(call.dir(), 'abs-inside')), 'not-permitted');
    call.end();
  });

  it('opening a final symlink without symlink-follow is `loop`; a symlink cycle is `loop`', () => {
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(codeOf(() => root.openAt({}, 'abs-file', {}, { read: true })), 'loop');
    assert.equal(codeOf(() => root.openAt({}, 'ok.txt/../abs-file', {}, { read: true })), 'not-directory');
    assert.equal(codeOf(() => root.openAt({ symlinkFollow: true }, 'loop-a', {}, { read: true })), 'loop');
    assert.equal(codeOf(() => root.statAt({ symlinkFollow: true }, 'loop-a/x')), 'loop');
    call.end();
  });

  it('without following, a link to the outside can be seen and removed, never passed through', () => {
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(root.statAt({}, 'abs-dir').type, 'symbolic-link');
    assert.equal(root.readlinkAt('rel-file'), '../outside/secret.txt');
    writeFileSync(join(ws, 'doomed'), '');
    symlinkSync(outside, join(ws, 'doomed-link'));
    root.unlinkFileAt('doomed-link');
    assert.ok(!existsSync(join(ws, 'doomed-link')) && existsSync(join(outside, 'secret.txt')));
    call.end();
  });

  it('guests cannot create symlinks or hard links', () => {
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(codeOf(() => root.symlinkAt('ok.txt', 'new-link')), 'not-permitted');
    assert.equal(codeOf(() => root.symlinkAt(join(outside, 'secret.txt'), 'new-link')), 'not-permitted');
    assert.equal(codeOf(() => root.linkAt({}, 'ok.txt', root, 'hard')), 'not-permitted');
    assert.equal(codeOf(() => root.linkAt({ symlinkFollow: true }, 'abs-file', root, 'hard')), 'not-permitted');
    assert.ok(!existsSync(join(ws, 'new-link')) && !existsSync(join(ws, 'hard')));
    call.end();
  });

  it('a held directory the host moves out of the mount is cut off (fd checked against the root)', () => {
    mkdirSync(join(ws, 'leaving'));
    writeFileSync(join(ws, 'leaving/data.txt'), 'was inside');
    const call = callOn(ws);
    const leaving = call.dir().openAt({}, 'leaving', { directory: true }, { read: true });
    assert.equal(readText(leaving, 'data.txt'), 'was inside');
    renameSync(join(ws, 'leaving'), join(outside, 'moved-out'));
    assert.equal(codeOf(() => readText(leaving, 'data.txt')), 'not-permitted');
    assert.equal(codeOf(() => leaving.statAt({}, 'data.txt')), 'not-permitted');
    call.end();
  });

  it('a mount whose host path runs through a symlink still works, and still confines', () => {
    const alias = join(base, 'alias');
    symlinkSync(basename(ws), alias);
    const call = callOn(alias);
    const root = call.dir();
    assert.equal(readText(root, 'sub/../ok.txt'), 'inside');
    assert.equal(codeOf(() => readText(root, 'rel-dir/secret.txt')), 'not-permitted');
    call.end();
    assert.equal(lstatSync(alias).isSymbolicLink(), true);
  });
});
