// What the packed tarball holds (`npm pack`, as a production install gets it): the bundled runtime
// (dist/bundle, every thread's and process's entry in it), the dashboard, the jco-transpile copy,
// the bundled tools and what installing them needs, the docs; never the unbundled dist/ JavaScript,
// tests, benches, build caches (tools/dist/cache: each data dir compiles the tools at its first
// start), sources and source maps, dev scripts, a `.env` or another tarball.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { root } from '../helpers.ts';

/** The paths `npm pack` would put in the tarball, from its own dry run (no scripts run). */
function packedFiles(): string[] {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

const ROOTS = ['bin/', 'dist/', 'tools/', 'skills/', 'deploy/', 'docs/'];
const FILES = [
  'package.json',
  'README.md',
  'LICENSE',
  'boxbot.schema.json',
  'scripts/prepare.js',
  'scripts/link-tools.js',
];

describe('the packed tarball', () => {
  const files = packedFiles();

  it('holds only the code, the tools, what installing needs and the docs', () => {
    const stray = files.filter((f) => !FILES.includes(f) && !ROOTS.some((r) => f.startsWith(r)));
    assert.deepEqual(stray, [], 'files outside the package roots');
    for (const f of [...FILES, 'bin/boxbot.js', 'docs/configuration.md', 'tools/core/tool.json'])
      assert.ok(files.includes(f), `${f} is packed`);
  });

  it('holds the bundled runtime, each thread and process entry in it, and not the unbundled dist/', () => {
    if (!existsSync(join(root, 'dist', 'bundle', 'cli-main.js'))) assert.fail('dist/bundle is missing: npm run build');
    for (const entry of ['cli-main', 'sandbox-worker', 'scheduler-worker', 'parsers-parser-child'])
      assert.ok(files.includes(`dist/bundle/${entry}.js`), `dist/bundle/${entry}.js is packed`);
    const unbundled = files.filter((f) => f.startsWith('dist/') && !/^dist\/(bundle|admin|vendor)\//.test(f));
    assert.deepEqual(unbundled, [], 'only dist/bundle, dist/admin and dist/vendor are packed');
  });

  it('leaves out the TypeScript sources and source maps: nothing runs them', () => {
    assert.deepEqual(
      files.filter((f) => f.startsWith('src/') || f.endsWith('.map')),
      [],
    );
  });

  it('leaves out build caches, secrets, tests and tarballs', () => {
    const banned = files.filter(
      (f) =>
        f.startsWith('tools/dist/cache/') ||
        /(^|\/)\.env(\..*)?$/.test(f) ||
        /(^|\/)(test|bench|node_modules|\.cache|\.test-build[^/]*)\//.test(f) ||
        f.endsWith('.tgz'),
    );
    assert.deepEqual(banned, []);
  });
});
