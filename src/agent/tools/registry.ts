// The tool registry: discovers .wasm tools in the bundled and extension directories, registers
// each from its own help, and keeps them current as files come and go (hot reload). A broken
// replacement is refused with a logged reason and the working version stays. A tool is named by
// its help, so two files may claim one name: the later source wins (extension over bundled;
// within a source, the later path), and every file that lost its name is logged and listed.
// Example:
//   const reg = createToolRegistry({ sandbox, cacheDir, dirs: [{ path: 'tools/dist', source: 'bundled' }] });
//   await reg.start(); reg.get('read')?.spec.inputSchema
import { type FSWatcher, watch } from 'node:fs';
import { lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { createKeyedLock } from '../../core/keyed-lock.ts';
import type { Logger } from '../../core/log.ts';
import { silentLogger } from '../../core/log.ts';
import { sleep } from '../../core/sleep.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { SHARED_SPEC_CACHE } from './locations.ts';
import { readCachedSpec, snapshot, writeCachedSpec } from './snapshot.ts';
import { buildSpec, ToolRefusedError, type ToolSpec } from './spec.ts';

/** Where tools come from; extensions override bundled tools of the same name. */
export type ToolSource = 'bundled' | 'extension';

/** A registered file whose tool name another file took over. */
export interface ShadowedTool {
  name: string;
  file: string;
  source: ToolSource;
  /** The file in effect under that name. */
  by: string;
  bySource: ToolSource;
}

/** A registered tool: its spec and the immutable snapshot calls run from. */
export interface RegisteredTool {
  spec: ToolSpec;
  blob: string;
  source: ToolSource;
}

/** What changed in the registry. */
export interface RegistryEvent {
  type: 'added' | 'updated' | 'removed' | 'refused';
  name: string;
  file: string;
  message?: string;
}

/** How a registry is set up. */
export interface ToolRegistryOptions {
  sandbox: Sandbox;
  dirs: { path: string; source: ToolSource }[];
  /** Snapshots and cached specs live here (e.g. `<dataDir>/cache/tools`). */
  cacheDir: string;
  log?: Logger;
  /** Watch the directories for changes (default true). */
  watch?: boolean;
  /** Quiet period after the last file event before a file is (re)registered. */
  debounceMs?: number;
}

/** The tools in effect, kept in line with the watched folders. */
export interface ToolRegistry {
  /** Scans the directories and starts watching them. */
  start(): Promise<void>;
  /** The tools in effect, sorted by name. */
  list(): RegisteredTool[];
  get(name: string): RegisteredTool | undefined;
  /** Files currently refused, with the reason. */
  problems(): { file: string; message: string }[];
  /** Registered files not in effect because a later file has the same tool name. */
  shadowed(): ShadowedTool[];
  onChange(listener: (e: RegistryEvent) => void): () => void;
  /** Resolves once no file event is waiting or being processed. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** How registerFile looks for cached specs and tells about slow work. */
export interface RegisterOptions {
  /** Read-only spec caches looked in first (default: the bundled tools' one, built at install). */
  sharedSpecDirs?: string[];
  /** Told once the tool must be compiled and run for its help (seconds for a new tool). */
  onPrepare?: () => void;
}

/** Builds (or loads from cache) the spec of one file, run as `program`. Throws ToolRefusedError. */
export async function registerFile(
  sandbox: Sandbox,
  file: string,
  cacheDir: string,
  program = basename(file, '.wasm'),
  o: RegisterOptions = {},
): Promise<{ spec: ToolSpec; blob: string; cached: boolean }> {
  let snap;
  try {
    snap = await snapshot(file, join(cacheDir, 'blobs'));
  } catch (e) {
    throw new ToolRefusedError(file, `${file}: cannot read it: ${errorMessage(e)}`);
  }
  const specDir = join(cacheDir, 'specs');
  let cached: ToolSpec | undefined;
  for (const dir of [...(o.sharedSpecDirs ?? [SHARED_SPEC_CACHE]), specDir])
    cached ??= await readCachedSpec(dir, snap.sha256, program);
  if (cached) return { spec: { ...cached, file }, blob: snap.blob, cached: true };
  o.onPrepare?.();
  let prepared;
  try {
    prepared = await sandbox.prepare(snap.blob, 256 * 1024 * 1024);
  } catch (e) {
    throw new ToolRefusedError(file, `${file} refused: it is not a usable WASI tool: ${errorMessage(e)}`);
  }
  const spec = await buildSpec(sandbox, snap.blob, program, snap.sha256, prepared.imports, file);
  await writeCachedSpec(specDir, spec);
  return { spec, blob: snap.blob, cached: false };
}

/** The directory a symlinked tool file points into, when it is a link to another directory. */
async function linkTargetDir(file: string): Promise<string | undefined> {
  try {
    if (!(await lstat(file)).isSymbolicLink()) return undefined;
    const target = dirname(await realpath(file));
    return target === dirname(file) ? undefined : target;
  } catch {
    return undefined;
  }
}

/**
 * Said once when a bundled tool must be compiled: an install (from the packed tarball or a
 * checkout's `npm ci`) builds no compile cache (scripts/link-tools.js, scripts/prepare.js), so each
 * data dir compiles the bundled tools at its first start (measured under load in docs/install.md).
 */
export const BUNDLED_COMPILE_NOTICE =
  'compiling the bundled tools for the sandbox (once per data dir and boxbot version, about 10 s)';

/** Creates a registry; call `start()`. */
export function createToolRegistry(opts: ToolRegistryOptions): ToolRegistry {
  const log = opts.log ?? silentLogger;
  const debounceMs = opts.debounceMs ?? 100;
  const dirs = opts.dirs.map((d) => ({ ...d, path: resolve(d.path) }));
  /** Registered tools by file path. */
  const byFile = new Map<string, RegisteredTool>();
  const refused = new Map<string, string>();
  const listeners = new Set<(e: RegistryEvent) => void>();
  const timers = new Map<string, NodeJS.Timeout>();
  const chains = createKeyedLock(); // one sync at a time per tool file
  let announcedBundled = false;
  const watchers: FSWatcher[] = [];
  let closed = false;
  let started = false;
  /** Shadows already logged, so each is logged once while it lasts. */
  let loggedShadows = new Set<string>();

  const emit = (e: RegistryEvent) => {
    for (const l of listeners) l(e);
  };
  const sourceOf = (file: string): ToolSource => dirs.find((d) => file.startsWith(`${d.path}/`))?.source ?? 'extension';

  /** Brings one file's registration in line with the disk. Runs serialized per file. */
  async function sync(file: string): Promise<void> {
    await syncFile(file);
    if (started) logShadows();
  }

  async function syncFile(file: string): Promise<void> {
    if (closed) return;
    const previous = byFile.get(file);
    const name = previous?.spec.name ?? basename(file, '.wasm');
    let exists = true;
    try {
      exists = (await stat(file)).isFile();
    } catch {
      exists = false;
    }
    if (!exists) {
      refused.delete(file);
      if (previous) {
        byFile.delete(file);
        log.info({ tool: name, file }, 'tool removed');
        emit({ type: 'removed', name, file });
      }
      return;
    }
    try {
      const reg = await registerFile(opts.sandbox, file, opts.cacheDir, name, {
        // The first registration of a new tool compiles it: seconds, so the terminal says why it waits.
        onPrepare: () => {
          if (sourceOf(file) === 'bundled' && !announcedBundled) {
            announcedBundled = true;
            log.info(BUNDLED_COMPILE_NOTICE);
          }
          log.info({ tool: name, file }, 'preparing a new tool (compiled once per version)…');
        },
      });
      if (closed) return;
      refused.delete(file);
      if (previous?.spec.sha256 === reg.spec.sha256) return;
      byFile.set(file, { spec: reg.spec, blob: reg.blob, source: sourceOf(file) });
      log.info(
        { tool: reg.spec.name, file, permissionLevel: reg.spec.permissionLevel, cached: reg.cached },
        previous ? 'tool updated' : 'tool registered',
      );
      emit({ type: previous ? 'updated' : 'added', name: reg.spec.name, file });
    } catch (e) {
      if (!(e instanceof ToolRefusedError)) throw e;
      refused.set(file, e.message);
      log.warn(
        { tool: name, file, reason: e.message },
        previous ? 'tool replacement refused; the previous version stays' : 'tool refused',
      );
      emit({
        type: 'refused',
        name,
        file,
        message: previous ? `${e.message} (the previous version stays registered)` : e.message,
      });
    }
  }

  function enqueue(file: string): Promise<void> {
    return chains
      .run(file, () => sync(file))
      .catch((e: unknown) => {
        log.error({ file, err: e }, 'tool registration failed unexpectedly');
      });
  }

  function schedule(file: string): void {
    clearTimeout(timers.get(file));
    timers.set(
      file,
      setTimeout(() => {
        timers.delete(file);
        void enqueue(file);
      }, debounceMs),
    );
  }

  function rescan(dir: string): void {
    readdir(dir).then(
      (names) => {
        for (const f of names) if (f.endsWith('.wasm')) schedule(join(dir, f));
      },
      (e: unknown) => log.error({ dir, err: e }, 'tool directory scan failed'),
    );
  }

  /** Registered files, weakest first: bundled before extension, then by path. */
  const ranked = (): RegisteredTool[] =>
    [...byFile.values()].sort(
      (a, b) =>
        Number(a.source === 'extension') - Number(b.source === 'extension') ||
        (a.spec.file < b.spec.file ? -1 : a.spec.file > b.spec.file ? 1 : 0),
    );

  const effective = (): Map<string, RegisteredTool> => {
    const out = new Map<string, RegisteredTool>();
    for (const t of ranked()) out.set(t.spec.name, t);
    return out;
  };

  const shadowed = (): ShadowedTool[] => {
    const winners = effective();
    return ranked()
      .filter((t) => winners.get(t.spec.name) !== t)
      .map((t) => {
        const by = winners.get(t.spec.name)!;
        return { name: t.spec.name, file: t.spec.file, source: t.source, by: by.spec.file, bySource: by.source };
      });
  };

  /** Logs each shadow once while it lasts: a user's tool never replaces another silently. */
  function logShadows(): void {
    const now = new Set<string>();
    for (const s of shadowed()) {
      const key = `${s.name}\0${s.file}\0${s.by}`;
      now.add(key);
      if (!loggedShadows.has(key))
        log.warn(
          { tool: s.name, file: s.file, source: s.source, by: s.by, bySource: s.bySource },
          `${s.by} (${s.bySource}) takes the tool name ${s.name} over from ${s.file} (${s.source})`,
        );
    }
    loggedShadows = now;
  }

  return {
    async start() {
      const watched = new Set<string>();
      const watchDir = (path: string, onEvent: (filename: string) => void) => {
        if (opts.watch === false || watched.has(path)) return;
        watched.add(path);
        const w = watch(path, (_event, filename) => {
          if (filename) onEvent(String(filename));
        });
        w.on('error', (e) => log.error({ dir: path, err: e }, 'tool directory watch failed'));
        watchers.push(w);
      };
      for (const d of dirs) {
        await mkdir(d.path, { recursive: true });
        // Watch first, then scan: a file dropped in between is still seen.
        watchDir(d.path, (f) => {
          if (f.endsWith('.wasm')) schedule(join(d.path, f));
        });
        const files = (await readdir(d.path)).filter((f) => f.endsWith('.wasm')).map((f) => join(d.path, f));
        for (const f of files) await enqueue(f);
        // Bundled tools are links into a shared component (tools/dist/read.wasm → components/
        // fs.wasm): a rebuilt component changes the target, not the link, so watch the targets'
        // directories too and re-check every link of this directory when one changes.
        for (const f of files) {
          const target = await linkTargetDir(f);
          if (target) watchDir(target, () => rescan(d.path));
        }
      }
      started = true;
      logShadows();
    },
    list: () => [...effective().values()].sort((a, b) => a.spec.name.localeCompare(b.spec.name)),
    get: (name) => effective().get(name),
    problems: () => [...refused].map(([file, message]) => ({ file, message })),
    shadowed,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async settled() {
      for (;;) {
        await chains.idle();
        if (!timers.size) return;
        await sleep(Math.max(10, debounceMs / 2));
      }
    },
    async close() {
      closed = true;
      for (const w of watchers) w.close();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      await chains.idle();
    },
  };
}
