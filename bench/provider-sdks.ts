// Provider SDK import cost: each SDK imported alone in a fresh process, against `node -e 0` in the same run,
// interleaved. Gemini's, Bedrock's and Vertex's SDKs are imported on a provider's first call (lazy.ts), so this is
// what a gateway would pay at start if they were not; the ratio says how much each costs over an empty Node.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { quantile, r2 } from './stats.ts';

const ROUNDS = 7;
const root = fileURLToPath(new URL('..', import.meta.url));
const runs: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  openai: ['--input-type=module', '-e', "await import('openai')"],
  '@anthropic-ai/sdk': ['--input-type=module', '-e', "await import('@anthropic-ai/sdk')"],
  '@google/genai': ['--input-type=module', '-e', "await import('@google/genai')"],
  '@anthropic-ai/bedrock-sdk': ['--input-type=module', '-e', "await import('@anthropic-ai/bedrock-sdk')"],
  '@anthropic-ai/vertex-sdk': ['--input-type=module', '-e', "await import('@anthropic-ai/vertex-sdk')"],
};

const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, argv] of Object.entries(runs)) {
    const t = performance.now();
    const r = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${name}: ${r.stderr}`);
    times[name]!.push(performance.now() - t);
  }
}
const base = quantile(times['node -e 0']!, 0.5);
const result: Record<string, { medianMs: number; vsNode: number }> = {};
for (const [name, series] of Object.entries(times)) {
  const median = quantile(series, 0.5);
  result[name] = { medianMs: r2(median), vsNode: r2(median / base) };
  console.log(
    `${name.padEnd(28)} median ${median.toFixed(0).padStart(6)} ms  ${(median / base).toFixed(2)}x node -e 0`,
  );
}
console.log(JSON.stringify({ bench: 'provider-sdks', rounds: ROUNDS, result }));
