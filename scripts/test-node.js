// `npm run test:node -- 22 [run-tests arguments]`: runs the unit tests (or the files given) under
// another Node major, fetched from the npm registry as the node-<os>-<cpu> package into npm's own
// cache (nothing lands in the repository), and prints the version it ran. Needs nothing but npm.
// Example: npm run test:node -- 24 test/gateway
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [major, ...rest] = process.argv.slice(2);
if (!/^\d+(\.\d+){0,2}$/.test(major ?? '')) {
  console.error('usage: npm run test:node -- <node version, e.g. 22 or 24.9> [run-tests arguments]');
  process.exit(2);
}
const os = process.platform === 'win32' ? 'win' : process.platform;
const pkg = `node-${os}-${process.arch}@${major}`;
const root = fileURLToPath(new URL('..', import.meta.url));
const args = rest.length ? rest : ['--unit'];
// npm exec puts the package's `node` first on PATH, so the test runner and every test file it
// spawns (process.execPath) run on that Node.
const r = spawnSync(
  'npm',
  ['exec', '--yes', `--package=${pkg}`, '--', 'node', '-e', "console.log('tests on Node', process.version)"],
  { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' },
);
if (r.status !== 0) process.exit(r.status ?? 1);
const run = spawnSync(
  'npm',
  ['exec', '--yes', `--package=${pkg}`, '--', 'node', '--import', 'tsx', 'scripts/run-tests.ts', ...args],
  { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' },
);
process.exit(run.status ?? 1);
