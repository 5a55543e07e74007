// A per-user cache of built WASM components, outside the checkout (like npm's own cache), so a
// second clone of the same sources on one machine copies its tool components in a second instead
// of running componentize-js again (about 35 s of `npm ci` on 2 cores). An entry is the build of
// one input key (a hash of the source, the toolchain's versions and the build script), held in a
// folder `<name>-<key>` with the bytes and a manifest naming their sha256; it is written in a
// temporary folder and renamed into place, so a concurrent install sees a whole entry or none, and
// checked against the manifest on every use, so a damaged entry is rebuilt rather than shipped.
// Each name keeps its newest entries only. BOXBOT_BUILD_CACHE=off disables it; a path moves it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Entries kept per component name (the newest used first). */
export const KEEP_PER_NAME = 3;

const BYTES = 'component.wasm';
const MANIFEST = 'manifest.json';

interface Manifest {
  name: string;
  key: string;
  size: number;
  sha256: string;
}

/** The cache folder for `env`, or undefined when BOXBOT_BUILD_CACHE=off. */
export function buildCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.BOXBOT_BUILD_CACHE?.trim();
  if (set === 'off' || set === '0' || set === 'false') return undefined;
  if (set) return set;
  const base = env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  return join(base, 'boxbot', 'build');
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Writes `bytes` to `path` through a temporary file and a rename. */
async function writeWhole(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}

/** The entry's bytes when it is whole and matches its manifest; why not otherwise ('' when absent). */
async function readEntry(entry: string, name: string, key: string): Promise<Uint8Array | string> {
  if (!(await stat(entry).catch(() => undefined))) return '';
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(entry, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return 'its manifest is missing or unreadable';
  }
  if (manifest.name !== name || manifest.key !== key) return 'its manifest names another build';
  const bytes = await readFile(join(entry, BYTES)).catch(() => undefined);
  if (!bytes) return `${BYTES} is missing`;
  if (bytes.length !== manifest.size || sha256(bytes) !== manifest.sha256) return `${BYTES} does not match its sha256`;
  return bytes;
}

/** A temporary folder this old is a crashed install's (a build takes seconds to minutes). */
const STALE_TMP_MS = 60 * 60_000;

/**
 * Keeps the newest KEEP_PER_NAME entries of `name` (by last use) and removes crashed installs'
 * temporary folders; a failure to prune is not an error.
 */
async function prune(dir: string, name: string): Promise<void> {
  const all = await readdir(dir).catch(() => [] as string[]);
  for (const f of all.filter((f) => f.startsWith('.tmp-'))) {
    const at = (await stat(join(dir, f)).catch(() => undefined))?.mtimeMs;
    if (at !== undefined && Date.now() - at > STALE_TMP_MS) await rm(join(dir, f), { recursive: true, force: true });
  }
  const mine = all.filter((f) => f.startsWith(`${name}-`) && /^[0-9a-f]{64}$/.test(f.slice(name.length + 1)));
  if (mine.length <= KEEP_PER_NAME) return;
  const aged = await Promise.all(
    mine.map(async (f) => ({ f, at: (await stat(join(dir, f)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  aged.sort((a, b) => b.at - a.at);
  for (const { f } of aged.slice(KEEP_PER_NAME)) await rm(join(dir, f), { recursive: true, force: true });
}

/** Stores a build as entry `<name>-<key>`: whole or not at all, then prunes `name`'s old entries. */
async function store(dir: string, name: string, key: string, bytes: Uint8Array): Promise<void> {
  const entry = join(dir, `${name}-${key}`);
  const tmp = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(tmp, { recursive: true });
    await writeFile(join(tmp, BYTES), bytes);
    const manifest: Manifest = { name, key, size: bytes.length, sha256: sha256(bytes) };
    await writeFile(join(tmp, MANIFEST), JSON.stringify(manifest));
    await rename(tmp, entry);
  } catch {
    // Another install stored the same entry first (the rename finds a full folder), or the cache
    // is not writable: the build itself is done, so this is not an error.
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await prune(dir, name);
}

export interface CachedBuild {
  /** The cache folder, or undefined for none. */
  dir: string | undefined;
  /** A name for the entry and for the log: the component's file name. */
  name: string;
  /** A hash of every input of the build (64 hex digits). */
  key: string;
  /** Where the component goes. */
  outPath: string;
  /** Builds the bytes when the cache has no whole entry. */
  build: () => Promise<Uint8Array>;
  /** Where a damaged entry is reported (one line). */
  log?: (line: string) => void;
}

/**
 * Writes the build of `key` to `outPath`, from the cache when it holds a whole entry, else by
 * `build()` (then stored). Example: `await cachedBuild({ dir, name: 'core', key, outPath, build })`.
 */
export async function cachedBuild(b: CachedBuild): Promise<'reused' | 'built'> {
  if (!/^[0-9a-f]{64}$/.test(b.key)) throw new Error(`build cache key must be 64 hex digits, not ${b.key}`);
  if (/[/\\]|^\./.test(b.name)) throw new Error(`build cache name must be a plain file name, not ${b.name}`);
  if (b.dir) {
    const entry = join(b.dir, `${b.name}-${b.key}`);
    const found = await readEntry(entry, b.name, b.key);
    if (typeof found !== 'string') {
      await writeWhole(b.outPath, found);
      const now = new Date();
      await utimes(entry, now, now).catch(() => undefined);
      return 'reused';
    }
    if (found) {
      (b.log ?? console.log)(`build cache: ignoring ${entry} (${found}); building again`);
      await rm(entry, { recursive: true, force: true });
    }
  }
  const bytes = await b.build();
  await writeWhole(b.outPath, bytes);
  if (b.dir) await store(b.dir, b.name, b.key, bytes);
  return 'built';
}
