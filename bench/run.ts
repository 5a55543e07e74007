// `npm run bench -- <name>`: runs one benchmark (or all), each printing its figures and a
// last line of JSON. Figures are ratios against baselines measured in the same run.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOptions } from '../scripts/bundle-options.js';

const benches: Record<string, string> = {
  sandbox: 'sandbox.ts',
  tools: 'tools.ts',
  agent: 'agent.ts',
  store: 'store.ts',
  'store-turn': 'store-turn.ts',
  gateway: 'gateway.ts',
  cli: 'cli.ts',
  'first-start': 'first-start.ts',
  replicas: 'replicas.ts',
  'provider-sdks': 'provider-sdks.ts',
};
/**
 * The benches that time boxbot's code per message run it as the package ships it: bundled by esbuild
 * with the runtime bundle's rules (scripts/bundle-options.js: boxbot's code without `keepNames`),
 * not through tsx, whose per-file transform wraps every closure in a call that names it (6-11% of
 * the gateway's CPU per message, measured). Dependencies are loaded from node_modules as they are.
 */
const BUNDLED = new Set(['gateway']);

/** Bundles bench `name` (`source`) into dist/bench; returns the file to run. */
async function bundled(name: string, source: string): Promise<string> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const outdir = join(root, 'dist', 'bench');
  const { build } = await import('esbuild');
  const options = bundleOptions(root, outdir, {});
  await build({
    ...options,
    entryPoints: { [name]: source },
    outdir,
    packages: 'external',
    plugins: [],
    metafile: false,
    minifyWhitespace: false,
  });
  return join(outdir, `${name}.js`);
}

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(benches);
for (const name of names) {
  const file = benches[name];
  if (!file) {
    console.error(`unknown benchmark ${name}; available: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  // libuv's thread pool sized as bin/boxbot.cjs sizes it for `boxbot start` (set before the process starts).
  const env = { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '16' };
  const source = fileURLToPath(new URL(file, import.meta.url));
  const args = BUNDLED.has(name) ? [await bundled(name, source)] : ['--import', 'tsx', source];
  const r = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    env: { ...env, BOXBOT_BENCH_DIR: dirname(source) },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
