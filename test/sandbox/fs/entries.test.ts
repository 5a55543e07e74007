// The entry limit of a writable mount: the walk that measures a workspace for its quota counts
// a bounded number of names, so a guest may create no more than that, and a tree already past
// it (its size unknown) takes no more bytes. A small limit stands in for the real 100,000.
import assert from 'node:assert/strict';
import { mkdirSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Binding } from '../../../src/sandbox/host/context.ts';
import { DIRECTORY_BYTES, mountUsage } from '../../../src/sandbox/host/fs-quota.ts';
import { Call, codeOf, temp, writeText } from './harness.ts';

const callWith = (ws: string, limits: { maxEntries: number; maxDiskBytes?: number }) =>
  new Call([{ host: ws, guest: '/', readOnly: false }], new Binding(), limits);

describe('filesystem host: entry limit', () => {
  it('lets a guest make names up to the limit, then refuses each kind with ENOSPC naming the limit', () => {
    const ws = temp('boxbot-fs-entries-');
    writeFileSync(join(ws, 'there.txt'), 'x');
    const call = callWith(ws, { maxEntries: 5 });
    const root = call.dir();
    writeText(root, 'a.txt', 'a');
    root.createDirectoryAt('d');
    root.symlinkAt('a.txt', 'link');
    root.linkAt({}, 'a.txt', root, 'hard');
    // Failed attempts cost nothing: the directory exists already.
    assert.equal(
      codeOf(() => root.createDirectoryAt('d')),
      'exist',
    );
    const refusals = {
      file: () => writeText(root, 'b.txt', 'b'),
      directory: () => root.createDirectoryAt('e'),
      symlink: () => root.symlinkAt('a.txt', 'link2'),
      'hard link': () => root.linkAt({}, 'a.txt', root, 'hard2'),
    };
    for (const [what, f] of Object.entries(refusals)) assert.equal(codeOf(f), 'insufficient-space', what);
    assert.equal(call.ctx.refused?.trap, 'disk');
    assert.match(call.ctx.refused!.message, /more than 5 files, directories and links \(its entry limit\)/);
    writeText(root, 'a.txt', 'overwriting makes no new name');
    root.unlinkFileAt('hard');
    root.createDirectoryAt('e');
    call.end();
  });

  it('takes no more bytes in a tree already past the limit, whose size the walk cannot know', () => {
    const ws = temp('boxbot-fs-entries-');
    for (let i = 0; i < 6; i++) writeFileSync(join(ws, `f${i}`), '');
    const call = callWith(ws, { maxEntries: 5, maxDiskBytes: 1 << 30 });
    const root = call.dir();
    const f = root.openAt({}, 'f0', {}, { write: true });
    assert.equal(
      codeOf(() => f.write(Buffer.from('x'), 0n)),
      'insufficient-space',
    );
    assert.match(call.ctx.refused!.message, /holds more than 5 files, directories and links .*remove some/);
    root.unlinkFileAt('f1');
    assert.equal(
      codeOf(() => writeText(root, 'g', 'still unknown in this call')),
      'insufficient-space',
    );
    call.end();
    const next = callWith(ws, { maxEntries: 5, maxDiskBytes: 1 << 30 });
    writeText(next.dir(), 'f0', 'the next call counts 5 names and may write');
    next.end();
  });

  it('charges each directory a block of the disk quota: empty directories run out of space, not of names', () => {
    const ws = temp('boxbot-fs-entries-');
    const limits = { maxEntries: 1000, maxDiskBytes: 10 * DIRECTORY_BYTES };
    const call = callWith(ws, limits);
    const root = call.dir();
    const paths: string[] = [];
    let refused: string | undefined;
    for (let path = 'd'; paths.length < limits.maxEntries; path += '/d') {
      try {
        root.createDirectoryAt(path);
      } catch (e) {
        refused = String(e);
        break;
      }
      paths.push(path);
    }
    assert.equal(refused, 'insufficient-space');
    assert.equal(paths.length, 10, 'ten nested directories fit in ten blocks');
    assert.equal(call.ctx.refused?.trap, 'disk');
    assert.match(call.ctx.refused!.message, /quota of 40960 bytes/);
    assert.equal(
      codeOf(() => root.createDirectoryAt('d')),
      'exist',
    );
    // Removing one gives its block back.
    root.removeDirectoryAt(paths.pop()!);
    root.createDirectoryAt('e');
    call.end();
    // The next call measures the tree the same way: still full.
    const next = callWith(ws, limits);
    assert.equal(
      codeOf(() => next.dir().createDirectoryAt('f')),
      'insufficient-space',
    );
    next.end();
  });

  it('refuses a rename into another writable mount (cross-device), which would carry names past its limit', () => {
    const [a, b] = [temp('boxbot-fs-entries-'), temp('boxbot-fs-entries-')];
    mkdirSync(join(a, 'tree'));
    for (let i = 0; i < 4; i++) writeFileSync(join(a, `tree/f${i}`), 'x');
    const call = new Call(
      [
        { host: a, guest: '/a', readOnly: false },
        { host: b, guest: '/b', readOnly: false },
      ],
      new Binding(),
      { maxEntries: 2 },
    );
    assert.equal(
      codeOf(() => call.dir('/a').renameAt('tree', call.dir('/b'), 'tree')),
      'cross-device',
    );
    assert.deepEqual(readdirSync(b), []);
    assert.equal(readdirSync(join(a, 'tree')).length, 4);
    call.end();
  });

  it('counts every byte under the limit, nested folders included, and stops past it', () => {
    const ws = temp('boxbot-fs-entries-');
    mkdirSync(join(ws, 'a/b/c'), { recursive: true });
    writeFileSync(join(ws, 'a/b/c/deep.bin'), Buffer.alloc(64 * 1024, 1));
    writeFileSync(join(ws, 'top.bin'), Buffer.alloc(64 * 1024, 1));
    const fd = openSync(ws, 'r');
    const exact = mountUsage(fd, 5);
    assert.equal(exact.entries, 5);
    assert.ok(exact.bytes >= 128 * 1024, `${exact.bytes} bytes counted`);
    assert.deepEqual(mountUsage(fd, 4).entries, Infinity);
  });
});
