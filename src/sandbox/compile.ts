// Turns a tool file into something a worker can instantiate: classify it, wrap preview1
// commands into components, transpile with jco, instrument the core modules for fuel and
// memory limits, move each core module's memory out into an image the workers restore, and
// cache the result on disk by content hash (a renamed file is not recompiled, a changed one
// is). Compiled modules are cached in memory and shared.
// The cache is trusted only as far as it can be checked: every artefact's hash is recorded in
// the entry's meta.json when it is built and checked before the artefact is used, and the glue
// reaches the workers as the verified bytes (a data: URL), never as a path read again later. A
// mismatch is a cache miss: the entry is rebuilt and the mismatch reported. Folders are 0700,
// files 0600. Shared caches (the bundled tools' entries, built at install: shared-cache.ts) are
// read first, checked the same way, and never written: what they lack is built into `cacheDir`.
import { createHash } from 'node:crypto';
import { type BigIntStats, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../core/errors.ts';
import { packagePath } from '../core/package-paths.ts';
import { SandboxError } from './errors.ts';
import { patchGlue } from './glue-patch.ts';
import { fileIdentity, lookupHash, recordHash } from './hash-index.ts';
import { loadTranspile, loadWasmTools } from './jco.ts';
import { readPreview1CommandAdapter } from './preview1-adapter.ts';
import {
  classifyWasm,
  decodeImage,
  encodeImage,
  externalizeMemory,
  INVALID_OUTPUT,
  instrumentModule,
  listComponentImports,
  type MemoryImage,
  patchPreview1Adapter,
  restoreStubbedModules,
  SHIFT_BYTES,
  shiftMemory,
  stubLargeCoreModules,
  translateAdapterPointers,
} from './wasm/index.ts';

/** Bump when the transpile/instrument pipeline changes, so old cache entries are ignored. */
const PIPELINE_VERSION = 13;

type PackageJson = {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

/**
 * What else made an entry, from a package.json: boxbot's own version and the jco-transpile it
 * pins. An upgrade of either is a cache miss, so a data folder kept across upgrades never serves
 * glue that the new code did not make.
 */
export function builtBy(pkg: PackageJson): string {
  const jco = '@bytecodealliance/jco-transpile';
  const made = `${pkg.version}/${pkg.dependencies?.[jco] ?? pkg.devDependencies?.[jco]}`;
  return createHash('sha256').update(made).digest('hex').slice(0, 8);
}

/** This install's package.json. */
const BUILT_BY = (() => {
  try {
    return builtBy(JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as PackageJson);
  } catch {
    return 'unknown';
  }
})();
/** Modes of everything the cache writes: only boxbot's user may read or change it. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** A tool ready to instantiate: its glue module and compiled core modules. */
export interface PreparedComponent {
  /** Content hash of the tool file plus the pipeline variant. */
  key: string;
  sha256: string;
  /** The glue module as a `data:` URL of its verified bytes (workers import exactly these). */
  glueUrl: string;
  modules: Record<string, WebAssembly.Module>;
  /** For core modules whose memory is imported: the memory's initial state (shared bytes). */
  images: Record<string, MemoryImage>;
  /** The component's import names (e.g. `wasi:http/outgoing-handler@0.2.12`). */
  imports: string[];
}

interface CacheMeta {
  version: number;
  sha256: string;
  imports: string[];
  cores: string[];
  /** Core modules that import their memory; each has `<name>.mem`. */
  images: string[];
  /** sha256 (hex) of every artefact file of the entry, by file name. */
  hashes: Record<string, string>;
}

/** Options that change what is compiled (and so are part of the cache key). */
export interface CompileOptions {
  cacheDir: string;
  /** Read-only caches looked in before `cacheDir` (entries checked alike; nothing is written there). */
  sharedCacheDirs?: string[];
  maxMemoryBytes: number;
  /** Told the entry's key and glue URL once known, before the core modules are compiled. */
  onLocated?: (key: string, glueUrl: string) => void;
  /** Told when a cache entry fails its check (then it is rebuilt, never loaded). */
  onRejected?: (entry: string, reason: string) => void;
}

const memory = new Map<string, Promise<PreparedComponent>>();
/** Files already looked up, by path, while their identity (inode, size, times) is unchanged. */
const byStat = new Map<string, { id: string; prepared: Promise<PreparedComponent> }>();

function notFound(file: string, e: unknown): SandboxError {
  return new SandboxError(
    'not-found',
    `cannot read tool ${file}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`,
    file,
  );
}

/** Prepares `file` (a component or preview1 command), from memory, disk cache or scratch. */
export async function prepare(file: string, opts: CompileOptions): Promise<PreparedComponent> {
  let st: BigIntStats;
  try {
    // Synchronous: one stat per call is microseconds; its async form is a thread-pool hop.
    st = statSync(file, { bigint: true });
  } catch (e) {
    throw notFound(file, e);
  }
  const identity = fileIdentity(st);
  const id = `${identity}:${opts.maxMemoryBytes}`;
  const known = byStat.get(file);
  if (known?.id === id) return known.prepared;
  const prepared = (async () => {
    // Hashing a 12 MB component costs ~20 ms: a fresh process asks the on-disk indexes first.
    let sha256: string | undefined;
    for (const dir of cacheDirs(opts)) if (!sha256) sha256 = await lookupHash(dir, identity);
    if (sha256) {
      const key = cacheKey(sha256, opts);
      let hit = memory.has(key);
      for (const dir of cacheDirs(opts)) if (!hit) hit = (await readMeta(join(dir, key))) !== undefined;
      if (hit) return prepareHashed(sha256, undefined, file, opts);
    }
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (e) {
      throw notFound(file, e);
    }
    const hashed = createHash('sha256').update(bytes).digest('hex');
    void recordHash(opts.cacheDir, identity, st, hashed);
    return prepareHashed(hashed, bytes, file, opts);
  })();
  byStat.set(file, { id, prepared });
  prepared.catch(() => byStat.delete(file));
  return prepared;
}

/** Where entries are looked for: the shared (read-only) caches first, then the own one. */
const cacheDirs = (opts: CompileOptions): string[] => [...(opts.sharedCacheDirs ?? []), opts.cacheDir];

function cacheKey(sha256: string, opts: CompileOptions): string {
  return `${sha256}-p${PIPELINE_VERSION}-${BUILT_BY}-m${Math.ceil(opts.maxMemoryBytes / 65536)}`;
}

/** Loads the entry for `sha256`; `bytes` (needed only to build a missing entry) may come later. */
function prepareHashed(
  sha256: string,
  bytes: Uint8Array | undefined,
  label: string,
  opts: CompileOptions,
): Promise<PreparedComponent> {
  const key = cacheKey(sha256, opts);
  let pending = memory.get(key);
  if (!pending) {
    pending = load(bytes, sha256, key, label, opts);
    memory.set(key, pending);
    pending.catch(() => memory.delete(key));
  }
  return pending;
}

async function load(
  bytes: Uint8Array | undefined,
  sha256: string,
  key: string,
  label: string,
  opts: CompileOptions,
): Promise<PreparedComponent> {
  const dir = join(opts.cacheDir, key);
  let entry: Entry | undefined;
  for (const cache of cacheDirs(opts)) entry ??= await readEntry(join(cache, key), sha256, opts);
  if (!entry) {
    const source = bytes ?? (await readFile(label));
    if (createHash('sha256').update(source).digest('hex') !== sha256) {
      throw new SandboxError('invalid-tool', `${label} changed while it was being prepared; try again`, label);
    }
    entry = await build(source, sha256, dir, label, opts);
  }
  const { meta, files } = entry;
  const glueUrl = `data:text/javascript;base64,${Buffer.from(files[GLUE]!).toString('base64')}`;
  opts.onLocated?.(key, glueUrl);
  const modules: Record<string, WebAssembly.Module> = {};
  const images: Record<string, MemoryImage> = {};
  await Promise.all([
    ...meta.cores.map(async (name) => {
      modules[name] = await WebAssembly.compile(files[name] as Uint8Array<ArrayBuffer>);
    }),
    ...meta.images.map(async (name) => {
      images[name] = decodeImage(toShared(files[`${name}.mem`]!));
    }),
  ]);
  return { key, sha256, glueUrl, modules, images, imports: meta.imports };
}

/** The glue module's file name in an entry. */
const GLUE = 'guest.mjs';

/** An entry's meta and the bytes of each of its artefacts, by file name. */
interface Entry {
  meta: CacheMeta;
  files: Record<string, Uint8Array>;
}

/** The file names an entry is made of (besides meta.json). */
function artefacts(meta: Pick<CacheMeta, 'cores' | 'images'>): string[] {
  return [GLUE, ...meta.cores, ...meta.images.map((n) => `${n}.mem`)];
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  // WebCrypto hashes on the thread pool: a 40 MB entry does not stall the event loop.
  return Buffer.from(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)).toString('hex');
}

/**
 * Reads the entry in `dir` and checks every artefact against the hash recorded when it was
 * built; undefined (a miss) when it is absent, stale, or anything fails its check.
 */
async function readEntry(dir: string, sha256: string, opts: CompileOptions): Promise<Entry | undefined> {
  const meta = await readMeta(dir);
  if (!meta || meta.sha256 !== sha256) return undefined;
  const names = artefacts(meta);
  try {
    const read = await Promise.all(
      names.map(async (name) => {
        const bytes = await readFile(join(dir, name));
        const expected = meta.hashes[name];
        if (!expected || (await sha256Hex(bytes)) !== expected)
          throw new Error(`${name} does not match the hash recorded when it was built`);
        return [name, bytes] as const;
      }),
    );
    return { meta, files: Object.fromEntries(read) };
  } catch (e) {
    const reason =
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? `a file is missing: ${errorMessage(e)}` : errorMessage(e);
    opts.onRejected?.(dir, reason);
    return undefined;
  }
}

/** Copies bytes into shared memory, so every worker reads one copy instead of a clone each. */
function toShared(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

async function readMeta(dir: string): Promise<CacheMeta | undefined> {
  try {
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as CacheMeta;
    const ok =
      meta.version === PIPELINE_VERSION &&
      Array.isArray(meta.images) &&
      Array.isArray(meta.cores) &&
      typeof meta.hashes === 'object' &&
      meta.hashes !== null;
    return ok ? meta : undefined;
  } catch {
    return undefined;
  }
}

async function toComponent(bytes: Uint8Array, label: string): Promise<Uint8Array> {
  const kind = classifyWasm(bytes);
  if (kind.kind === 'component') return bytes;
  if (kind.kind === 'invalid') throw new SandboxError('invalid-tool', `${label}: ${kind.reason}`, label);
  const [{ componentNew }, adapter] = await Promise.all([loadWasmTools(), readPreview1CommandAdapter()]);
  const [main, linked] = preview1Pair(bytes, adapter);
  try {
    return await componentNew(main, [['wasi_snapshot_preview1', linked]]);
  } catch (e) {
    throw new SandboxError('invalid-tool', `${label}: cannot wrap preview1 command: ${String(e)}`, label);
  }
}

/**
 * The module and the adapter to link it with. The module's memory is moved up past the pages the
 * adapter takes (wasm/memory-shift.ts), so a runtime that claims all of its memory cannot claim
 * them, with the adapter translating its pointers (wasm/adapter-pointers.ts). A module that
 * cannot be shifted exactly, or an adapter whose exports are not all known, is linked as it is.
 */
function preview1Pair(module: Uint8Array, adapter: Uint8Array): [Uint8Array, Uint8Array] {
  const patched = patchPreview1Adapter(adapter);
  const shifted = shiftMemory(module);
  if (!shifted.shifted) return [module, patched];
  try {
    return [shifted.bytes, translateAdapterPointers(patched, SHIFT_BYTES)];
  } catch {
    return [module, patched];
  }
}

/** jco's output files for `component`: the glue module and its core modules. */
async function transpile(component: Uint8Array, label: string): Promise<Record<string, Uint8Array>> {
  // jco-transpile is the part of jco that transpiles; jco's wrapper adds only defaults for ESM
  // output and wraps result errors in ComponentError (kept here). Its `noTypescript` never
  // reached jco-transpile, whose option is `emitTypescriptDeclarations`.
  const { transpileBytes } = await loadTranspile();
  try {
    const out = await transpileBytes(component, {
      name: 'guest',
      instantiation: 'async',
      emitTypescriptDeclarations: false,
      noComponentErrorWrapping: false,
    });
    return out.files;
  } catch (e) {
    throw new SandboxError('invalid-tool', `${label}: jco cannot transpile it: ${String(e)}`, label);
  }
}

async function build(
  bytes: Uint8Array,
  sha256: string,
  dir: string,
  label: string,
  opts: CompileOptions,
): Promise<Entry> {
  const component = await toComponent(bytes, label);
  // jco reads only the interface of a core module and copies its bytes out: large ones go in as
  // stubs, and the originals take their place in the output (see wasm/interface-stub.ts).
  const stubbed = stubLargeCoreModules(component);
  let transpiled: Record<string, Uint8Array> | undefined;
  if (stubbed.stubs.length > 0) {
    try {
      transpiled = restoreStubbedModules(await transpile(stubbed.component, label), stubbed.stubs);
    } catch {
      // The original component is transpiled below, and says what is wrong with it.
    }
  }
  transpiled ??= await transpile(component, label);
  const cores: string[] = [];
  const images: string[] = [];
  const files: Record<string, Uint8Array> = {};
  for (const [name, data] of Object.entries(transpiled)) {
    if (name.endsWith('.wasm')) {
      let instrumented: Uint8Array;
      try {
        // Validated once, below: the externalized module only validates if its code does.
        instrumented = instrumentModule(data, { fuel: true, maxMemoryBytes: opts.maxMemoryBytes, validate: false });
      } catch (e) {
        throw new SandboxError('invalid-tool', `${label}: ${errorMessage(e)}`, label);
      }
      const external = externalizeMemory(instrumented);
      if (!external && !WebAssembly.validate(instrumented as Uint8Array<ArrayBuffer>)) {
        // jco saw only a stub of a large module: an invalid one is first noticed here.
        const why = WebAssembly.validate(data as Uint8Array<ArrayBuffer>)
          ? INVALID_OUTPUT
          : `its core module ${name} is not valid WebAssembly`;
        throw new SandboxError('invalid-tool', `${label}: ${why}`, label);
      }
      if (external) {
        files[`${name}.mem`] = encodeImage(external.image);
        images.push(name);
      }
      files[name] = external?.module ?? instrumented;
      cores.push(name);
    } else if (name === 'guest.js') {
      files[GLUE] = patchGlue(data);
    }
  }
  if (!files[GLUE]) throw new SandboxError('invalid-tool', `${label}: jco produced no glue module`, label);
  const hashes: Record<string, string> = {};
  for (const [name, data] of Object.entries(files)) hashes[name] = await sha256Hex(data);
  // The component's own import names, not jco's: jco lists the interfaces its glue calls into and
  // leaves out those imported only for their types (wasi:clocks/wall-clock for file timestamps).
  let imports: string[];
  try {
    imports = listComponentImports(component);
  } catch (e) {
    throw new SandboxError('invalid-tool', `${label}: cannot read its imports: ${errorMessage(e)}`, label);
  }
  const meta: CacheMeta = { version: PIPELINE_VERSION, sha256, imports, cores, images, hashes };
  await ensurePrivateDir(opts.cacheDir);
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(tmp, { recursive: true, mode: DIR_MODE });
  try {
    for (const [name, data] of Object.entries(files)) await writeFile(join(tmp, name), data, { mode: FILE_MODE });
    await writeFile(join(tmp, 'meta.json'), JSON.stringify(meta), { mode: FILE_MODE });
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
  } catch {
    // Another process finished the same build first (theirs is identical), or the cache is not
    // writable: the artefacts in memory are used either way.
    await rm(tmp, { recursive: true, force: true });
  }
  return { meta, files };
}

const privateDirs = new Set<string>();

/** Creates the cache folder 0700, and tightens one made earlier with a wider mode (once per process). */
async function ensurePrivateDir(path: string): Promise<void> {
  if (privateDirs.has(path)) return;
  await mkdir(path, { recursive: true, mode: DIR_MODE });
  await chmod(path, DIR_MODE).catch(() => {});
  privateDirs.add(path);
}

/**
 * Drops in-memory compiled modules. Only tests call it: it is how they stand for a fresh process, so the next run reads
 * the disk cache again.
 */
export function clearCompiledCache(): void {
  memory.clear();
  byStat.clear();
}
