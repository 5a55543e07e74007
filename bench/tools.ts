// Tool registry benchmark: registration per tool, cold (fresh process, empty caches) and cached
// (fresh process, warm caches), warm call latency per tool, and hot reload (file written →
// registered → first call answered), against spawning /bin/cat measured in the same run.
// Uses the bundled tools in tools/dist when built, else the registry's test guests.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createToolRegistry,
  grantFor,
  invokeTool,
  type RegisteredTool,
  registerFile,
  type ToolPolicy,
  type ToolRegistry,
} from '../src/agent/tools/index.ts';
import { createSandbox, DEFAULT_LIMITS } from '../src/sandbox/index.ts';
import { quantile, r2 } from './stats.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);
const made: string[] = [];
/** A fresh temp folder, removed when the bench exits. */
const fresh = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.push(dir) === 1)
    process.once('exit', () => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return dir;
};

// Child mode: register the given files in a fresh process, print {file: ms}.
if (process.argv[2] === '--register-child') {
  const [, , , specCache, sandboxCache, ...files] = process.argv;
  // Without the shared cache built at install: "cold" means compiled from scratch (bench first-start
  // measures what the shared cache saves a fresh data dir).
  const sandbox = createSandbox({ cacheDir: sandboxCache!, sharedCacheDirs: [], workers: 1 });
  const out: Record<string, number> = {};
  for (const f of files) {
    const t = performance.now();
    await registerFile(sandbox, f, specCache!, undefined, { sharedSpecDirs: [] });
    out[f] = performance.now() - t;
  }
  await sandbox.close();
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const registerInChild = (specCache: string, sandboxCache: string, files: string[]): Record<string, number> => {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', self, '--register-child', specCache, sandboxCache, ...files],
    { encoding: 'utf8', cwd: root },
  );
  if (r.status !== 0) throw new Error(`registration child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number>;
};

// The tools: bundled when built, else test guests under the names they answer to.
const bundledDir = join(root, 'tools', 'dist');
let toolFiles = existsSync(bundledDir)
  ? readdirSync(bundledDir)
      .filter((f) => f.endsWith('.wasm'))
      .sort()
      .map((f) => join(bundledDir, f))
  : [];
const usingBundled = toolFiles.length > 0;
if (!usingBundled) {
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build-guests.ts')], {
    stdio: 'inherit',
    cwd: root,
  });
  const dir = fresh('boxbot-bench-guests-');
  toolFiles = [
    ['reg-multi', 'echo'],
    ['reg-multi', 'jsonout'],
    ['reg-v1', 'hot'],
  ].map(([g, name]) => {
    copyFileSync(join(root, '.cache', 'guests', `${g}.wasm`), join(dir, `${name}.wasm`));
    return join(dir, `${name}.wasm`);
  });
}
const nameOf = (f: string) => basename(f, '.wasm');

// A workspace and a local web page for the calls.
const workspace = fresh('boxbot-bench-ws-');
writeFileSync(join(workspace, 'small.txt'), 'hello from a small file\n'.repeat(20));
const server = createServer((_req, res) => res.end('<html><body><h1>Hello</h1><p>A small page.</p></body></html>'));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const INPUTS: Record<string, () => Record<string, unknown>> = {
  read: () => ({ file_path: 'small.txt' }),
  ls: () => ({ path: '.' }),
  glob: () => ({ pattern: '*.txt' }),
  grep: () => ({ pattern: 'hello', path: '.' }),
  write: () => ({ file_path: 'out.txt', content: 'written by the bench\n' }),
  edit: () => {
    writeFileSync(join(workspace, 'edit.txt'), 'before\n');
    return { file_path: 'edit.txt', old_string: 'before', new_string: 'after' };
  },
  bash: () => ({ command: 'echo hi | wc -c' }),
  js_exec: () => ({ code: '[1, 2, 3].map((x) => x * 2).join(",")' }),
  web_fetch: () => ({ url: pageUrl }),
  echo: () => ({ file_path: 'small.txt' }),
  jsonout: () => ({}),
  hot: () => ({}),
};
const policy: ToolPolicy = {
  access: 'full',
  workspace,
  network: { allow: ['http://127.0.0.1:*'], block: [] },
  limits: { ...DEFAULT_LIMITS, timeoutMs: 30_000 },
};

// 1. Cold: each tool in a fresh process with empty compile and spec caches.
console.error(`registering ${toolFiles.length} tools cold, each in a fresh process ...`);
const cold: Record<string, number> = {};
for (const f of toolFiles)
  Object.assign(cold, registerInChild(fresh('boxbot-bench-spec-'), fresh('boxbot-bench-sb-'), [f]));

// 2. Cached: prime shared caches, then register every tool in a fresh process.
const specCache = fresh('boxbot-bench-spec-');
const sandboxCache = fresh('boxbot-bench-sb-');
registerInChild(specCache, sandboxCache, toolFiles);
const cachedRuns = [0, 1, 2].map(() => registerInChild(specCache, sandboxCache, toolFiles));
const cached = Object.fromEntries(
  toolFiles.map((f) => [
    f,
    quantile(
      cachedRuns.map((r) => r[f]!),
      0.5,
    ),
  ]),
);

// 3. Warm calls.
console.error('warm calls ...');
const sandbox = createSandbox({ cacheDir: sandboxCache, workers: 1 });
const warm: Record<string, { p50: number; p99: number; ok: boolean; note?: string }> = {};
for (const f of toolFiles) {
  const { spec, blob } = await registerFile(sandbox, f, specCache);
  const tool: RegisteredTool = { spec, blob, source: 'bundled' };
  await sandbox.warm(blob, policy.limits.maxMemoryBytes);
  const input = INPUTS[spec.name] ?? (() => ({}));
  const grant = grantFor(spec.permissionLevel, spec.network, policy);
  let last = await invokeTool(sandbox, tool, input(), grant);
  for (let i = 0; i < 10; i++) last = await invokeTool(sandbox, tool, input(), grant);
  const times: number[] = [];
  for (let i = 0; i < 60; i++) {
    const args = input();
    const t = performance.now();
    last = await invokeTool(sandbox, tool, args, grant);
    times.push(performance.now() - t);
  }
  warm[spec.name] = {
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    ok: !last.isError,
    ...(last.isError ? { note: last.content.slice(0, 120) } : {}),
  };
}

// 4. Hot reload: a file renamed into a watched folder → 'added' → first call answered.
// "new": a registry that has not seen the file (its component is compiled, its help runs);
// "known": the same file dropped again after its removal (spec cached). Bundled tools answer
// to their own names (one component, many names), so the file keeps its name.
console.error('hot reload ...');
const sample = toolFiles.find((f) => nameOf(f) === 'read') ?? toolFiles[0]!;
const sampleName = nameOf(sample);
const waitFor = (registry: ToolRegistry, type: string) =>
  new Promise<void>((resolve) => {
    const off = registry.onChange((e) => {
      if (e.name === sampleName && (e.type === type || e.type === 'refused')) {
        off();
        resolve();
      }
    });
  });
async function drop(registry: ToolRegistry, dir: string): Promise<{ registered: number; answered: number }> {
  const tmp = join(dir, '.incoming.tmp');
  copyFileSync(sample, tmp);
  const added = waitFor(registry, 'added');
  const t = performance.now();
  renameSync(tmp, join(dir, `${sampleName}.wasm`));
  await added;
  const registered = performance.now() - t;
  const tool = registry.get(sampleName);
  if (!tool)
    throw new Error(
      `${sampleName} was refused: ${registry
        .problems()
        .map((p) => p.message)
        .join('; ')}`,
    );
  await invokeTool(
    sandbox,
    tool,
    (INPUTS[sampleName] ?? (() => ({})))(),
    grantFor(tool.spec.permissionLevel, tool.spec.network, policy),
  );
  return { registered, answered: performance.now() - t };
}
const newFile: { registered: number; answered: number }[] = [];
const known: { registered: number; answered: number }[] = [];
for (let i = 0; i < 5; i++) {
  const dir = fresh('boxbot-bench-ext-');
  const registry = createToolRegistry({
    sandbox,
    cacheDir: fresh('boxbot-bench-spec-'),
    dirs: [{ path: dir, source: 'extension' }],
  });
  await registry.start();
  newFile.push(await drop(registry, dir));
  const gone = waitFor(registry, 'removed');
  unlinkSync(join(dir, `${sampleName}.wasm`));
  await gone;
  known.push(await drop(registry, dir));
  await registry.close();
}

// 4b. Hot reload of a tool never seen before, small enough to compile fast: a WASI preview1
// command (wrapped with the adapter, transpiled and instrumented from scratch, help run).
spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build-guests.ts')], {
  stdio: 'ignore',
  cwd: root,
});
const smallGuest = join(root, '.cache', 'guests', 'reg-v1.wasm');
const coldSmall: number[] = [];
if (existsSync(smallGuest)) {
  for (let i = 0; i < 3; i++) {
    const coldSandbox = createSandbox({ cacheDir: fresh('boxbot-bench-coldsb-'), workers: 1 });
    const dir = fresh('boxbot-bench-ext-');
    const registry = createToolRegistry({
      sandbox: coldSandbox,
      cacheDir: fresh('boxbot-bench-spec-'),
      dirs: [{ path: dir, source: 'extension' }],
    });
    await registry.start();
    const added = new Promise<void>((resolve) => registry.onChange((e) => e.name === 'hot' && resolve()));
    const t = performance.now();
    copyFileSync(smallGuest, join(dir, '.incoming.tmp'));
    renameSync(join(dir, '.incoming.tmp'), join(dir, 'hot.wasm'));
    await added;
    const tool = registry.get('hot');
    if (tool) await invokeTool(coldSandbox, tool, {}, grantFor(tool.spec.permissionLevel, tool.spec.network, policy));
    coldSmall.push(performance.now() - t);
    await registry.close();
    await coldSandbox.close();
  }
}
await sandbox.close();
server.close();

// 5. Baseline: spawning /bin/cat on the same small file.
function spawnOnce(): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn('/bin/cat', [join(workspace, 'small.txt')], { stdio: ['ignore', 'pipe', 'inherit'] });
    p.stdout.resume();
    p.on('error', reject);
    p.on('close', () => resolve(performance.now() - t));
  });
}
for (let i = 0; i < 10; i++) await spawnOnce();
const catTimes: number[] = [];
for (let i = 0; i < 200; i++) catTimes.push(await spawnOnce());
const cat = quantile(catTimes, 0.5);
rmSync(workspace, { recursive: true, force: true });

const p50 = (xs: number[]) => quantile(xs, 0.5);
const perTool = toolFiles.map((f) => {
  const name = nameOf(f);
  return {
    name,
    coldRegisterMs: r2(cold[f]!),
    cachedRegisterMs: r2(cached[f]!),
    warmCallP50Ms: r2(warm[name]!.p50),
    warmCallP99Ms: r2(warm[name]!.p99),
    callOk: warm[name]!.ok,
  };
});
const figures = {
  tools: usingBundled ? 'bundled' : 'test guests',
  spawnCatMs: r2(cat),
  cachedRegisterMaxMs: r2(Math.max(...perTool.map((t) => t.cachedRegisterMs))),
  hotReloadNewRegisteredP50Ms: r2(p50(newFile.map((x) => x.registered))),
  hotReloadNewCallableP50Ms: r2(p50(newFile.map((x) => x.answered))),
  hotReloadKnownRegisteredP50Ms: r2(p50(known.map((x) => x.registered))),
  hotReloadKnownCallableP50Ms: r2(p50(known.map((x) => x.answered))),
  hotReloadColdSmallCallableP50Ms: coldSmall.length ? r2(p50(coldSmall)) : null,
  perTool,
};
console.log(`tool registry bench (${figures.tools}: ${perTool.map((t) => t.name).join(', ')})`);
console.log(`  baseline: spawn /bin/cat p50 ${figures.spawnCatMs} ms`);
console.log('  tool        cold register   cached register (target <= 100 ms)   warm call p50 / p99        vs cat');
for (const t of perTool) {
  const note = warm[t.name]!.note ? `   (call answered with an error: ${warm[t.name]!.note})` : '';
  const cold = `${t.coldRegisterMs} ms`.padStart(12);
  const cached = `${t.cachedRegisterMs} ms (${r2(t.cachedRegisterMs / cat)}x cat)`.padStart(24);
  const call = `${t.warmCallP50Ms} / ${t.warmCallP99Ms} ms`.padStart(18);
  console.log(`  ${t.name.padEnd(10)}  ${cold}   ${cached}             ${call}   ${r2(t.warmCallP50Ms / cat)}x${note}`);
}
console.log(
  `  hot reload, new file (component compiled, help runs): registered ${figures.hotReloadNewRegisteredP50Ms} ms, ` +
    `first call answered ${figures.hotReloadNewCallableP50Ms} ms ` +
    `(${r2(figures.hotReloadNewCallableP50Ms / cat)}x cat)   target <= 1000 ms`,
);
console.log(
  `  hot reload, known file dropped again (spec cached): registered ${figures.hotReloadKnownRegisteredP50Ms} ms, ` +
    `first call answered ${figures.hotReloadKnownCallableP50Ms} ms ` +
    `(${r2(figures.hotReloadKnownCallableP50Ms / cat)}x cat)`,
);
console.log(
  `  hot reload, never-compiled small tool (preview1 command: wrap, transpile, instrument, help): first call ` +
    `answered ${figures.hotReloadColdSmallCallableP50Ms} ms   target <= 1000 ms`,
);
console.log(
  '  (a never-compiled SpiderMonkey component takes its cold registration time above: jco transpile + ' +
    'instrumentation of a 12-38 MB module)',
);
console.log("  (hot reload includes the registry's 100 ms quiet period after the last file event)");
console.log(JSON.stringify(figures));
