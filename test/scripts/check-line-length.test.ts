// The line-length check `npm run lint` runs: it names each .ts/.js line over 120 (tracked or new)
// characters and fails, counts characters rather than bytes, and skips test/fixtures.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { root, tempDir } from '../helpers.ts';

const script = join(root, 'scripts', 'check-line-length.js');

function repo(files: Record<string, string>): string {
  const dir = tempDir('boxbot-lines-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '.'], { cwd: dir });
  return dir;
}

test('a line over 120 characters, tracked or new, is named and fails; fixtures and ignored files are not', () => {
  const long = `// ${'x'.repeat(118)}\n`; // 121 characters
  const dir = repo({ 'src/a.ts': `const ok = 1;\n${long}`, 'test/fixtures/b.ts': long, '.gitignore': 'scratch/\n' });
  writeFileSync(join(dir, 'untracked.ts'), long);
  mkdirSync(join(dir, 'scratch'));
  writeFileSync(join(dir, 'scratch', 'ignored.ts'), long);
  const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^src\/a\.ts:2: 121 characters$/m);
  // Not yet added, yet lint runs before the commit: biome reads such files too.
  assert.match(r.stderr, /^untracked\.ts:1: 121 characters$/m);
  assert.doesNotMatch(r.stderr, /fixtures|ignored/);
});

test('120 characters pass, counted as characters: non-ASCII text longer than 120 bytes is fine', () => {
  const dir = repo({ 'src/a.ts': `// ${'x'.repeat(117)}\n// ${'→'.repeat(117)}\n` });
  const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
