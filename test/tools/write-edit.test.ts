// `write` and `edit` through the real sandbox and registry: files appear on the host as asked,
// ambiguous or missing edits change nothing, and a read-only grant refuses every write.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { policyFor, tempDir, toolHarness, workspace } from './helpers.ts';

const h = toolHarness();
after(() => h.close());

describe('write', () => {
  it('creates a file and its missing parent directories', async () => {
    const ws = workspace();
    const r = await h.call('write', { file_path: 'a/b/c.txt', content: 'héllo\nworld\n' }, policyFor(ws));
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'a/b/c.txt'), 'utf8'), 'héllo\nworld\n');
    assert.equal(r.metadata.created, true);
    assert.equal(r.metadata.bytes, 13);
    assert.equal(r.metadata.lines, 2);
  });

  it('overwrites an existing file, and writes empty content', async () => {
    const ws = workspace({ 'f.txt': 'old content that is longer' });
    const r = await h.call('write', { file_path: '/f.txt', content: 'new' }, policyFor(ws));
    assert.equal(r.isError, false, r.content);
    assert.equal(r.metadata.created, false);
    assert.equal(readFileSync(join(ws, 'f.txt'), 'utf8'), 'new');
    await h.call('write', { file_path: 'f.txt', content: '' }, policyFor(ws));
    assert.equal(readFileSync(join(ws, 'f.txt'), 'utf8'), '');
  });

  it('refuses to replace a directory', async () => {
    const ws = workspace({ 'd/x': '' });
    const r = await h.call('write', { file_path: 'd', content: 'x' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.match(r.content, /is a directory/);
  });

  it('fails under a read-only grant and leaves the workspace unchanged', async () => {
    const ws = workspace({ 'keep.txt': 'keep' });
    const r = await h.call('write', { file_path: 'keep.txt', content: 'changed' }, policyFor(ws), 'ReadOnly');
    assert.equal(r.isError, true);
    assert.match(r.content, /read-only/);
    assert.equal(readFileSync(join(ws, 'keep.txt'), 'utf8'), 'keep');
    const r2 = await h.call('write', { file_path: 'new/file.txt', content: 'x' }, policyFor(ws), 'ReadOnly');
    assert.equal(r2.isError, true);
    assert.equal(existsSync(join(ws, 'new')), false);
  });

  it('cannot write through a symlink out of the workspace', async () => {
    const ws = workspace();
    const outside = tempDir('boxbot-outside-');
    symlinkSync(outside, join(ws, 'out'));
    const r = await h.call('write', { file_path: 'out/escaped.txt', content: 'x' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.equal(existsSync(join(outside, 'escaped.txt')), false);
  });
});

describe('edit', () => {
  const src = 'const a = 1;\nconst b = a + 1;\nconsole.log(a, b);\n';

  it('replaces a unique string and shows the changed lines', async () => {
    const ws = workspace({ 'm.js': src });
    const r = await h.call(
      'edit',
      { file_path: 'm.js', old_string: 'const b = a + 1;', new_string: 'const b = a + 2;' },
      policyFor(ws),
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'm.js'), 'utf8'), src.replace('a + 1', 'a + 2'));
    assert.match(r.content, / +2\tconst b = a \+ 2;/);
    assert.equal(r.metadata.replacements, 1);
    assert.equal(r.metadata.line, 2);
  });

  it('refuses an ambiguous string unless replace_all, then replaces every one', async () => {
    const ws = workspace({ 'm.js': src });
    const r = await h.call('edit', { file_path: 'm.js', old_string: 'a', new_string: 'x' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.match(r.content, /occurs \d+ times.*replace-all/);
    assert.equal(readFileSync(join(ws, 'm.js'), 'utf8'), src, 'the file is unchanged');
    const all = await h.call(
      'edit',
      { file_path: 'm.js', old_string: 'const', new_string: 'let', replace_all: true },
      policyFor(ws),
    );
    assert.equal(all.isError, false, all.content);
    assert.equal(all.metadata.replacements, 2);
    assert.equal(readFileSync(join(ws, 'm.js'), 'utf8'), src.replaceAll('const', 'let'));
  });

  it('fails when the old string is missing, leaving the file alone', async () => {
    const ws = workspace({ 'm.js': src });
    const r = await h.call('edit', { file_path: 'm.js', old_string: 'const c', new_string: 'x' }, policyFor(ws));
    assert.equal(r.isError, true);
    assert.match(r.content, /not found/);
    assert.equal(readFileSync(join(ws, 'm.js'), 'utf8'), src);
  });

  it('deletes text with an empty new string', async () => {
    const ws = workspace({ 'm.js': src });
    const r = await h.call(
      'edit',
      { file_path: 'm.js', old_string: 'console.log(a, b);\n', new_string: '' },
      policyFor(ws),
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'm.js'), 'utf8'), 'const a = 1;\nconst b = a + 1;\n');
  });

  it('keeps CRLF line ends when the old string is written with LF', async () => {
    const ws = workspace({ 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
    const r = await h.call(
      'edit',
      { file_path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' },
      policyFor(ws),
    );
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'w.txt'), 'utf8'), 'uno\r\ndos\r\nthree\r\n');
  });

  it('fails under a read-only grant', async () => {
    const ws = workspace({ 'm.js': src });
    const r = await h.call(
      'edit',
      { file_path: 'm.js', old_string: 'const a', new_string: 'let a' },
      policyFor(ws),
      'ReadOnly',
    );
    assert.equal(r.isError, true);
    assert.match(r.content, /read-only/);
    assert.equal(readFileSync(join(ws, 'm.js'), 'utf8'), src);
  });
});
