// `npm run fuzz` (also `npm run soak -- --fuzz`): every parser of outside input (platform
// normalizers, config loading, help parsing, cron, the Markdown renderers and chunker, model
// API streams, file types and names, conversation keys) over generated inputs, one target at a
// time in a worker (test/fuzz/). Prints per target the inputs run, crashes, hangs (an input
// taking over --hang-ms, or never returning), wall time and seed; the findings' full inputs go
// to .cache/fuzz/<target>.json. Exits 1 when any target had a finding.
// Flags (defaults in brackets): --runs N [100000] --seed N [random] --target NAME (repeatable)
// --hang-ms N [1000] --heap-mb N [1024]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FuzzReport } from '../test/fuzz/harness.ts';
import { runIsolated } from '../test/fuzz/isolate.ts';
import { TARGETS } from '../test/fuzz/targets/index.ts';

/** Runs the fuzz targets as `args` say; resolves with the exit code. */
export async function fuzzMain(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: 'string', default: '100000' },
      seed: { type: 'string' },
      target: { type: 'string', multiple: true },
      'hang-ms': { type: 'string', default: '1000' },
      'heap-mb': { type: 'string', default: '1024' },
    },
  });
  const int = (name: 'runs' | 'seed' | 'hang-ms' | 'heap-mb', text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got ${text}`);
    return n;
  };
  const runs = int('runs', values.runs, 1);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : int('seed', values.seed, 0);
  const hangMs = int('hang-ms', values['hang-ms'], 1);
  const heapMb = int('heap-mb', values['heap-mb'], 64);
  const names = values.target ?? TARGETS.map((t) => t.name);
  for (const n of names) {
    if (!TARGETS.some((t) => t.name === n))
      throw new UsageError(`no fuzz target "${n}"; known: ${TARGETS.map((t) => t.name).join(', ')}`);
  }

  const dir = join(fileURLToPath(new URL('..', import.meta.url)), '.cache', 'fuzz');
  console.log(`fuzz: ${names.length} targets, ${runs.toLocaleString('en-US')} inputs each, seed ${seed}`);
  const reports: FuzzReport[] = [];
  for (const name of names) {
    const r = await runIsolated(name, { runs, seed, hangMs, heapMb, stallMs: Math.max(30_000, hangMs * 30) });
    reports.push(r);
    console.log(line(r));
    for (const f of [...r.findings, ...(r.minimal ? [r.minimal] : [])].slice(0, 4)) {
      const input = f.input.length > 300 ? `${f.input.slice(0, 300)}… (${f.input.length} characters)` : f.input;
      console.log(`    ${f === r.minimal ? 'minimal ' : ''}${f.kind}: ${f.error}\n      input: ${input}`);
    }
    if (r.findings.length) {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
      writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
      console.log(`    full inputs: ${file}`);
    }
  }
  const total = (k: 'runs' | 'crashes' | 'hangs' | 'ms') => reports.reduce((sum, r) => sum + r[k], 0);
  console.log(
    `fuzz (seed ${seed}): ${total('runs').toLocaleString('en-US')} inputs, ${total('crashes')} crashes, ` +
      `${total('hangs')} hangs, ${Math.round(total('ms') / 1000)} s`,
  );
  console.log(`  rerun: npm run fuzz -- --seed ${seed}${runs === 100_000 ? '' : ` --runs ${runs}`}`);
  return total('crashes') + total('hangs') === 0 && reports.every((r) => r.runs >= runs) ? 0 : 1;
}

/** One target's figures on one line. */
function line(r: FuzzReport): string {
  const s = (r.ms / 1000).toFixed(1);
  return (
    `  ${r.target.padEnd(20)} ${r.runs.toLocaleString('en-US').padStart(8)} inputs  ${String(r.crashes).padStart(3)} ` +
    `crashes  ${String(r.hangs).padStart(3)} hangs  ${s.padStart(6)} s  seed ${r.seed}${r.stopped ? '  (stopped)' : ''}`
  );
}

/** A bad flag: printed as one line, exit code 2. */
class UsageError extends Error {}

/** fuzzMain for the command line: a bad flag is one line on stderr and exit code 2. */
export async function fuzzCli(args: string[]): Promise<number> {
  try {
    return await fuzzMain(args);
  } catch (e) {
    if (!(e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw e;
    console.error(`fuzz: ${(e as Error).message}`);
    return 2;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await fuzzCli(process.argv.slice(2));
