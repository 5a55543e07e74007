// Nothing outside the mounts exists for a guest: `..`, absolute paths and pre-existing symlinks
// to the outside (file or directory, relative or absolute target) are refused for every
// operation; guests may make symlinks whose targets stay inside the mount and hard links within
// one mount, and those resolve through the same walk as any other link.
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { Call, callOn, codeOf, type Desc, readText, temp } from './harness.ts';

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
        assert.ok(
          ['not-permitted', 'loop', 'no-entry', 'not-directory'].includes(code),
          `${what} ${path}: unexpected ${code}`,
        );
        if (!path.includes('..') && !path.startsWith('/') && what.startsWith('open')) {
          assert.equal(code, 'not-permitted', `${what} ${path}`);
        }
      }
      const after = statSync(join(outside, 'secret.txt'));
      assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), SECRET);
      assert.equal(after.mtimeMs, before.mtimeMs);
      assert.equal(after.atimeMs === 7000, false);
      assert.ok(
        !existsSync(join(outside, 'made')) &&
          !existsSync(join(outside, 'planted.txt')) &&
          !existsSync(join(outside, 'new.txt')),
      );
      assert.ok(existsSync(join(ws, 'ok.txt')));
      call.end();
    });
  }

  it('`..` cannot climb above the descriptor it starts from, let alone the mount root', () => {
    const call = callOn(ws);
    const sub = call.dir().openAt({}, 'sub', { directory: true }, { read: true });
    assert.equal(readText(call.dir(), 'sub/../ok.txt'), 'inside');
    assert.equal(
      codeOf(() => readText(sub, '../ok.txt')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => sub.statAt({}, './../sub')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => sub.openAt({}, '../..', { directory: true }, { read: true })),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => sub.openAt({}, '../../outside/secret.txt', {}, { read: true })),
      'not-permitted',
    );
    call.end();
  });

  it('refuses absolute symlink targets even when they point back inside', () => {
    const call = callOn(ws);
    assert.equal(
      codeOf(() => readText(call.dir(), 'abs-inside')),
      'not-permitted',
    );
    call.end();
  });

  it('opening a final symlink without symlink-follow is `loop`; a symlink cycle is `loop`', () => {
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(
      codeOf(() => root.openAt({}, 'abs-file', {}, { read: true })),
      'loop',
    );
    assert.equal(
      codeOf(() => root.openAt({}, 'ok.txt/../abs-file', {}, { read: true })),
      'not-directory',
    );
    assert.equal(
      codeOf(() => root.openAt({ symlinkFollow: true }, 'loop-a', {}, { read: true })),
      'loop',
    );
    assert.equal(
      codeOf(() => root.statAt({ symlinkFollow: true }, 'loop-a/x')),
      'loop',
    );
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

  it('guests create symlinks that stay inside the mount, and nothing else', () => {
    const call = callOn(ws);
    const root = call.dir();
    root.symlinkAt('ok.txt', 'new-link');
    root.symlinkAt('../ok.txt', 'sub/up-link');
    root.symlinkAt('sub/../ok.txt', 'round-trip');
    assert.equal(lstatSync(join(ws, 'new-link')).isSymbolicLink(), true);
    assert.equal(root.readlinkAt('sub/up-link'), '../ok.txt');
    assert.equal(readText(root, 'new-link'), 'inside');
    assert.equal(readText(root, 'sub/up-link'), 'inside');
    assert.equal(readText(root, 'round-trip'), 'inside');
    const refused: [string, string][] = [
      [join(outside, 'secret.txt'), 'abs-out'],
      [join(ws, 'ok.txt'), 'abs-in'],
      ['../outside/secret.txt', 'rel-out'],
      ['../../outside', 'sub/deep-out'],
      ['sub/../../outside', 'dotdot-out'],
      ['..', 'parent'],
    ];
    for (const [target, name] of refused) {
      assert.equal(
        codeOf(() => root.symlinkAt(target, name)),
        'not-permitted',
        `${name} -> ${target}`,
      );
      assert.ok(
        !existsSync(join(ws, name)) && !lstatSync(join(ws, name), { throwIfNoEntry: false }),
        `${name} was created`,
      );
    }
    for (const n of ['new-link', 'sub/up-link', 'round-trip']) root.unlinkFileAt(n);
    call.end();
  });

  it('a created symlink moved so that it climbs out is refused when used, like a planted one', () => {
    const call = callOn(ws);
    const root = call.dir();
    // From sub/ the target is ws/outside/secret.txt: inside (if missing), so it may be created.
    root.symlinkAt('../outside/secret.txt', 'sub/mover');
    root.renameAt('sub/mover', root, 'mover');
    // From the root the same text names the real secret beside the mount.
    assert.equal(
      codeOf(() => readText(root, 'mover')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => root.statAt({ symlinkFollow: true }, 'mover')),
      'not-permitted',
    );
    root.unlinkFileAt('mover');
    call.end();
  });

  it('guests create hard links within one writable mount only', () => {
    const other = temp('boxbot-fs-other-');
    const call = new Call([
      { host: ws, guest: '/', readOnly: false },
      { host: other, guest: '/other', readOnly: false },
    ]);
    const [root, second] = [call.dir('/'), call.dir('/other')];
    root.linkAt({}, 'ok.txt', root, 'sub/hard');
    assert.equal(statSync(join(ws, 'sub/hard')).ino, statSync(join(ws, 'ok.txt')).ino);
    assert.equal(root.statAt({}, 'ok.txt').linkCount, 2n);
    assert.equal(readText(root, 'sub/hard'), 'inside');
    root.unlinkFileAt('sub/hard');
    assert.equal(
      codeOf(() => root.linkAt({}, 'ok.txt', second, 'stolen')),
      'cross-device',
    );
    assert.equal(
      codeOf(() => second.linkAt({}, '../ok.txt', second, 'x')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => root.linkAt({}, 'sub', root, 'dir-link')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => root.linkAt({ symlinkFollow: true }, 'abs-file', root, 'hard')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => root.linkAt({ symlinkFollow: true }, 'rel-file', root, 'hard')),
      'not-permitted',
    );
    // Without following, the link is to the symlink itself: its use is still refused.
    root.linkAt({}, 'rel-file', root, 'link-to-link');
    assert.equal(lstatSync(join(ws, 'link-to-link')).isSymbolicLink(), true);
    assert.equal(
      codeOf(() => readText(root, 'link-to-link')),
      'not-permitted',
    );
    root.unlinkFileAt('link-to-link');
    assert.ok(!existsSync(join(ws, 'hard')) && readdirSync(other).length === 0);
    call.end();
  });

  it('a held directory the host moves out of the mount is cut off (fd checked against the root)', () => {
    mkdirSync(join(ws, 'leaving'));
    writeFileSync(join(ws, 'leaving/data.txt'), 'was inside');
    const call = callOn(ws);
    const leaving = call.dir().openAt({}, 'leaving', { directory: true }, { read: true });
    assert.equal(readText(leaving, 'data.txt'), 'was inside');
    renameSync(join(ws, 'leaving'), join(outside, 'moved-out'));
    assert.equal(
      codeOf(() => readText(leaving, 'data.txt')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => leaving.statAt({}, 'data.txt')),
      'not-permitted',
    );
    call.end();
  });

  it('a mount whose host path runs through a symlink still works, and still confines', () => {
    const alias = join(base, 'alias');
    symlinkSync(basename(ws), alias);
    const call = callOn(alias);
    const root = call.dir();
    assert.equal(readText(root, 'sub/../ok.txt'), 'inside');
    assert.equal(
      codeOf(() => readText(root, 'rel-dir/secret.txt')),
      'not-permitted',
    );
    call.end();
    assert.equal(lstatSync(alias).isSymbolicLink(), true);
  });
});
