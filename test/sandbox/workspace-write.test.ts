// writeWorkspaceFile: how the host saves a file a chat user sent into a conversation's workspace
// (`inbox/`). A tool can have planted links there first; none of them may redirect the write.
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeWorkspaceFile } from '../../src/sandbox/index.ts';
import { tempDir } from '../helpers.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('writeWorkspaceFile', () => {
  it('creates inbox/ and the file, and replaces it whole when saved again', () => {
    const ws = join(tempDir('boxbot-ws-'), 'not-yet');
    assert.deepEqual(writeWorkspaceFile(ws, 'inbox', 'a.txt', bytes('one')), { ok: true, path: 'inbox/a.txt' });
    assert.deepEqual(writeWorkspaceFile(ws, 'inbox', 'a.txt', bytes('two')), { ok: true, path: 'inbox/a.txt' });
    assert.equal(readFileSync(join(ws, 'inbox', 'a.txt'), 'utf8'), 'two');
    assert.deepEqual(readdirSync(join(ws, 'inbox')), ['a.txt'], 'no temporary file is left behind');
  });

  it('refuses a symlinked inbox (to a folder outside, or inside the workspace) and writes nothing there', () => {
    const outside = tempDir('boxbot-outside-');
    for (const target of [outside, 'docs']) {
      const ws = tempDir('boxbot-ws-');
      mkdirSync(join(ws, 'docs'));
      symlinkSync(target, join(ws, 'inbox'));
      const r = writeWorkspaceFile(ws, 'inbox', 'a.txt', bytes('x'));
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.reason : '', /symlink/);
      assert.deepEqual(readdirSync(join(ws, 'docs')), []);
    }
    assert.deepEqual(readdirSync(outside), []);
  });

  it('replaces a symlink at the file name instead of writing through it', () => {
    const ws = tempDir('boxbot-ws-');
    const outside = tempDir('boxbot-outside-');
    writeFileSync(join(outside, 'victim'), 'keep');
    mkdirSync(join(ws, 'inbox'));
    symlinkSync(join(outside, 'victim'), join(ws, 'inbox', 'a.txt'));
    assert.equal(writeWorkspaceFile(ws, 'inbox', 'a.txt', bytes('new')).ok, true);
    assert.equal(readFileSync(join(outside, 'victim'), 'utf8'), 'keep');
    assert.equal(lstatSync(join(ws, 'inbox', 'a.txt')).isFile(), true);
  });

  it('counts against the workspace quota: a file that would pass it is refused, nothing written', () => {
    const ws = tempDir('boxbot-ws-');
    writeFileSync(join(ws, 'big.bin'), new Uint8Array(64 * 1024));
    const r = writeWorkspaceFile(ws, 'inbox', 'a.bin', new Uint8Array(32 * 1024), { maxWorkspaceBytes: 80 * 1024 });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.reason : '', /quota of 81920 bytes/);
    assert.equal(writeWorkspaceFile(ws, 'inbox', 'b.bin', bytes('small'), { maxWorkspaceBytes: 80 * 1024 }).ok, true);
  });

  it('counts the folder it makes a block, as a tool mkdir does; an existing folder is not counted again', () => {
    const ws = tempDir('boxbot-ws-');
    const quota = { maxWorkspaceBytes: 10 * 1024 };
    // 8 KiB of file and a new 4 KiB folder pass 10 KiB: refused, nothing made.
    const r = writeWorkspaceFile(ws, 'inbox', 'a.bin', new Uint8Array(8 * 1024), quota);
    assert.match(!r.ok ? r.reason : 'written', /quota of 10240 bytes/);
    assert.equal(existsSync(join(ws, 'inbox')), false);
    // 1 KiB and the folder fit. Then the walk counts the folder (4 KiB) and the file's block
    // (4 KiB): half a KiB more fits, which it would not if the folder were counted again.
    assert.equal(writeWorkspaceFile(ws, 'inbox', 'b.bin', new Uint8Array(1024), quota).ok, true);
    assert.equal(writeWorkspaceFile(ws, 'inbox', 'c.bin', new Uint8Array(512), quota).ok, true);
  });

  it('is refused, nothing written, where tools could no longer write: past the entry limit', () => {
    const ws = tempDir('boxbot-ws-');
    for (let i = 0; i < 4; i++) writeFileSync(join(ws, `f${i}`), '');
    const quota = { maxWorkspaceBytes: 1 << 30, maxEntries: 5 };
    const r = writeWorkspaceFile(ws, 'inbox', 'a.bin', bytes('a'), quota);
    assert.match(!r.ok ? r.reason : 'written', /more than 5 files, folders and links/);
    assert.equal(existsSync(join(ws, 'inbox')), false);
    rmSync(join(ws, 'f0'));
    assert.equal(writeWorkspaceFile(ws, 'inbox', 'a.bin', bytes('a'), quota).ok, true);
  });

  it('saves a name near the 255-byte limit, non-ASCII ones too', () => {
    const ws = tempDir('boxbot-ws-');
    for (const name of ['写'.repeat(85), `${'a'.repeat(251)}.txt`]) {
      assert.deepEqual(writeWorkspaceFile(ws, 'inbox', name, bytes('x')), { ok: true, path: `inbox/${name}` });
      assert.equal(readFileSync(join(ws, 'inbox', name), 'utf8'), 'x');
    }
  });

  it('refuses names that are not one plain component', () => {
    const ws = tempDir('boxbot-ws-');
    for (const name of ['../x', 'a/b', '..', '.', '', 'a\0b'])
      assert.equal(writeWorkspaceFile(ws, 'inbox', name, bytes('x')).ok, false);
    assert.equal(writeWorkspaceFile(ws, '../up', 'a', bytes('x')).ok, false);
  });
});
