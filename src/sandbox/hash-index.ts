// Remembers on disk which content hash a tool file had, keyed by the file's identity (device,
// inode, size, mtime and ctime in nanoseconds), so a fresh process finds its cache entry
// without reading and hashing a 12 MB file. Like git's index, an entry is only written for a
// file whose last change is old enough that a same-tick rewrite cannot hide behind it.
import type { BigIntStats } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A file changed this recently is hashed every time rather than indexed. */
const RACY_MS = 2000;

/** The identity of a file's current content, as far as metadata can tell. */
export function fileIdentity(st: BigIntStats): string {
  return `${st.dev}-${st.ino}-${st.size}-${st.mtimeNs}-${st.ctimeNs}`;
}

/** The content hash recorded for `identity`, if any. */
export async function lookupHash(cacheDir: string, identity: string): Promise<string | undefined> {
  try {
    const sha = (await readFile(join(cacheDir, 'by-stat', identity), 'utf8')).trim();
    return /^[0-9a-f]{64}$/.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

/** Records `sha256` for `identity` unless the file changed too recently to trust its metadata. */
export async function recordHash(
  cacheDir: string,
  identity: string,
  st: BigIntStats,
  sha256: string,
  now = Date.now(),
): Promise<void> {
  if (Number(st.ctimeNs / 1_000_000n) > now - RACY_MS) return;
  const dir = join(cacheDir, 'by-stat');
  try {
    // Private like the rest of the cache (compile.ts).
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `.${identity}.${process.pid}.${Date.now()}`);
    await writeFile(tmp, sha256, { mode: 0o600 });
    await rename(tmp, join(dir, identity));
  } catch {
    // Only a shortcut: without it the next process hashes the file again.
  }
}
