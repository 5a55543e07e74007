// A read-only mount refuses every write with `read-only`, whatever the files' permission bits
// say, and leaves the host directory byte-for-byte as it was.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Call, callOn, codeOf, type Desc, list, readText, temp } from './harness.ts';

/** Every entry under `dir` with its mode, size, mtime and content (atimes move when we look). */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      out.push(`${p}:${st.mode}:${st.size}:${st.mtimeMs}:${st.isFile() ? readFileSync(p, 'utf8') : ''}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.join('\n');
}

describe('filesystem host: read-only mounts', () => {
  function fixture(): string {
    const ws = temp('boxbot-fs-ro-');
    mkdirSync(join(ws, 'dir'));
    mkdirSync(join(ws, 'empty'));
    writeFileSync(join(ws, 'file.txt'), 'original', { mode: 0o666 });
    writeFileSync(join(ws, 'dir/inner.txt'), 'inner', { mode: 0o666 });
    return ws;
  }

  const ts = { tag: 'timestamp' as const, val: { seconds: 12345n, nanoseconds: 0 } };

  const writes: Record<string, (root: Desc, file: Desc) => unknown> = {
    'open for write': (root) => root.openAt({}, 'file.txt', {}, { write: true }),
    'open read+write': (root) => root.openAt({}, 'file.txt', {}, { read: true, write: true }),
    'open truncate': (root) => root.openAt({}, 'file.txt', { truncate: true }, { read: true }),
    'open create (existing)': (root) => root.openAt({}, 'file.txt', { create: true }, { read: true }),
    'open create (new)': (root) => root.openAt({}, 'new.txt', { create: true }, { read: true }),
    'write-via-stream': (_, file) => file.writeViaStream(0n),
    'append-via-stream': (_, file) => file.appendViaStream(),
    write: (_, file) => file.write(Buffer.from('x'), 0n),
    'set-size': (_, file) => file.setSize(0n),
    'set-times': (_, file) => file.setTimes(ts, ts),
    'set-times on the root': (root) => root.setTimes(ts, ts),
    'set-times-at': (root) => root.setTimesAt({}, 'file.txt', ts, ts),
    'set-times-at follow': (root) => root.setTimesAt({ symlinkFollow: true }, 'dir/inner.txt', ts, ts),
    'create-directory-at': (root) => root.createDirectoryAt('made'),
    'unlink-file-at': (root) => root.unlinkFileAt('file.txt'),
    'unlink-file-at (missing)': (root) => root.unlinkFileAt('nothing.txt'),
    'remove-directory-at': (root) => root.removeDirectoryAt('empty'),
    'rename-at': (root) => root.renameAt('file.txt', root, 'moved.txt'),
    'symlink-at': (root) => root.symlinkAt('file.txt', 'link'),
    'link-at': (root) => root.linkAt({}, 'file.txt', root, 'hard'),
  };

  for (const [what, attempt] of Object.entries(writes)) {
    it(`refuses ${what}`, () => {
      const ws = fixture();
      const before = snapshot(ws);
      const call = callOn(ws, true);
      const root = call.dir();
      const file = root.openAt({}, 'file.txt', {}, { read: true });
      assert.equal(
        codeOf(() => attempt(root, file)),
        'read-only',
      );
      call.end();
      assert.equal(snapshot(ws), before);
    });
  }

  it('refuses rename-at when either side is read-only', () => {
    const ro = fixture();
    const rw = temp('boxbot-fs-rw-');
    writeFileSync(join(rw, 'mine.txt'), 'mine');
    const before = snapshot(ro);
    const call = new Call([
      { host: rw, guest: '/', readOnly: false },
      { host: ro, guest: '/ro', readOnly: true },
    ]);
    const [rwRoot, roRoot] = [call.dir('/'), call.dir('/ro')];
    assert.equal(
      codeOf(() => rwRoot.renameAt('mine.txt', roRoot, 'planted.txt')),
      'read-only',
    );
    assert.equal(
      codeOf(() => roRoot.renameAt('file.txt', rwRoot, 'taken.txt')),
      'read-only',
    );
    call.end();
    assert.equal(snapshot(ro), before);
    assert.equal(readFileSync(join(rw, 'mine.txt'), 'utf8'), 'mine');
  });

  it('still reads, lists and stats, and opens directories a guest asks to mutate', () => {
    const ws = fixture();
    const call = callOn(ws, true);
    const root = call.dir();
    assert.equal(readText(root, 'dir/inner.txt'), 'inner');
    assert.deepEqual(
      list(root).map((e) => e.name),
      ['dir', 'empty', 'file.txt'],
    );
    assert.equal(root.statAt({}, 'file.txt').size, 8n);
    const dir = root.openAt({}, 'dir', { directory: true }, { read: true, mutateDirectory: true });
    assert.equal(dir.getFlags().mutateDirectory ?? false, false, 'the grant, not the request, decides');
    assert.equal(
      codeOf(() => dir.unlinkFileAt('inner.txt')),
      'read-only',
    );
    root.sync();
    call.end();
  });
});
