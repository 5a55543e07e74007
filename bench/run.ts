// `npm run bench -- <name>`: runs one benchmark (or all), each printing its figures and a
// last line of JSON. Figures are ratios against baselines measured in the same run.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))], {
    stdio: 'inherit',
    env,
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
