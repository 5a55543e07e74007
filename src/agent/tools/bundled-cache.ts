// Builds the bundled tools' shared cache (tools/dist/cache) on request: each bundled tool
// compiled for the sandbox (cache/sandbox, entries as src/sandbox/compile.ts writes them, each
// artefact's hash in its meta.json) and its spec from its help (cache/specs). Every data dir then
// reads these instead of compiling on its first start; at run time nothing writes here. Run by
// scripts/build-tool-cache.ts (`npm run build:tools`) in a checkout; an install, from the tarball or
// a checkout's `npm ci`, has none (each data dir compiles the bundled tools at its first start:
// scripts/link-tools.js, scripts/prepare.js). Entries and specs of tools
// no longer bundled are removed; an unchanged tool is checked, not rebuilt. Prints progress: a full
// build takes seconds.
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { createSandbox, DEFAULT_LIMITS, SHARED_CACHE_ROOT, SHARED_COMPILE_CACHE } from '../../sandbox/index.ts';
import { BUNDLED_TOOLS_DIR, SHARED_SPEC_CACHE } from './locations.ts';
import { registerFile } from './registry.ts';
import { writeCachedSpec } from './snapshot.ts';
import type { ToolSpec } from './spec.ts';

/** The memory limits entries are built for: the registry's (256 MiB) and the default call limit. */
const MEMORY_LIMITS = [...new Set([256 * 1024 * 1024, DEFAULT_LIMITS.maxMemoryBytes])];

/** Where the cache is built from and to (the package's own folders unless a test says otherwise). */
export interface BundledCacheDirs {
  tools: string;
  compile: string;
  specs: string;
  root: string;
}

const PACKAGE_DIRS: BundledCacheDirs = {
  tools: BUNDLED_TOOLS_DIR,
  compile: SHARED_COMPILE_CACHE,
  specs: SHARED_SPEC_CACHE,
  root: SHARED_CACHE_ROOT,
};

/**
 * Builds (or checks and completes) the shared cache; `write` shows the progress (stdout by default).
 * A tool that cannot be prepared (a stale or broken file) is left out with its reason, the others
 * are prepared; resolves with the names left out (a checkout's build fails on them).
 */
export async function buildBundledToolCache(
  write: (text: string) => void = (t) => process.stdout.write(t),
  dirs: BundledCacheDirs = PACKAGE_DIRS,
): Promise<{ failed: string[] }> {
  const files = (await readdir(dirs.tools).catch(() => [] as string[])).filter((f) => f.endsWith('.wasm')).sort();
  const scratch = await mkdtemp(join(tmpdir(), 'boxbot-tool-cache-'));
  const sandbox = createSandbox({ cacheDir: dirs.compile, sharedCacheDirs: [], workers: 1 });
  const failed: string[] = [];
  const keys = new Set<string>();
  const specs: ToolSpec[] = [];
  const started = Date.now();
  try {
    for (const [i, f] of files.entries()) {
      const name = basename(f, '.wasm');
      const t = Date.now();
      write(`boxbot: preparing bundled tool ${name} (${i + 1}/${files.length})…`);
      try {
        const { spec, blob } = await registerFile(sandbox, join(dirs.tools, f), scratch, name, {
          sharedSpecDirs: [dirs.specs],
        });
        for (const limit of MEMORY_LIMITS) keys.add((await sandbox.prepare(blob, limit)).key);
        specs.push(spec);
        write(` ${Date.now() - t} ms\n`);
      } catch (e) {
        failed.push(name);
        write(` left out: ${errorMessage(e)}\n`);
      }
    }
  } finally {
    await sandbox.close();
    await rm(scratch, { recursive: true, force: true });
  }
  // Specs are rewritten whole (they are small); compile entries not built for this set go.
  await rm(dirs.specs, { recursive: true, force: true });
  for (const spec of specs) await writeCachedSpec(dirs.specs, spec);
  for (const entry of await readdir(dirs.compile).catch(() => [] as string[])) {
    if (!keys.has(entry)) await rm(join(dirs.compile, entry), { recursive: true, force: true });
  }
  await makeReadable(dirs.root);
  const missing = failed.length ? `; left out, compiled by each data dir if they work then: ${failed.join(', ')}` : '';
  const took = `${keys.size} compiled, ${Date.now() - started} ms`;
  write(
    files.length
      ? `boxbot: bundled tools prepared for every data dir (${took})${missing}\n`
      : 'boxbot: no bundled tools to prepare\n',
  );
  return { failed };
}

/**
 * Folders 0755, files 0644: the cache is part of the package, read by whichever user runs boxbot
 * (a service account, not the one that installed it) and written only here.
 */
async function makeReadable(path: string): Promise<void> {
  const st = await stat(path).catch(() => undefined);
  if (!st) return;
  if (st.isDirectory()) {
    await chmod(path, 0o755);
    for (const name of await readdir(path)) await makeReadable(join(path, name));
  } else {
    await chmod(path, 0o644);
  }
}
