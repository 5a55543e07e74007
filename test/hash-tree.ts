// Hashing a folder's files (names and contents) into a running hash: the key of a cache the tests
// rebuild when what made it changes (test/helpers.ts's shared compile cache, scripts/run-tests.ts's
// bundled tools cache). Plain Node modules only: the runner imports it before anything is built.
import type { Hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Hashes every file under `dir` (its path from `base`, then its contents), skipping the folders in `skip`. */
export function hashTree(hash: Hash, dir: string, base: string, skip: readonly string[] = []): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.includes(path)) hashTree(hash, path, base, skip);
    } else hash.update(relative(base, path)).update('\0').update(readFileSync(path));
  }
}
