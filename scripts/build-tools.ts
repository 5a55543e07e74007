// Builds the bundled tools into WASI components, run by `npm install` (the `prepare` script).
// Each folder tools/<component>/ with a main.js is bundled by esbuild (its `wasi:*` imports
// stay imports) and componentized once into tools/dist/components/<component>.wasm; every
// tool name it lists in tool.json ({"tools": [...], "features": [...]}) gets a link
// tools/dist/<name>.wasm to it, so tools sharing a runtime share one compiled component while
// each keeps its own name (the guest sees it as argv[0]), help, level and grant.
// Unchanged bundles are not rebuilt, and a bundle another checkout on this machine built is
// copied from the per-user build cache (scripts/build-cache.ts; BOXBOT_BUILD_CACHE=off for none).
// It also copies jco's WASI preview1 adapter to tools/dist/adapters/. A tarball install
// recreates the links with scripts/link-tools.js.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { PREVIEW1_COMMAND_ADAPTER, SHIPPED_ADAPTER_PATH } from '../src/sandbox/preview1-adapter.ts';
import { buildCacheDir } from './build-cache.ts';
import { buildGuest, packageDir } from './componentize.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const toolsDir = join(root, 'tools');
const distDir = join(toolsDir, 'dist');
const bundleDir = join(root, '.cache', 'tools');

interface Manifest {
  /** Tool names this component answers to (by argv[0]); default: the folder name. */
  tools?: string[];
  /** componentize-js features (stdio, random, clocks, http); default stdio, random, clocks. */
  features?: string[];
  /** Module substitutions for esbuild (e.g. a stub for a `node:` builtin), paths relative to the folder. */
  alias?: Record<string, string>;
}

const components = existsSync(toolsDir)
  ? readdirSync(toolsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(toolsDir, d.name, 'main.js')))
      .map((d) => d.name)
      .sort()
  : [];

/** Bundles main.js into one ES module; `wasi:` imports are left for componentize-js. */
async function bundle(name: string, features: string[], alias: Record<string, string> = {}): Promise<string> {
  const out = await build({
    entryPoints: [join(toolsDir, name, 'main.js')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    external: ['wasi:*'],
    mainFields: ['module', 'main'],
    alias: Object.fromEntries(Object.entries(alias).map(([from, to]) => [from, join(toolsDir, name, to)])),
    logLevel: 'error',
  });
  const code = out.outputFiles[0]!.text;
  const imports = [...new Set([...code.matchAll(/from\s*["'](wasi:[^"']+)["']/g)].map((m) => m[1]!))].sort();
  const header = [
    `// @features ${features.join(',')}`,
    ...(imports.length ? [`// @imports ${imports.join(', ')}`] : []),
  ];
  return `${header.join('\n')}\n${code}`;
}

async function link(name: string, component: string): Promise<void> {
  const path = join(distDir, `${name}.wasm`);
  const target = join('components', `${component}.wasm`);
  try {
    if ((await readlink(path)) === target) return;
  } catch {
    // absent or not a link
  }
  await rm(path, { force: true });
  await symlink(target, path);
}

const names: string[] = [];
let built = 0;
let reused = 0;
await mkdir(join(distDir, 'components'), { recursive: true });
await mkdir(bundleDir, { recursive: true });
for (const component of components) {
  const manifestPath = join(toolsDir, component, 'tool.json');
  const manifest: Manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : {};
  const started = Date.now();
  const source = await bundle(component, manifest.features ?? ['stdio', 'random', 'clocks'], manifest.alias);
  const bundlePath = join(bundleDir, `${component}.js`);
  await writeFile(bundlePath, source);
  const r = await buildGuest(bundlePath, join(distDir, 'components', `${component}.wasm`), source);
  if (r.built) {
    built++;
    console.log(`built tool component ${component} (${Date.now() - started} ms)`);
  } else if (r.reused) {
    reused++;
    console.log(
      `tool component ${component}: reused from the build cache ${buildCacheDir()} (${Date.now() - started} ms)`,
    );
  }
  for (const name of manifest.tools ?? [component]) {
    await link(name, component);
    names.push(name);
  }
}
// The preview1 adapter that wraps preview1 command tools (src/sandbox/preview1-adapter.ts):
// copied from jco, a build-time package, so a production install needs no jco.
await mkdir(dirname(SHIPPED_ADAPTER_PATH), { recursive: true });
await copyFile(join(packageDir('@bytecodealliance/jco'), 'lib', PREVIEW1_COMMAND_ADAPTER), SHIPPED_ADAPTER_PATH);
console.log(
  names.length
    ? `bundled tools: ${names.sort().join(', ')} (${built} components built, ${reused} reused from the build cache)`
    : 'bundled tools: none yet',
);
