// src/ compiled to JavaScript once per change of the sources, for the tests that start boxbot in a
// child process or a job's worker thread: each such start then loads plain modules, as the built
// dist/ does in production, instead of every module through tsx's loader again (about three times
// the CPU per start). The compiled copy sits at the repository root beside src/ (`.test-build-<hash>/`),
// so paths its modules take from their own location (tools/dist, skills, package.json) resolve
// as they do from src/ and dist/. esbuild compiles each file alone, as tsx does.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync, transformSync } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(root, 'src');
const TEST = join(root, 'test');
const PREFIX = '.test-build-';
/** Compiled copies of other sources older than this are removed when a new one is made. */
const KEEP_OLD_MS = 60 * 60_000;

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** A relative `.ts` import (static, dynamic or re-export) in esbuild's output, rewritten to `.js`. */
const RELATIVE_TS_IMPORT = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*?)\.ts\2/g;

function build(files: string[], out: string): void {
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  const result = buildSync({
    entryPoints: files,
    outdir: tmp,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'error',
  });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.text.replace(RELATIVE_TS_IMPORT, '$1$2$3.js$2'));
  }
  try {
    renameSync(tmp, out);
  } catch {
    // Another test process made the same copy first: it is the same, keep that one.
    rmSync(tmp, { recursive: true, force: true });
  }
}

function pruneOthers(keep: string): void {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(PREFIX) || name === keep) continue;
    const path = join(root, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > KEEP_OLD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed meanwhile by another test process
    }
  }
}

let cached: string | undefined;

/**
 * The folder holding src/ compiled to JavaScript (`<it>/cli/main.js` for `src/cli/main.ts`),
 * compiled now when the sources changed since the last copy (about a second).
 */
export function compiledSrc(): string {
  if (cached) return cached;
  const files = sources(SRC);
  const hash = createHash('sha256');
  hash.update(readFileSync(new URL(import.meta.url)));
  hash.update(readFileSync(join(root, 'tsconfig.json')));
  for (const f of files) hash.update(relative(SRC, f)).update('\0').update(readFileSync(f));
  const name = `${PREFIX}${hash.digest('hex').slice(0, 12)}`;
  const out = join(root, name);
  try {
    statSync(join(out, 'cli', 'main.js'));
  } catch {
    build(files, out);
    pruneOthers(name);
  }
  cached = out;
  return out;
}

/** A bundle build lock older than this is taken to be left by a process that died building. */
const BUNDLE_LOCK_STALE_MS = 2 * 60_000;

/**
 * Builds the bundle into `out` in a child process (esbuild's plugins need its asynchronous API): the
 * options of scripts/bundle.js, with one change: src/core/package-paths.ts takes the bundle to be
 * the shipped one (BUNDLED), which it tells from a dist/bundle folder; from `out` the package root
 * is the repository's, as from dist/bundle.
 */
function buildBundle(out: string): void {
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  const script = `
    import { readFileSync } from 'node:fs';
    import { build } from 'esbuild';
    import { bundleOptions } from ${JSON.stringify(pathToFileURL(join(root, 'scripts', 'bundle-options.js')).href)};
    const root = ${JSON.stringify(root)};
    const pkg = JSON.parse(readFileSync(root + '/package.json', 'utf8'));
    const shipped = /^export const BUNDLED = .*$/m;
    await build({
      ...bundleOptions(root, ${JSON.stringify(tmp)}, pkg),
      metafile: false,
      plugins: [{
        name: 'bundled-here',
        setup(b) {
          b.onLoad({ filter: /package-paths[.]ts$/ }, (args) => {
            if (args.path !== ${JSON.stringify(join(SRC, 'core', 'package-paths.ts'))}) return undefined;
            const text = readFileSync(args.path, 'utf8');
            if (!shipped.test(text)) throw new Error('package-paths.ts has no BUNDLED line: see test/compiled-src.ts');
            return { contents: text.replace(shipped, 'export const BUNDLED = true;'), loader: 'ts' };
          });
        },
      }],
    });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bundling src/ for the tests failed: ${r.stderr}`);
  try {
    renameSync(tmp, out);
  } catch {
    // Another test process made the same bundle first: it is the same, keep that one.
    rmSync(tmp, { recursive: true, force: true });
  }
}

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

let bundled: string | undefined;

/**
 * The folder holding src/ bundled as scripts/bundle.js bundles it for the package (`<it>/cli-main.js`,
 * each thread's and process's entry beside it, its dependencies inlined), rebuilt when the sources,
 * the lock file or the bundle's options change: a test starting boxbot in a child process then runs
 * the code as shipped, and loads a few files instead of hundreds (a `boxbot doctor` took 0.26-0.37 s
 * of CPU from the bundle, 0.47-0.59 s from the compiled copy of src/, on a busy machine). One test
 * process builds it while the others wait; it lies in the compiled copy's folder, removed with it.
 */
