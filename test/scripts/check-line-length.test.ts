// The line-length check `npm run lint` runs: it names each tracked .ts/.js line over 120
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

test('a tracked line over 120 characters is named and fails the check; fixtures and untracked files are not', () => {
  const long = `// ${'x'.repeat(118)}\n`; // 121 characters
  const dir = repo({ 'src/a.ts': `const ok = 1;\n${long}`, 'test/fixtures/b.ts': long });
  writeFileSync(join(dir, 'untracked.ts'), long);
  const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^src\/a\.ts:2: 121 characters$/m);
  assert.doesNotMatch(r.stderr, /fixtures|untracked/);
});

test('120 characters pass, counted as characters: non-ASCII text longer than 120 bytes is fine', () => {
  const dir = repo({ 'src/a.ts': `// ${'x'.repeat(117)}\n// ${'→'.repeat(117)}\n` });
  const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
