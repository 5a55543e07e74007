// Immutable, content-addressed copies of tool files: a registered tool runs from its snapshot,
// so a call that started on one version finishes on it even if the file is replaced meanwhile.
// Also the cache of built specs, keyed by content hash, program name (argv[0]) and parser version.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SPEC_VERSION, type ToolSpec } from './spec.ts';

/** A snapshot of a tool file. */
export interface Snapshot {
  blob: string;
  sha256: string;
}

/** Snapshots known in this process, by cache folder and file identity (see `memoKey`). */
const byIdentity = new Map<string, Snapshot>();

// Keyed by the cache folder too: a snapshot names a blob inside one folder, and another folder
// (a second instance in this process, a fresh data folder) must get its own copy, not a path into
// a folder that may be gone.
const memoKey = (dir: string, identity: string) => `${dir}\0${identity}`;

/**
 * A file's identity (path, device, inode, size, mtime) → its snapshot, remembered on disk so a
 * fresh process does not re-read an unchanged 40 MB component to find its hash.
 */
const identityPath = (dir: string, identity: string) =>
  join(dir, 'ids', `${createHash('sha1').update(identity).digest('hex')}.json`);

async function knownSnapshot(dir: string, identity: string, size: number): Promise<Snapshot | undefined> {
  try {
    const rec = JSON.parse(await readFile(identityPath(dir, identity), 'utf8')) as {
      identity?: string;
      sha256?: string;
    };
    if (rec.identity !== identity || typeof rec.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(rec.sha256))
      return undefined;
    const blob = join(dir, `${rec.sha256}.wasm`);
    if ((await stat(blob)).size !== size) return undefined;
    return { blob, sha256: rec.sha256 };
  } catch {
    return undefined;
  }
}

async function rememberSnapshot(dir: string, identity: string, snap: Snapshot): Promise<void> {
  const path = identityPath(dir, identity);
  await mkdir(join(dir, 'ids'), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ identity, sha256: snap.sha256 }));
  await rename(tmp, path);
}

/** Copies `file` into `dir` as `<sha256>.wasm` (once per content); hashes what was copied. */
export async function snapshot(file: string, dir: string): Promise<Snapshot> {
  const st = await stat(file);
  const identity = `${file}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  const known = byIdentity.get(memoKey(dir, identity)) ?? (await knownSnapshot(dir, identity, st.size));
  if (known) {
    byIdentity.set(memoKey(dir, identity), known);
    return known;
  }
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.incoming-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const hash = createHash('sha256');
  try {
    await pipeline(
      createReadStream(file),
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      }),
      createWriteStream(tmp),
    );
    const sha256 = hash.digest('hex');
    const blob = join(dir, `${sha256}.wasm`);
    await rename(tmp, blob);
    const snap = { blob, sha256 };
    // Only when the file did not change while it was copied is the identity worth remembering.
    const after = await stat(file);
    if (after.size === st.size && after.mtimeMs === st.mtimeMs && after.size === (await stat(blob)).size) {
      byIdentity.set(memoKey(dir, identity), snap);
      await rememberSnapshot(dir, identity, snap);
    }
    return snap;
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

const specPath = (dir: string, sha256: string, name: string) => join(dir, `${sha256}-${name}-v${SPEC_VERSION}.json`);

/** A cached spec for this content run as `program` (its help may differ by program name), if any. */
export async function readCachedSpec(dir: string, sha256: string, program: string): Promise<ToolSpec | undefined> {
  try {
    return JSON.parse(await readFile(specPath(dir, sha256, program), 'utf8')) as ToolSpec;
  } catch {
    return undefined;
  }
}

/** Stores a spec (atomically: write then rename). */
export async function writeCachedSpec(dir: string, spec: ToolSpec): Promise<void> {
  await mkdir(dir, { recursive: true });
  const path = specPath(dir, spec.sha256, spec.program);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(spec));
  await rename(tmp, path);
}
