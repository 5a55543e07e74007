// Where tools live: the bundled tools built into the package (tools/dist), the user's drop-in
// folder (<dataDir>/extensions/tools), the registry's cache (<dataDir>/cache/tools) and the
// bundled tools' specs built at install (tools/dist/cache/specs, read-only, shared by every data dir).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../../core/package-paths.ts';
import { SHARED_CACHE_ROOT } from '../../sandbox/index.ts';
import type { ToolSource } from './registry.ts';

/** The package's built tools (`tools/dist`), from src/ and dist/ alike. */
export const BUNDLED_TOOLS_DIR = packagePath('tools', 'dist');

/**
 * What to do when the bundled components are there but not their names: the tarball leaves the
 * name links out and boxbot's postinstall makes them, which npm 11.19+ skips until the package is
 * approved. Undefined when the links are there (or nothing is built at all).
 */
export function unlinkedBundledToolsHint(dir = BUNDLED_TOOLS_DIR): string | undefined {
  const has = (d: string) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.wasm'));
  if (!has(join(dir, 'components')) || has(dir)) return undefined;
  return (
    "the bundled tools are not linked: npm skipped boxbot's install script; run " +
    '`npm install-scripts approve boxbot` then `npm rebuild boxbot`'
  );
}

/** The folder users drop extra `.wasm` tools into (hot reloaded). */
export const extensionToolsDir = (dataDir: string): string => join(dataDir, 'extensions', 'tools');

/** The bundled tools' specs, built by the install step beside their compile cache. */
export const SHARED_SPEC_CACHE = join(SHARED_CACHE_ROOT, 'specs');

/** Snapshots and cached specs of registered tools. */
export const toolCacheDir = (dataDir: string): string => join(dataDir, 'cache', 'tools');

/** The registry's directories for a data directory: bundled first, extensions override. */
export function toolDirs(dataDir: string, bundled = BUNDLED_TOOLS_DIR): { path: string; source: ToolSource }[] {
  return [
    { path: bundled, source: 'bundled' },
    { path: extensionToolsDir(dataDir), source: 'extension' },
  ];
}
