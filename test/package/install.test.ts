// What a newcomer's or CI's install depends on, checked offline: `npm ci` accepts the lock
// file (every optional dependency of every locked package has an entry, as npm ci checks),
// and a production install (`--omit=dev`, or the packed tarball) has every package src/
// imports and the scripts its install runs.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { root } from '../helpers.ts';

interface LockEntry {
  version?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  hasInstallScript?: boolean;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
  allowScripts?: Record<string, boolean>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

const optionalPeer = (name: string) => pkg.peerDependenciesMeta?.[name]?.optional === true;

/** What scripts/bundle.js inlined into dist/bundle and left to run time. */
function bundleContents(): { inlined: string[]; externals: string[] } {
  const file = join(root, 'dist', 'bundle-contents.json');
  assert.ok(existsSync(file), 'dist/bundle-contents.json is missing: npm run build');
  return JSON.parse(readFileSync(file, 'utf8')) as { inlined: string[]; externals: string[] };
}

/** Where npm resolves `name` from the package at `from`: its own node_modules, then each parent's. */
function resolveIn(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

/** Packages named by import specifiers in the .ts files under `dir`. */
function importedPackages(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) {
        const source = readFileSync(path, 'utf8');
        for (const m of source.matchAll(
          /^\s*(?:import|export)\s(?!type\b)[^'"]*?from\s*'([^'.][^']*)'|import\('([^'.][^']*)'\)/gm,
        )) {
          const spec = (m[1] ?? m[2])!;
          if (spec.startsWith('node:')) continue;
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          found.set(name, relative(root, path));
        }
      }
    }
  };
  walk(dir);
  return found;
}

describe('install', () => {
  const lockFileHasTitle =
    'the lock file has an entry for every optional dependency of every locked package (npm ci refuses it otherwise)';
  it(lockFileHasTitle, () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolveIn(path, name)) missing.push(`${name} (optional dependency of ${path || 'the root'})`);
      }
    }
    assert.deepEqual(
      missing,
      [],
      'regenerate package-lock.json as docs/deployment.md says (npm 11.16+ leaves unpublished optional packages out)',
    );
  });

  it('entries without a version (npm run lock) stand only for optional packages a locked package names', () => {
    // An inert entry makes npm ci skip the package: right for an unpublished platform binary,
    // wrong for anything the install needs (npm ci would then quietly install without it).
    const inert = Object.entries(lock.packages).filter(([path, e]) => path && !e.version && !e.link);
    const wrong = inert
      .filter(([path, e]) => {
        const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
        const i = path.lastIndexOf('/node_modules/');
        return !e.optional || !lock.packages[i < 0 ? '' : path.slice(0, i)]?.optionalDependencies?.[name];
      })
      .map(([path]) => path);
    assert.deepEqual(wrong, []);
  });

  it('every locked package with an install script has an allowScripts decision (npm 11.19+ skips it otherwise)', () => {
    // Unreviewed scripts are skipped with a warning at every install; a decision says which run.
    const undecided = Object.entries(lock.packages)
      .filter(([path, entry]) => path && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .filter((name) => pkg.allowScripts?.[name] === undefined);
    assert.deepEqual(undecided, [], 'decide with npm install-scripts approve|deny <pkg>');
  });

  it('every package src/ imports is inlined into dist/bundle or a runtime dependency, so --omit=dev runs it', () => {
    // tsx: src/sandbox/pool.ts loads it in workers only when boxbot runs from its .ts sources.
    // jco-transpile: copied into dist/vendor by scripts/build-vendor.js (without binaryen); its own
    // imports are runtime dependencies (checked below). Optional peers: the cloud hosts' SDKs,
    // loaded only when configured, with an error naming the package when absent.
    const { inlined } = bundleContents();
    const sourceOnly = new Set(['tsx', '@bytecodealliance/jco-transpile']);
    const notRuntime = [...importedPackages(join(root, 'src'))]
      .filter(([name]) => !pkg.dependencies[name] && !inlined.includes(name) && !sourceOnly.has(name))
      .filter(([name]) => !optionalPeer(name))
      .map(([name, file]) => `${name} (${file})`);
    assert.deepEqual(notRuntime, []);
    // What the bundle inlines is a devDependency or its dependency: installing it again is waste.
    const shipped = Object.keys(pkg.dependencies).filter((name) => inlined.includes(name));
    assert.deepEqual(shipped, [], 'inlined into the bundle, yet a dependency');
  });

  it('the bundle leaves to run time only Node built-ins, the dependencies, the optional SDKs and add-ons', () => {
    // Each optional add-on is required inside a try by the package that wants it, which goes on
    // without it: ws (bufferutil, utf-8-validate), discord.js (zlib-sync), pg (pg-native),
    // node-fetch (encoding), debug (supports-color).
    const addOns = new Set(['bufferutil', 'utf-8-validate', 'zlib-sync', 'pg-native', 'encoding', 'supports-color']);
    const unexpected = bundleContents()
      .externals.filter((path) => !path.startsWith('node:') && !isBuiltin(path)) // node:sqlite: Node 22+
      .map((path) => /^(@[^/]+\/)?[^/]+/.exec(path)![0])
      .filter((name) => !pkg.dependencies[name] && !optionalPeer(name) && !addOns.has(name) && name !== 'tsx');
    assert.deepEqual(unexpected, []);
  });

  it('the copy of jco-transpile in dist/vendor has its own imports as runtime dependencies, binaryen not', () => {
    const copied = JSON.parse(
      readFileSync(join(root, 'node_modules', '@bytecodealliance', 'jco-transpile', 'package.json'), 'utf8'),
    ) as { version: string; dependencies: Record<string, string> };
    assert.equal(pkg.devDependencies['@bytecodealliance/jco-transpile'], copied.version, 'the version copied');
    assert.ok(pkg.scripts.build?.includes('scripts/build-vendor.js'), 'npm run build copies it');
    for (const name of ['oxc-minify', '@bytecodealliance/preview2-shim'])
      assert.ok(pkg.dependencies[name] && copied.dependencies[name], `${name}: imported by the copy, a dependency`);
    assert.equal(pkg.dependencies.binaryen, undefined);
  });

  it('a production install has what its install scripts and the CLI need', () => {
    for (const script of ['prepare', 'postinstall']) {
      const m = /^node (\S+)$/.exec(pkg.scripts[script] ?? '');
      assert.ok(m, `${script} runs a plain node script (tsx is a devDependency): ${pkg.scripts[script]}`);
      assert.ok(existsSync(join(root, m[1]!)), m[1]);
      assert.ok(
        pkg.files.some((f) => m[1] === f || m[1]!.startsWith(`${f}/`)),
        `${m[1]} is in the package's files`,
      );
    }
    for (const f of ['bin', 'dist/bundle', 'dist/admin', 'dist/vendor', 'tools', 'skills'])
      assert.ok(pkg.files.includes(f), f);
  });
});
