// What a well-behaved tool does with its mounts: read, write, list, make and remove directories,
// rename, stat, streams, times, and the errors POSIX programs expect.
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Call, callOn, codeOf, list, readText, temp, writeText } from './harness.ts';

describe('filesystem host: ordinary use', () => {
  it('exposes exactly the granted mounts at their guest paths, nested ones included', () => {
    const ws = temp('boxbot-fs-ws-');
    const data = temp('boxbot-fs-data-');
    writeFileSync(join(data, 'd.txt'), 'data');
    const call = new Call([
      { host: ws, guest: '/', readOnly: false },
      { host: data, guest: '/data', readOnly: true },
    ]);
    const dirs = call.preopens.getDirectories();
    assert.deepEqual(
      dirs.map(([, g]) => g),
      ['/', '/data'],
    );
    assert.equal(readText(call.dir('/data'), 'd.txt'), 'data');
    assert.equal(dirs[0]![0].getType(), 'directory');
    assert.equal(dirs[1]![0].getFlags().write ?? false, false);
    call.end();
  });

  it('resolves mounts when the call asks, not when the imports are built', () => {
    const ws = temp('boxbot-fs-ws-');
    writeFileSync(join(ws, 'late.txt'), 'bound late');
    const call = new Call([]);
    assert.deepEqual(call.preopens.getDirectories(), []);
    call.end();
    const again = new Call([{ host: ws, guest: '/', readOnly: false }], call.binding);
    assert.equal(readText(again.dir(), 'late.txt'), 'bound late');
    again.end();
  });

  it('writes, reads back, and reports size and type', () => {
    const ws = temp('boxbot-fs-ws-');
    const call = callOn(ws);
    const root = call.dir();
    writeText(root, 'notes.txt', 'hello world');
    assert.equal(readFileSync(join(ws, 'notes.txt'), 'utf8'), 'hello world');
    assert.equal(readText(root, 'notes.txt'), 'hello world');
    const st = root.statAt({}, 'notes.txt');
    assert.equal(st.type, 'regular-file');
    assert.equal(st.size, 11n);
    assert.equal(typeof st.dataModificationTimestamp?.seconds, 'bigint');
    const f = root.openAt({}, 'notes.txt', {}, { read: true, write: true });
    assert.equal(f.write(Buffer.from('W'), 6n), 1n);
    f.setSize(8n);
    assert.equal(f.stat().size, 8n);
    const [head, eof] = f.read(100n, 0n);
    assert.equal(Buffer.from(head).toString(), 'hello Wo');
    assert.equal(f.read(100n, 8n)[1], true, 'reading at the end reports end of file');
    assert.equal(eof || head.length === 8, true);
    f[Symbol.dispose]();
    call.end();
  });

  it('streams read from an offset, write at an offset, and append', () => {
    const ws = temp('boxbot-fs-ws-');
    writeFileSync(join(ws, 'log.txt'), '0123456789');
    const call = callOn(ws);
    const f = call.dir().openAt({}, 'log.txt', {}, { read: true, write: true });
    const input = f.readViaStream(4n);
    assert.equal(Buffer.from(input.read(3n)).toString(), '456');
    assert.equal(Buffer.from(input.read(100n)).toString(), '789');
    assert.equal(
      codeOf(() => input.read(1n)),
      JSON.stringify({ tag: 'closed' }),
    );
    input[Symbol.dispose]();
    const out = f.writeViaStream(2n);
    out.blockingWriteAndFlush(Buffer.from('ab'));
    out.blockingWriteAndFlush(Buffer.from('cd'));
    out[Symbol.dispose]();
    const app = f.appendViaStream();
    app.blockingWriteAndFlush(Buffer.from('!'));
    app.blockingWriteAndFlush(Buffer.from('?'));
    app[Symbol.dispose]();
    f[Symbol.dispose]();
    assert.equal(readFileSync(join(ws, 'log.txt'), 'utf8'), '01abcd6789!?');
    call.end();
  });

  it('makes, lists, renames and removes', () => {
    const ws = temp('boxbot-fs-ws-');
    const call = callOn(ws);
    const root = call.dir();
    root.createDirectoryAt('src');
    root.createDirectoryAt('src/lib/');
    writeText(root, 'src/a.ts', 'a');
    assert.deepEqual(list(root.openAt({}, 'src', { directory: true }, { read: true })), [
      { name: 'a.ts', type: 'regular-file' },
      { name: 'lib', type: 'directory' },
    ]);
    root.renameAt('src/a.ts', root, 'src/lib/b.ts');
    assert.ok(existsSync(join(ws, 'src/lib/b.ts')));
    const lib = root.openAt({}, 'src/lib', { directory: true }, { read: true, mutateDirectory: true });
    lib.renameAt('b.ts', root, 'top.ts');
    assert.ok(existsSync(join(ws, 'top.ts')));
    assert.equal(
      codeOf(() => root.removeDirectoryAt('src')),
      'not-empty',
    );
    assert.equal(
      codeOf(() => lib.removeDirectoryAt('../lib')),
      'not-permitted',
      'a descriptor reaches only below itself',
    );
    root.removeDirectoryAt('src/lib');
    root.removeDirectoryAt('src/');
    root.unlinkFileAt('top.ts');
    assert.deepEqual(list(root), []);
    call.end();
  });

  it('renames directories named with a trailing slash, on either side (`mv a/ b/`)', () => {
    const ws = temp('boxbot-fs-ws-');
    const call = callOn(ws);
    const root = call.dir();
    root.createDirectoryAt('source');
    root.renameAt('source/', root, 'target');
    root.renameAt('target', root, 'source/');
    root.renameAt('source//', root, 'target/');
    assert.ok(statSync(join(ws, 'target')).isDirectory() && !existsSync(join(ws, 'source')));
    writeFileSync(join(ws, 'file'), 'f');
    assert.equal(
      codeOf(() => root.renameAt('file/', root, 'moved')),
      'not-directory',
    );
    assert.equal(
      codeOf(() => root.renameAt('file', root, 'moved/')),
      'not-directory',
    );
    assert.equal(
      codeOf(() => root.renameAt('missing/', root, 'moved')),
      'no-entry',
    );
    assert.ok(existsSync(join(ws, 'file')) && !existsSync(join(ws, 'moved')));
    call.end();
  });

  it('reports the errors POSIX programs expect', () => {
    const ws = temp('boxbot-fs-ws-');
    mkdirSync(join(ws, 'd'));
    writeFileSync(join(ws, 'f'), 'x');
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(
      codeOf(() => root.openAt({}, 'missing', {}, { read: true })),
      'no-entry',
    );
    assert.equal(
      codeOf(() => root.openAt({}, 'f', { create: true, exclusive: true }, { write: true })),
      'exist',
    );
    assert.equal(
      codeOf(() => root.createDirectoryAt('d')),
      'exist',
    );
    assert.equal(
      codeOf(() => root.openAt({}, 'f/x', {}, { read: true })),
      'not-directory',
    );
    assert.equal(
      codeOf(() => root.openAt({}, 'f', { directory: true }, { read: true })),
      'not-directory',
    );
    assert.equal(
      codeOf(() => root.openAt({}, 'd', {}, { write: true })),
      'is-directory',
    );
    assert.equal(
      codeOf(() => root.unlinkFileAt('d')),
      'is-directory',
    );
    assert.equal(
      codeOf(() => root.removeDirectoryAt('f')),
      'not-directory',
    );
    assert.equal(
      codeOf(() => root.openAt({}, 'bad\0name', {}, { read: true })),
      'invalid',
    );
    assert.equal(
      codeOf(() => root.readlinkAt('f')),
      'invalid',
    );
    const f = root.openAt({}, 'f', {}, { read: true });
    assert.equal(
      codeOf(() => f.openAt({}, 'x', {}, {})),
      'not-directory',
    );
    assert.equal(
      codeOf(() => f.readDirectory()),
      'not-directory',
    );
    assert.equal(
      codeOf(() => f.write(Buffer.from('no'), 0n)),
      'bad-descriptor',
    );
    assert.equal(
      codeOf(() => root.read(1n, 0n)),
      'is-directory',
    );
    call.end();
  });

  it('follows symlinks that stay inside the mount, and reads them without following', () => {
    const ws = temp('boxbot-fs-ws-');
    mkdirSync(join(ws, 'real/deep'), { recursive: true });
    writeFileSync(join(ws, 'real/deep/file.txt'), 'inside');
    symlinkSync('real/deep', join(ws, 'shortcut'));
    symlinkSync('../deep/file.txt', join(ws, 'real/deep/again'));
    symlinkSync('shortcut/../deep', join(ws, 'via-dotdot'));
    const call = callOn(ws);
    const root = call.dir();
    assert.equal(readText(root, 'shortcut/file.txt'), 'inside');
    assert.equal(readText(root, 'shortcut/again'), 'inside');
    assert.equal(readText(root, 'via-dotdot/file.txt'), 'inside', "`..` after a symlink is its target's parent");
    assert.equal(root.readlinkAt('shortcut'), 'real/deep');
    assert.equal(root.statAt({}, 'shortcut').type, 'symbolic-link');
    assert.equal(root.statAt({ symlinkFollow: true }, 'shortcut').type, 'directory');
    assert.deepEqual(
      root.metadataHashAt({ symlinkFollow: true }, 'shortcut/file.txt'),
      root.openAt({}, 'real/deep/file.txt', {}, { read: true }).metadataHash(),
      'metadata-hash-at and metadata-hash agree on the same object',
    );
    assert.notDeepEqual(root.metadataHashAt({}, 'shortcut'), root.metadataHashAt({ symlinkFollow: true }, 'shortcut'));
    const a = root.openAt({ symlinkFollow: true }, 'shortcut', {}, { read: true });
    const b = root.openAt({}, 'real/deep', { directory: true }, { read: true });
    assert.equal(a.isSameObject(b), true);
    assert.equal(a.isSameObject(root), false);
    call.end();
  });

  it('resolves long `..` chains within a deep descriptor and along deep paths', () => {
    const ws = temp('boxbot-fs-ws-');
    const letters = 'abcdefghijklmnop'.split('');
    mkdirSync(join(ws, ...letters, ...letters), { recursive: true });
    writeFileSync(join(ws, 'top.txt'), 'top');
    writeFileSync(join(ws, ...letters, 'bottom.txt'), 'bottom');
    const call = callOn(ws);
    const root = call.dir();
    const up = letters.map(() => '..').join('/');
    const deep = root.openAt({}, letters.join('/'), { directory: true }, { read: true });
    assert.equal(readText(deep, `${letters.join('/')}/${up}/bottom.txt`), 'bottom');
    assert.equal(readText(root, `${letters.join('/')}/${up}/${letters.join('/')}/bottom.txt`), 'bottom');
    assert.equal(readText(root, `${letters.join('/')}/${up}/top.txt`), 'top');
    // A descriptor is a capability for what is below it (as in WASI): `..` stops at it.
    assert.equal(
      codeOf(() => deep.statAt({}, '..')),
      'not-permitted',
    );
    assert.equal(
      codeOf(() => deep.statAt({}, `${up}/top.txt`)),
      'not-permitted',
    );
    call.end();
  });

  it('sets times on files, on descriptors, and on a symlink itself', () => {
    const ws = temp('boxbot-fs-ws-');
    writeFileSync(join(ws, 't.txt'), 't');
    symlinkSync('t.txt', join(ws, 'link'));
    const call = callOn(ws);
    const root = call.dir();
    const at = (seconds: bigint) => ({ tag: 'timestamp' as const, val: { seconds, nanoseconds: 500_000_000 } });
    root.setTimesAt({}, 't.txt', at(1_000_000n), at(2_000_000n));
    assert.equal(statSync(join(ws, 't.txt')).mtimeMs, 2_000_000_500);
    assert.equal(statSync(join(ws, 't.txt')).atimeMs, 1_000_000_500);
    root.setTimesAt({ symlinkFollow: true }, 'link', { tag: 'no-change' }, at(3_000_000n));
    assert.equal(statSync(join(ws, 't.txt')).mtimeMs, 3_000_000_500);
    assert.equal(statSync(join(ws, 't.txt')).atimeMs, 1_000_000_500, 'no-change keeps the access time');
    root.setTimesAt({}, 'link', at(4_000_000n), at(5_000_000n));
    assert.equal(lstatSync(join(ws, 'link')).mtimeMs, 5_000_000_500, 'without follow the link itself changes');
    assert.equal(statSync(join(ws, 't.txt')).mtimeMs, 3_000_000_500, '... and its target does not');
    const f = root.openAt({}, 't.txt', {}, { read: true });
    f.setTimes({ tag: 'now' }, { tag: 'no-change' });
    assert.ok(Math.abs(statSync(join(ws, 't.txt')).atimeMs - Date.now()) < 60_000);
    call.end();
  });
});
