// Runs the whole suite with Node's test runner: builds the test guests first, then every
// test/**/*.test.ts file (or the files/folders given as arguments).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function collect(path: string, out: string[]): void {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name === 'fixtures' || name === 'guests') continue;
      collect(join(path, name), out);
    }
  } else if (path.endsWith('.test.ts')) {
    out.push(relative(root, path));
  }
}

const targets = process.argv.slice(2);
const files: string[] = [];
for (const t of targets.length ? targets : ['test']) collect(join(root, t), files);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const guests = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-guests.ts'], { cwd: root, stdio: 'inherit' });
if (guests.status !== 0) process.exit(guests.status ?? 1);

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
