// Every fd a call opens is closed when the guest drops its descriptor or, at the latest, when
// the call ends; a descriptor outliving its call is dead (`bad-descriptor`) and never touches
// whatever fd number the process has reused since.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Call, callOn, codeOf, type Desc, temp } from './harness.ts';

/** Whether fd number `fd` is open. */
function isOpen(fd: string): boolean {
  try {
    readlinkSync(`/proc/self/fd/${fd}`);
    return true;
  } catch {
    return false;
  }
}

/** The fd numbers open now (not the listing's own: it is closed by the time the list is back). */
const fdsOpen = (): Set<string> => new Set(readdirSync('/proc/self/fd').filter(isOpen));

/**
 * No fd is open that was not open before. One may have closed meanwhile (an fd of an earlier test,
 * or of Node itself, closed by a thread-pool thread): that is no leak; but a leak followed by such
 * a close is still seen, which a count of fds would miss.
 */
function assertNoneLeaked(before: Set<string>): void {
  const added = [...fdsOpen()].filter((fd) => !before.has(fd));
  assert.deepEqual(added, [], `fd(s) ${added.join(', ')} left open`);
}

function fixture(): string {
  const ws = temp('boxbot-fs-life-');
  mkdirSync(join(ws, 'a/b/c'), { recursive: true });
  writeFileSync(join(ws, 'a/b/c/f.txt'), 'data');
  return ws;
}

describe('filesystem host: descriptor lifetime', () => {
  it('closes every fd the call opened when the call ends', () => {
    const ws = fixture();
    const before = fdsOpen();
    const call = callOn(ws);
    const root = call.dir();
    const held: Desc[] = [];
    for (let i = 0; i < 50; i++) {
      held.push(root.openAt({}, 'a/b/c/f.txt', {}, { read: true }));
      held.push(root.openAt({}, 'a/b', { directory: true }, { read: true }));
    }
    held[0]!.readViaStream(0n);
    held[1]!.readDirectory();
    call.preopens.getDirectories();
    assert.ok(fdsOpen().size >= before.size + 100, 'the descriptors hold fds while the call runs');
    call.end();
    assertNoneLeaked(before);
  });

  it('closes a descriptor’s fd as soon as the guest drops it', () => {
    const ws = fixture();
    const call = callOn(ws);
    const root = call.dir();
    const before = fdsOpen();
    const f = root.openAt({}, 'a/b/c/f.txt', {}, { read: true });
    assert.equal(fdsOpen().size, before.size + 1);
    f[Symbol.dispose]();
    assertNoneLeaked(before);
    assert.equal(
      codeOf(() => f.stat()),
      'bad-descriptor',
    );
    call.end();
  });

  it('caps the descriptors one call may hold', () => {
    const ws = fixture();
    const before = fdsOpen();
    const call = callOn(ws);
    const root = call.dir();
    let held = 1;
    let code = '';
    for (; held < 5000; held++) {
      try {
        root.openAt({}, 'a/b/c/f.txt', {}, { read: true });
      } catch (e) {
        code = e as string;
        break;
      }
    }
    assert.equal(code, 'insufficient-memory');
    assert.ok(held <= 1024, `held ${held} descriptors`);
    call.end();
    assertNoneLeaked(before);
  });

  it('a grant naming a missing directory fails the call (a host error, not a guest one) and leaks nothing', () => {
    const ws = fixture();
    const before = fdsOpen();
    const call = new Call([
      { host: ws, guest: '/', readOnly: false },
      { host: join(ws, 'no-such-dir'), guest: '/data', readOnly: true },
    ]);
    assert.throws(
      () => call.preopens.getDirectories(),
      (e) => e instanceof Error && /mount \/data is unavailable/.test(e.message),
    );
    assert.throws(() => call.preopens.getDirectories(), Error, 'and again: no half-opened mount list is kept');
    call.end();
    assertNoneLeaked(before);
  });

  it('walks leave no fds behind, whether they succeed or fail', () => {
    const ws = fixture();
    const call = callOn(ws);
    const root = call.dir();
    const before = fdsOpen();
    for (let i = 0; i < 20; i++) {
      root.statAt({}, 'a/b/c/f.txt');
      root.statAt({}, 'a/b/../b/c/../../b/c/f.txt');
      codeOf(() => root.statAt({}, 'a/b/c/missing/x'));
      codeOf(() => root.statAt({}, 'a/b/c/f.txt/x'));
      codeOf(() => root.statAt({}, 'a/../../x'));
    }
    assertNoneLeaked(before);
    call.end();
  });

  it('a descriptor from an ended call fails with bad-descriptor and never touches a reused fd', () => {
    const ws = fixture();
    const victim = join(temp('boxbot-fs-victim-'), 'victim.txt');
    writeFileSync(victim, 'victim');
    const call = callOn(ws);
    const root = call.dir();
    const file = root.openAt({}, 'a/b/c/f.txt', {}, { read: true, write: true });
    const dir = root.openAt({}, 'a', { directory: true }, { read: true });
    const stream = file.writeViaStream(0n);
    call.end();
    // The freed fd numbers are handed out again, to files the old call must not reach.
    const reused = Array.from({ length: 8 }, () => openSync(victim, 'r+'));
    try {
      const next = callOn(ws);
      next.dir();
      for (const d of [file, dir, root]) {
        assert.equal(
          codeOf(() => d.stat()),
          'bad-descriptor',
        );
        assert.equal(
          codeOf(() => d.getType()),
          'bad-descriptor',
        );
      }
      assert.equal(
        codeOf(() => file.write(Buffer.from('pwned!'), 0n)),
        'bad-descriptor',
      );
      assert.equal(
        codeOf(() => file.read(10n, 0n)),
        'bad-descriptor',
      );
      assert.equal(
        codeOf(() => file.setSize(0n)),
        'bad-descriptor',
      );
      assert.equal(
        codeOf(() => dir.openAt({}, 'b', {}, {})),
        'bad-descriptor',
      );
      assert.equal(
        codeOf(() => root.createDirectoryAt('late')),
        'bad-descriptor',
      );
      assert.notEqual(
        codeOf(() => stream.blockingWriteAndFlush(Buffer.from('pwned!'))),
        '',
      );
      next.end();
    } finally {
      for (const fd of reused) closeSync(fd);
    }
    assert.equal(readFileSync(victim, 'utf8'), 'victim');
    assert.equal(readFileSync(join(ws, 'a/b/c/f.txt'), 'utf8'), 'data');
  });
});
