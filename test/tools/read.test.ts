// `read` through the real sandbox and registry: numbered lines, paging metadata, clear errors for
// directories, binary and missing files, and its boundary (nothing outside the workspace).
import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { policyFor, toolHarness, workspace } from './helpers.ts';

const h = toolHarness();
after(() => h.close());

const lines = `${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const ws = workspace({
  'notes.txt': 'alpha\nbeta\r\ngamma',
  'big.txt': lines,
  'src/main.rs': 'fn main() {}\n',
  'empty.txt': '',
  'logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]),
});
const policy = policyFor(ws);
const read = (input: unknown) => h.call('read', input, policy);

describe('read', () => {
  it('returns the file with line numbers and says which lines it showed', async () => {
    const r = await read({ file_path: 'notes.txt' });
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, '     1\talpha\n     2\tbeta\n     3\tgamma');
    assert.equal(r.metadata.path, '/notes.txt');
    assert.equal(r.metadata.totalLines, 3);
    assert.equal(r.metadata.shownFrom, 1);
    assert.equal(r.metadata.shownTo, 3);
  });

  it('accepts absolute guest paths', async () => {
    const r = await read({ file_path: '/src/main.rs' });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /^ +1\tfn main\(\) \{\}$/);
  });

  it('pages with offset and limit and points at the next page', async () => {
    const r = await read({ file_path: 'big.txt', offset: 10, limit: 5 });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /^ +10\tline 10\n/);
    assert.match(r.content, / +14\tline 14\n/);
    assert.doesNotMatch(r.content, /line 15/);
    assert.match(r.content, /--offset 15/);
    assert.deepEqual([r.metadata.shownFrom, r.metadata.shownTo, r.metadata.totalLines], [10, 14, 30]);
  });

  it('says when the offset is past the end', async () => {
    const r = await read({ file_path: 'big.txt', offset: 31 });
    assert.equal(r.isError, true);
    assert.match(r.content, /past the end .* 30 lines/);
  });

  it('reports an empty file as empty, not as an error', async () => {
    const r = await read({ file_path: 'empty.txt' });
    assert.equal(r.isError, false);
    assert.match(r.content, /empty/);
    assert.equal(r.metadata.totalLines, 0);
  });

  it('refuses a directory and says what to use instead', async () => {
    const r = await read({ file_path: 'src' });
    assert.equal(r.isError, true);
    assert.match(r.content, /\/src is a directory.*ls or glob/);
  });

  it('refuses a binary file', async () => {
    const r = await read({ file_path: 'logo.png' });
    assert.equal(r.isError, true);
    assert.match(r.content, /binary file/);
  });

  it('refuses a file over the size cap without reading it', async () => {
    const dir = workspace();
    writeFileSync(join(dir, 'huge.log'), Buffer.alloc(17 * 1024 * 1024, 0x61));
    const r = await h.call('read', { file_path: 'huge.log' }, policyFor(dir));
    assert.equal(r.isError, true);
    assert.match(r.content, /over the 16 MiB limit.*grep/);
  });

  it('names a missing file', async () => {
    const r = await read({ file_path: 'nope.txt' });
    assert.equal(r.isError, true);
    assert.match(r.content, /\/nope\.txt: no such file or directory/);
  });

  it('cannot read /etc/passwd: the guest root is the workspace', async () => {
    const r = await read({ file_path: '/etc/passwd' });
    assert.equal(r.isError, true);
    assert.match(r.content, /no such file/);
    assert.doesNotMatch(r.content, /root:/);
  });

  it('cannot climb out with ..', async () => {
    const r = await read({ file_path: '../../../../etc/passwd' });
    assert.equal(r.isError, true);
    assert.match(r.content, /leaves the workspace/);
  });

  it('cannot follow a symlink that points out of the workspace', async () => {
    const dir = workspace({ 'inside.txt': 'ok\n' });
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    symlinkSync('/etc', join(dir, 'etc-link'));
    const p = policyFor(dir);
    for (const file_path of ['passwd', 'etc-link/passwd']) {
      const r = await h.call('read', { file_path }, p);
      assert.equal(r.isError, true, `${file_path} must fail`);
      assert.doesNotMatch(r.content, /root:/);
      assert.match(r.content, /not permitted|no such file/);
    }
    // A link that stays inside works.
    symlinkSync('inside.txt', join(dir, 'alias.txt'));
    const ok = await h.call('read', { file_path: 'alias.txt' }, p);
    assert.equal(ok.isError, false, ok.content);
    assert.match(ok.content, /\tok$/);
  });

  it('rejects input the schema does not allow, naming the field', async () => {
    const r = await read({ file_path: 'notes.txt', offset: 'ten' });
    assert.equal(r.isError, true);
    assert.match(r.content, /offset/);
  });
});
