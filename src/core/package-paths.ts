// Where boxbot's own files are: the package root, and the entry file of each thread or process it
// starts. boxbot runs from three places: its TypeScript sources (src/, through tsx), the compiled
// JavaScript (dist/, tsc) and the bundle the packed tarball runs (dist/bundle, scripts/bundle.js).
// Each puts this module two folders below the package root, so every file the runtime reads from
// its package (the bundled tools, skills, the dashboard, package.json) is found from here rather
// than from each module's own location, which a bundle moves. Entry files differ: the bundle keeps
// each as its own file in dist/bundle, named after its path (`sandbox/worker` → sandbox-worker.js).
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const here = dirname(self);

/** The package's folder (the one holding package.json). */
export const PACKAGE_ROOT = join(here, '..', '..');

/** True when this runs from the esbuild bundle in dist/bundle. */
export const BUNDLED = basename(here) === 'bundle' && basename(dirname(here)) === 'dist';

/** A file or folder of the package, by its path from the package root. */
export const packagePath = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);

/** The file name the bundle gives the entry `path` (`sandbox/worker` → `sandbox-worker.js`). */
export const bundledEntryName = (path: string): string => `${path.replaceAll('/', '-')}.js`;

/**
 * The file that starts a worker thread or child process, by its module path under src/ without
 * extension (`sandbox/worker`): `src/sandbox/worker.ts` from the sources (the caller registers
 * tsx for a `.ts` file), `dist/sandbox/worker.js` compiled (or in the tests' compiled copy of src/),
 * `dist/bundle/sandbox-worker.js` bundled.
 */
export function entryFile(path: string): string {
  if (BUNDLED) return join(here, bundledEntryName(path));
  return join(dirname(here), `${path}${extname(self)}`);
}
