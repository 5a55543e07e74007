// The compile cache of the bundled tools, built once by the install step (scripts/build-tool-cache.ts)
// into the package and shared by every data dir, so a fresh data dir starts without compiling.
// At run time it is only read: entries are checked against their recorded hashes like any other,
// and what it lacks (extension tools, other memory limits) is built into the data dir's own cache.
import { join } from 'node:path';
import { packagePath } from '../core/package-paths.ts';

/** The bundled tools' shared caches (`tools/dist/cache`), from src/ and dist/ alike. */
export const SHARED_CACHE_ROOT = packagePath('tools', 'dist', 'cache');

/** The shared compile cache (entries as compile.ts writes them). */
export const SHARED_COMPILE_CACHE = join(SHARED_CACHE_ROOT, 'sandbox');
