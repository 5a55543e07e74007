// The function-length check `npm run lint` runs: a function in src/ over 300 lines (signature to
// closing brace, nested ones counted on their own too) is named and fails the check; the WASM
// binary rewriters are exempt.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { root, tempDir } from '../helpers.ts';

const script = join(root, 'scripts', 'check-function-length.js');

/** A function of `lines` lines in all, whose body holds a nested arrow of `inner` lines. */
const fn = (name: string, lines: number, inner = 3) =>
  [
    `export function ${name}(): number {`,
    '  const nested = () => {',
    ...Array.from({ length: inner - 2 }, (_, i) => `    void ${i};`),
    '  };',
    ...Array.from({ length: lines - inner - 3 }, (_, i) => `  void ${i};`),
    '  return nested.length;',
    '}',
    '',
  ].join('\n');

function check(files: Record<string, string>) {
  const dir = tempDir('boxbot-fn-length-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
}

test('a function over 300 lines is named with its length and fails; 300 lines pass', () => {
  const r = check({ 'src/a.ts': fn('big', 301) + fn('fine', 300), 'src/b/c.ts': fn('nestedBig', 320, 305) });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^src\/a\.ts:1: big is 301 lines$/m);
  assert.match(r.stderr, /^src\/b\/c\.ts:1: nestedBig is 320 lines$/m);
  assert.match(r.stderr, /^src\/b\/c\.ts:2: nested is 305 lines$/m);
  assert.doesNotMatch(r.stderr, /fine/);
  assert.match(r.stderr, /^3 function\(s\) longer than 300 lines$/m);
});

test('the WASM binary rewriters are exempt', () => {
  const r = check({ 'src/sandbox/wasm/rewrite.ts': fn('walk', 400), 'src/sandbox/glue-patch.ts': fn('patch', 400) });
  assert.doesNotMatch(r.stderr, /longer than 300 lines/);
});
