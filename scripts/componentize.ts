// Builds WASI components from source, offline: JavaScript through componentize-js (a
// `wasi:cli/run` command world) and WAT through wabt (a preview1 command module). Used by
// `npm install` for the bundled tools and by the tests for their adversarial guests; results
// are cached by content hash so an unchanged source is never rebuilt, in the checkout (a stamp
// beside each output) and across checkouts (the per-user cache of scripts/build-cache.ts).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCacheDir, cachedBuild } from './build-cache.ts';

const require = createRequire(import.meta.url);

/** The installed directory of a package (its `exports` may hide package.json). */
export function packageDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = join(base, name);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  throw new Error(`package ${name} is not installed; run npm install`);
}
const WASI_WIT_VERSION = '0.2.12';
const ALL_FEATURES = ['stdio', 'random', 'clocks', 'http', 'fetch-event'] as const;

/** Features a JS guest asks for on a `// @features a,b` line; by default no network. */
function featuresOf(source: string): string[] {
  const line = /^\/\/\s*@features\s+(.+)$/m.exec(source);
  if (!line) return ['stdio', 'random', 'clocks'];
  return line[1]!
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
}

/**
 * WIT interfaces a JS guest imports directly (`import { x } from 'wasi:filesystem/preopens@0.2.12'`),
 * from `// @imports a,b` lines: componentize-js resolves such imports only when the world
 * imports the interface. Without the line the world is unchanged.
 */
function importsOf(source: string): string[] {
  const names: string[] = [];
  for (const line of source.matchAll(/^\/\/\s*@imports\s+(.+)$/gm)) {
    for (const name of line[1]!
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)) {
      if (!/^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*\/[a-z][a-z0-9-]*@[0-9][0-9A-Za-z.+-]*$/.test(name)) {
        throw new Error(
          `bad @imports entry ${JSON.stringify(name)}: expected e.g. wasi:filesystem/preopens@${WASI_WIT_VERSION}`,
        );
      }
      names.push(name);
    }
  }
  return names;
}

async function witDir(imports: string[] = []): Promise<string> {
  const builtin = join(packageDir('@bytecodealliance/jco'), 'lib', 'wit', 'builtin', WASI_WIT_VERSION);
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-wit-'));
  await cp(builtin, join(dir, 'deps'), { recursive: true });
  await writeFile(
    join(dir, 'world.wit'),
    `package boxbot:tool;\n\nworld tool {\n${imports.map((i) => `  import ${i};\n`).join('')}  export ` +
      `wasi:cli/run@${WASI_WIT_VERSION};\n}\n`,
  );
  return dir;
}

async function buildJs(sourcePath: string, source: string): Promise<Uint8Array> {
  // componentize-js reads its inputs through preview2-shim; it needs a preopen to see them.
  const shimFs = (await import('@bytecodealliance/preview2-shim/filesystem')) as unknown as {
    _setPreopens(p: Record<string, string>): void;
  };
  shimFs._setPreopens({ '/': '/' });
  const { componentize } = await import('@bytecodealliance/componentize-js');
  const features = featuresOf(source);
  const wit = await witDir(importsOf(source));
  try {
    const { component } = await componentize({
      sourcePath,
      witPath: wit,
      worldName: 'tool',
      disableFeatures: ALL_FEATURES.filter((f) => !features.includes(f)),
    });
    return component;
  } finally {
    await rm(wit, { recursive: true, force: true });
  }
}

async function buildWat(sourcePath: string, source: string): Promise<Uint8Array> {
  const wabt = await (await import('wabt')).default();
  const mod = wabt.parseWat(basename(sourcePath), source, { multi_value: true, bulk_memory: true });
  try {
    return mod.toBinary({}).buffer;
  } finally {
    mod.destroy();
  }
}

/**
 * Builds `sourcePath` (.js or .wat) into `outPath` unless the cached build is current.
 * `source` overrides the file's text (a bundle written there by the caller); `cacheDir` is the
 * per-user build cache (none when undefined).
 */
export async function buildGuest(
  sourcePath: string,
  outPath: string,
  source?: string,
  cacheDir: string | undefined = buildCacheDir(),
): Promise<{ built: boolean; reused?: boolean }> {
  source ??= await readFile(sourcePath, 'utf8');
  const kind = extname(sourcePath);
  const toolchain = kind === '.js' ? packageVersion('@bytecodealliance/componentize-js') : 'wabt';
  const hash = createHash('sha256').update(toolchain).update('\0').update(source).digest('hex');
  const stamp = `${outPath}.sha256`;
  try {
    if ((await readFile(stamp, 'utf8')) === hash && (await stat(outPath)).size > 0) return { built: false };
  } catch {
    // no previous build
  }
  // The per-user cache's key adds what else shapes the bytes: this script (the build's options),
  // the toolchain's own dependencies as installed (jco's WIT files, wizer, weval, the parser) and
  // Node's major version (the toolchain's WebAssembly runs in its V8).
  const key = createHash('sha256')
    .update(hash)
    .update('\0')
    .update(await readFile(fileURLToPath(import.meta.url)))
    .update('\0')
    .update(kind === '.js' ? toolchainVersions('@bytecodealliance/componentize-js') : toolchainVersions('wabt'))
    .update(`\0node ${process.versions.node.split('.')[0]}`)
    .digest('hex');
  const how = await cachedBuild({
    dir: cacheDir,
    name: basename(outPath, '.wasm'),
    key,
    outPath,
    build: () => (kind === '.js' ? buildJs(sourcePath, source) : buildWat(sourcePath, source)),
  });
  await writeFile(stamp, hash);
  return how === 'reused' ? { built: false, reused: true } : { built: true };
}

/** The installed version of package `name`. */
function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;
}

/** `name@version` of package `name` and of each of its direct dependencies, as installed beside it. */
function toolchainVersions(name: string): string {
  const dir = packageDir(name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
  const from = createRequire(join(dir, 'package.json'));
  const deps = Object.keys(pkg.dependencies ?? {})
    .sort()
    .map((dep) => {
      for (const base of from.resolve.paths(dep) ?? []) {
        const file = join(base, dep, 'package.json');
        if (existsSync(file))
          return `${dep}@${(JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version}`;
      }
      return `${dep}@missing`;
    });
  return [`${name}@${pkg.version}`, ...deps].join(' ');
}
