// The filesystem a guest sees, attacked from a real wasm guest (test/guests/fs-probe.js):
// only the mount exists, nothing escapes it, read-only means read-only (the concurrent
// directory/symlink swap is in filesystem-race.test.ts).
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { compiledSandboxWorker } from '../compiled-src.ts';
import { grant, guest, sharedCompileCache, tempDir, text } from '../helpers.ts';

describe('sandbox: filesystem', () => {
  let sandbox: Sandbox;
  let ws: string;
  let outside: string;

  before(() => {
    sandbox = createSandbox({ workerFile: compiledSandboxWorker(), cacheDir: sharedCompileCache(), workers: 2 });
    outside = tempDir('boxbot-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET\n');
    ws = tempDir('boxbot-ws-');
    writeFileSync(join(ws, 'a.txt'), 'hello\n');
    mkdirSync(join(ws, 'sub'));
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'abs-link'));
    symlinkSync(join('..', outside.split('/').pop()!, 'secret.txt'), join(ws, 'rel-link'));
    symlinkSync(outside, join(ws, 'dir-link'));
    symlinkSync('a.txt', join(ws, 'inside-link'));
  });
  after(() => sandbox.close());

  async function probe(
    readOnly: boolean,
    ...args: string[]
  ): Promise<{ ok: boolean; value?: unknown; error?: string }> {
    const r = await sandbox.run(guest('fs-probe'), grant({ args, mounts: [{ host: ws, guest: '/', readOnly }] }));
    assert.equal(r.exitCode, 0, text(r.stderr));
    return JSON.parse(text(r.stdout));
  }

  it('reads and lists inside the mount', async () => {
    assert.deepEqual(await probe(true, 'read', 'a.txt'), { ok: true, value: 'hello\n' });
    assert.deepEqual(await probe(true, 'read', 'sub/../a.txt'), { ok: true, value: 'hello\n' });
    const ls = await probe(true, 'ls', '.');
    assert.deepEqual(ls.value, ['a.txt', 'abs-link', 'dir-link', 'inside-link', 'rel-link', 'sub']);
  });

  it('follows a symlink that stays inside the mount', async () => {
    assert.deepEqual(await probe(true, 'read', 'inside-link'), { ok: true, value: 'hello\n' });
  });

  for (const path of ['../secret.txt', '/etc/passwd', 'abs-link', 'rel-link', 'dir-link/secret.txt', 'sub/../../x']) {
    it(`cannot reach outside the mount via ${path}`, async () => {
      const r = await probe(true, 'read', path);
      assert.equal(r.ok, false);
      assert.doesNotMatch(JSON.stringify(r), /TOP-SECRET/);
    });
  }

  it('a read-only mount refuses every write', async () => {
    for (const args of [
      ['write', 'new.txt', 'x'],
      ['write', 'a.txt', 'x'],
      ['mkdir', 'd'],
      ['rm', 'a.txt'],
      ['rmdir', 'sub'],
      ['rename', 'a.txt', 'b.txt'],
    ]) {
      assert.deepEqual(await probe(true, ...args), { ok: false, error: 'read-only' }, args.join(' '));
    }
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'hello\n');
    assert.equal(existsSync(join(ws, 'new.txt')), false);
  });

  it('a read-write mount writes, renames and removes, inside the mount only', async () => {
    assert.equal((await probe(false, 'write', 'sub/new.txt', 'data')).ok, true);
    assert.equal(readFileSync(join(ws, 'sub', 'new.txt'), 'utf8'), 'data');
    assert.equal((await probe(false, 'rename', 'sub/new.txt', 'sub/moved.txt')).ok, true);
    assert.equal((await probe(false, 'rm', 'sub/moved.txt')).ok, true);
    assert.deepEqual(readdirSync(join(ws, 'sub')), []);
    const escape = await probe(false, 'write', 'dir-link/planted.txt', 'x');
    assert.equal(escape.ok, false);
    assert.equal(existsSync(join(outside, 'planted.txt')), false);
  });

  it('guests create symlinks and hard links inside a writable mount, and none that leave it', async () => {
    assert.deepEqual(await probe(false, 'symlink', '/etc', 'etc-link'), { ok: false, error: 'not-permitted' });
    assert.deepEqual(await probe(false, 'symlink', '../outside', 'out-link'), { ok: false, error: 'not-permitted' });
    assert.equal(lstatSync(join(ws, 'etc-link'), { throwIfNoEntry: false }), undefined);
    assert.equal(lstatSync(join(ws, 'out-link'), { throwIfNoEntry: false }), undefined);
    assert.equal((await probe(false, 'symlink', 'a.txt', 'a-link')).ok, true);
    assert.equal(readlinkSync(join(ws, 'a-link')), 'a.txt');
    assert.equal((await probe(false, 'link', 'a.txt', 'hard')).ok, true);
    assert.equal(statSync(join(ws, 'hard')).ino, statSync(join(ws, 'a.txt')).ino);
    assert.deepEqual(await probe(true, 'symlink', 'a.txt', 'ro-link'), { ok: false, error: 'read-only' });
    assert.deepEqual(await probe(true, 'link', 'a.txt', 'ro-hard'), { ok: false, error: 'read-only' });
    assert.equal(existsSync(join(ws, 'ro-link')) || existsSync(join(ws, 'ro-hard')), false);
    rmSync(join(ws, 'a-link'));
    rmSync(join(ws, 'hard'));
  });

  it('with no mount, no file exists at all', async () => {
    const r = await sandbox.run(guest('fs-probe'), grant({ args: ['read', 'a.txt'] }));
    assert.deepEqual(JSON.parse(text(r.stdout)), { ok: false, error: 'no preopens' });
  });

  it('closes every descriptor a call opened', async () => {
    const before = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 5; i++) await probe(true, 'race-read', 'a.txt', '50');
    // Workers share this process's fd table: leaks would show up here.
    assert.ok(readdirSync('/proc/self/fd').length <= before + 2);
  });
});
