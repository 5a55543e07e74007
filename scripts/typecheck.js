#!/usr/bin/env node
// `npm run typecheck`: type-checks src/, test/, bench/, scripts/ and ui/ (tsconfig.check.json) with
// TypeScript 7, the native compiler (about 5 s on 2 cores where TypeScript 5.9's tsc takes about 25 s).
// TypeScript 5.9 stays installed for what uses its JavaScript API (scripts/check-function-length.js).
// Both provide a `tsc` command and npm links one of them as node_modules/.bin/tsc: `npm run build`'s
// emit works with either (the same files), so nothing here relies on which. Where TypeScript 7 has
// no binary for the platform, 5.9's tsc checks instead, and the line printed says so. Arguments are
// passed on: `npm run typecheck -- --listFiles`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const args = ['-p', 'tsconfig.check.json', '--noEmit', ...process.argv.slice(2)];
const root = join(dirname(new URL(import.meta.url).pathname), '..');

function native() {
  try {
    const bin = join(dirname(require.resolve('typescript7/package.json')), 'bin', 'tsc');
    // Its launcher finds the platform's binary; -v fails when there is none for this one.
    return spawnSync(process.execPath, [bin, '-v'], { encoding: 'utf8' }).status === 0 ? bin : undefined;
  } catch {
    return undefined;
  }
}

const bin = native();
if (!bin) console.log('typecheck: TypeScript 7 is missing or has no binary for this platform; checking with 5.9');
const tsc = bin ?? require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
