// The WASI preview1 conformance runner's engine: finds the tests of a wasi-testsuite checkout
// (tests/<lang>/testsuite/wasm32-wasip1/<name>.wasm, each with an optional <name>.json spec of
// args, env, root folder, exit code and expected output) and runs each the way `boxbot tool run`
// does: the grant comes from the same flag parser, the root folder is a fresh copy mounted at `/`.
import { cp, mkdtemp, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { grantFromFlags } from '../src/cli/tool-run.ts';
import type { Sandbox } from '../src/sandbox/index.ts';

/** One test's spec, as the suite's legacy JSON form describes it. */
export interface ConformanceSpec {
  args?: string[];
  env?: Record<string, string>;
  root?: string;
  exit_code?: number;
  stdout?: string;
  stderr?: string;
}

/** One preview1 test of the suite. */
export interface ConformanceTest {
  /** `<lang>/<name>`, e.g. `rust/path_link`. */
  id: string;
  wasm: string;
  spec: ConformanceSpec;
  /** The spec's folder: `root` is relative to it. */
  dir: string;
}

/** What one test did. */
export interface ConformanceOutcome {
  id: string;
  passed: boolean;
  /** Why it failed: the first expectation that did not hold. */
  reason?: string;
}

const PREVIEW1 = 'wasm32-wasip1';

/**
 * Every preview1 test under `checkout` (a wasi-testsuite working tree), sorted by id.
 * Throws when the folder holds no `tests/<lang>/testsuite/wasm32-wasip1`: a wrong path must not
 * read as "0 of 0 passed".
 */
export async function findPreview1Tests(checkout: string): Promise<ConformanceTest[]> {
  const testsDir = join(checkout, 'tests');
  let langs: string[];
  try {
    langs = (await readdir(testsDir)).sort();
  } catch {
    throw new Error(
      `${checkout} is not a wasi-testsuite checkout: it has no tests/ folder (the built suite is on its ` +
        `prod/testsuite-base branch)`,
    );
  }
  const tests: ConformanceTest[] = [];
  let suites = 0;
  for (const lang of langs) {
    const dir = join(testsDir, lang, 'testsuite', PREVIEW1);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    suites++;
    for (const name of names.filter((n) => n.endsWith('.wasm')).sort()) {
      const stem = basename(name, '.wasm');
      let spec: ConformanceSpec = {};
      try {
        spec = JSON.parse(await readFile(join(dir, `${stem}.json`), 'utf8')) as ConformanceSpec;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new Error(`${lang}/${stem}.json: ${(e as Error).message}`);
      }
      tests.push({ id: `${lang}/${stem}`, wasm: join(dir, name), spec, dir });
    }
  }
  if (suites === 0) {
    throw new Error(
      `${checkout} has no tests/<lang>/testsuite/${PREVIEW1}/ folder: check out the prod/testsuite-base branch, ` +
        `where the built tests live`,
    );
  }
  return tests.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Runs one test in `sandbox` against a fresh copy of its root folder, and judges the result. */
export async function runConformanceTest(sandbox: Sandbox, test: ConformanceTest): Promise<ConformanceOutcome> {
  const { spec } = test;
  let work: string | undefined;
  try {
    const dir: string[] = [];
    if (spec.root) {
      // The test may create, rename and delete: it gets its own copy, never the checkout.
      work = await mkdtemp(join(tmpdir(), 'boxbot-conformance-'));
      const copy = join(work, basename(spec.root));
      // The folder itself may be a symlink (a checkout assembled from links): copy what it names.
      const source = await realpath(join(test.dir, spec.root));
      if ((await stat(source)).isDirectory()) await cp(source, copy, { recursive: true, verbatimSymlinks: true });
      dir.push(`${copy}:/`);
    }
    const env = Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const grant = grantFromFlags({ dir, env, allowHost: [], block: [], format: 'text' }, spec.args ?? []);
    const result = await sandbox.run(test.wasm, grant);
    const dec = new TextDecoder();
    const stdout = dec.decode(result.stdout);
    const stderr = dec.decode(result.stderr);
    const fail = (reason: string): ConformanceOutcome => ({ id: test.id, passed: false, reason });
    if (result.trap)
      return fail(`trap ${result.trap.kind}: ${result.trap.message}${stderr ? ` (stderr: ${firstLine(stderr)})` : ''}`);
    const exitCode = spec.exit_code ?? 0;
    if (result.exitCode !== exitCode)
      return fail(
        `exit code ${result.exitCode}, expected ${exitCode}${stderr ? ` (stderr: ${firstLine(stderr)})` : ''}`,
      );
    if (spec.stdout !== undefined && stdout !== spec.stdout)
      return fail(`stdout ${JSON.stringify(stdout)}, expected ${JSON.stringify(spec.stdout)}`);
    if (spec.stderr !== undefined && stderr !== spec.stderr)
      return fail(`stderr ${JSON.stringify(stderr)}, expected ${JSON.stringify(spec.stderr)}`);
    return { id: test.id, passed: true };
  } catch (e) {
    return { id: test.id, passed: false, reason: `host error: ${(e as Error).message}` };
  } finally {
    if (work) await rm(work, { recursive: true, force: true });
  }
}

function firstLine(s: string): string {
  const lines = s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.find((l) => /assert|panic|error/i.test(l)) ?? lines[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