export function compiledBundle(): string {
  if (bundled) return bundled;
  const hash = createHash('sha256');
  for (const f of ['package-lock.json', 'package.json', join('scripts', 'bundle-options.js')])
    hash.update(readFileSync(join(root, f)));
  const out = join(compiledSrc(), `bundle-${hash.digest('hex').slice(0, 12)}`);
  const ready = () => {
    try {
      return statSync(join(out, 'cli-main.js')).isFile();
    } catch {
      return false;
    }
  };
  const lock = `${out}.lock`;
  while (!ready()) {
    try {
      mkdirSync(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Another test process is building it; its lock goes stale only if it died doing so.
      try {
        if (Date.now() - statSync(lock).mtimeMs > BUNDLE_LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      sleepSync(200);
      continue;
    }
    try {
      if (!ready()) buildBundle(out);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  bundled = out;
  return out;
}

/**
 * The sandbox's worker module compiled (for createSandbox's `workerFile`): each worker thread then
 * loads plain modules instead of registering tsx and loading every module through it again.
 */
export const compiledSandboxWorker = (): string => join(compiledSrc(), 'sandbox', 'worker.js');

/**
 * The document parser's child module compiled (runParser's and the media step's `parserFile`): a
 * parse then starts plain modules, not tsx (about 1.7 s of CPU per parse through tsx, 0.3-0.5 s
 * compiled, on a busy 2-core machine).
 */
export const compiledParserChild = (): string => join(compiledSrc(), 'parsers', 'parser-child.js');

/**
 * The job worker compiled to JavaScript (the scheduler's `workerFile`): each run's thread then loads
 * plain modules, as in production, rather than registering tsx and loading the agent, providers and
 * sandbox through it again.
 */
export const compiledJobWorker = (): string => join(compiledSrc(), 'scheduler', 'worker.js');

/**
 * A test's own worker-thread or child-process module (`file`, TypeScript importing Node's modules
 * or packages, no relative files) compiled to JavaScript under .cache/test-workers, named by its
 * content: a thread or process started on it skips registering tsx, which costs about as much CPU
 * as the whole short run it is there for. Packages resolve from the repository's node_modules.
 */
export function compiledTestWorker(file: string): string {
  const source = readFileSync(file, 'utf8');
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const out = join(root, '.cache', 'test-workers', `${basename(file, '.ts')}-${hash}.mjs`);
  try {
    statSync(out);
  } catch {
    const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file });
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    writeFileSync(tmp, code);
    renameSync(tmp, out); // whole, even when another test process writes the same file at once
  }
  return out;
}

/** A relative import (static, dynamic or re-export) in esbuild's output: its prefix, quote and path. */
const RELATIVE_IMPORT = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']*?)\2/g;

/** compiledChild's outputs made by this process, by source file. */
const compiledChildren = new Map<string, string>();

/**
 * A test's child-process module (`file`, TypeScript) compiled to JavaScript under .cache/test-workers,
 * its imports of src/ pointed at the compiled src/ (compiledSrc()): a process started on it loads
 * plain modules instead of registering tsx and loading every module of src/ through it (importing
 * src/main.ts took 3.2-4.0 s of CPU through tsx and 1.6-1.9 s compiled, on a busy machine). It may
 * import src/, Node's modules, packages and other test files, each compiled the same way (but not one
 * using import.meta, as test/helpers.ts does to find files from its own location: refused, saying so).
 * The output is named by a hash of what it runs: its code with every import pointed, so a change in
 * an imported test file, or in src/, gives a new name.
 */
export function compiledChild(file: string, importing: readonly string[] = []): string {
  const done = compiledChildren.get(file);
  if (done) return done;
  if (importing.includes(file)) throw new Error(`compiledChild: ${[...importing, file].join(' imports ')}: a cycle`);
  const compiled = compiledSrc();
  const source = readFileSync(file, 'utf8');
  // Compiled into the cache, a file that finds others from its own location would look there.
  if (importing.length && source.includes('import.meta'))
    throw new Error(`compiledChild: ${importing.at(-1)} imports ${file}, which uses import.meta; run it under tsx`);
  const { code } = transformSync(source, {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: file,
  });
  const pointed = code.replace(RELATIVE_IMPORT, (_all, head: string, quote: string, path: string) => {
    const at = join(dirname(file), path);
    const target = relative(SRC, at);
    const inTest = !relative(TEST, at).startsWith('..');
    if (!at.endsWith('.ts') || (target.startsWith('..') && !inTest)) {
      throw new Error(`compiledChild(${file}): imports ${path}, outside src/ and test/; run it under tsx instead`);
    }
    const to = inTest ? compiledChild(at, [...importing, file]) : join(compiled, target.replace(/\.ts$/, '.js'));
    return `${head}${quote}${pathToFileURL(to).href}${quote}`;
  });
  const hash = createHash('sha256').update(pointed).digest('hex').slice(0, 12);
  const out = join(root, '.cache', 'test-workers', `${basename(file, '.ts')}-${hash}.mjs`);
  try {
    statSync(out);
  } catch {
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    writeFileSync(tmp, pointed);
    renameSync(tmp, out); // whole, even when another test process writes the same file at once
  }
  compiledChildren.set(file, out);
  return out;
}
