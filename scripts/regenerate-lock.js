#!/usr/bin/env node
// `npm run lock`: rewrites package-lock.json after a dependency change so that `npm ci` accepts it.
// npm (11.16 and later) leaves optional platform packages that are not published (some
// @rolldown/binding-*, @bytecodealliance/jco-node-fs-*, @biomejs/cli-*-musl) out of the lock file
// and then `npm ci` refuses the file for missing them (npm/cli#9846). This writes the lock file
// with the npm in use, asks `npm ci --dry-run` what it misses, and records each missing package
// as an inert optional entry under the package that wants it (npm ci then skips it). Published
// packages keep their full entries: an inert entry for one npm can fetch makes npm ci fail.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const file = join(root, 'package-lock.json');
// The inert entries of the last run go first: npm trips over them when it resolves (they have no version).
const old = JSON.parse(readFileSync(file, 'utf8'));
for (const [path, entry] of Object.entries(old.packages))
  if (path && !entry.version && !entry.link) delete old.packages[path];
writeFileSync(file, `${JSON.stringify(old, null, 2)}\n`);
execFileSync(npm, ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
  cwd: root,
  stdio: 'inherit',
});
const dry = spawnSync(npm, ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
  cwd: root,
  encoding: 'utf8',
});
const missing = [...`${dry.stdout}\n${dry.stderr}`.matchAll(/Missing: (@?[^@\s]+)@\S* from lock file/g)].map(
  (m) => m[1],
);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const name of new Set(missing)) {
  const parent = Object.entries(lock.packages).find(
    ([, e]) => e.optionalDependencies && name in e.optionalDependencies,
  );
  if (!parent) throw new Error(`no locked package names ${name} as an optional dependency`);
  const [path, entry] = parent;
  lock.packages[`${path ? `${path}/` : ''}node_modules/${name}`] = {
    ...(entry.dev ? { dev: true } : {}),
    optional: true,
  };
  added++;
}
const { '': top, ...rest } = lock.packages;
lock.packages = { '': top, ...Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1))) };
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json written; ${added} unpublished optional package(s) recorded as inert entries`);
