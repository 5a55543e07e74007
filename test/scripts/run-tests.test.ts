// The test runner `npm test` uses (scripts/run-tests.ts), on fixture files: the unit layer's pool
// worker reports each file and each test, with what it printed; a file that ends its process, one
// that never settles and one that blocks its event loop each fail alone and the files after them
// still run; the exit code is 1 and the closing lines stay in the form CI reads. The slow layer's
// files share a pool worker too, fail alone the same ways, and a pooled file's CPU time counts the
// children it waited for. With --beside=1, a slow-layer slot runs beside the unit layer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { root } from '../helpers.ts';

const fixtures = 'test/scripts/fixtures/runner';
const slowFixtures = 'test/scripts/fixtures/runner-slow';
const slowFailing = 'test/scripts/fixtures/runner-slow-fail';
// Without the variable node:test sets in the files it runs, or the runner's children would think
// they run inside this file's test and skip their own.
const { NODE_TEST_CONTEXT: _, ...env } = process.env;
const runner = (...args: string[]) => runnerIn(env, ...args);
const runnerIn = (env: NodeJS.ProcessEnv, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'run-tests.ts'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 5 * 60_000,
  });

/** The block a file's result prints, up to the next file's. */
const block = (out: string, file: string, dir = fixtures): string => {
  const at = out.search(new RegExp(`^[✔✖] ${dir}/${file} `, 'm'));
  assert.ok(at >= 0, `no block for ${file} in:\n${out}`);
  const next = out.slice(at + 1).search(/^[✔✖] |^Per-file durations/m);
  return out.slice(at, next < 0 ? undefined : at + 1 + next);
};

test('pool workers report per file and per test, and a crashed, hung or blocked file fails alone', () => {
  const r = runner('--unit', '--workers=1', '--file-limit=3000', fixtures);
  const out = r.stdout;
  assert.equal(r.status, 1, out + r.stderr);

  const failing = block(out, 'b-fail.test.ts');
  assert.match(failing, /^✖ /);
  assert.match(failing, /✔ b passes/);
  assert.match(failing, /✖ b fails/);
  assert.match(failing, /Expected values to be strictly equal/);
  assert.match(failing, /printed by b-fail/);

  assert.match(block(out, 'a-exit.test.ts'), /^✖ [\s\S]*exited with code 3/);
  assert.match(block(out, 'c-hang.test.ts'), /^✖ [\s\S]*timed out after 3000ms/);
  assert.match(block(out, 'd-blocked.test.ts'), /^✖ [\s\S]*still running after 3 s: killed/);
  // The file its worker was killed in still gets a CPU time: what the worker used beyond its other files.
  assert.match(block(out, 'd-blocked.test.ts'), /^✖ \S+ \(\d+\.\d s, CPU \d+\.\d s\)/);
  assert.match(block(out, 'e-pass.test.ts'), /^✔ [\s\S]*✔ e passes/);

  assert.match(out, /^unit layer \d+\.\d s wall \(5 files, 1 at a time\); whole run \d+\.\d s$/m);
  assert.match(out, /^5 files, 4 tests, 4 failed; wall /m);
  const failed = out.slice(out.indexOf('failed files:'));
  for (const f of ['a-exit', 'b-fail', 'c-hang', 'd-blocked']) assert.match(failed, new RegExp(`${f}\\.test\\.ts`));
  assert.doesNotMatch(failed, /e-pass/);
});

test('--isolate runs each file in its own process, with the same verdicts', () => {
  const r = runner(
    '--unit',
    '--isolate',
    '--concurrency=2',
    `${fixtures}/b-fail.test.ts`,
    `${fixtures}/e-pass.test.ts`,
  );
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(block(r.stdout, 'b-fail.test.ts'), /^✖ [\s\S]*printed by b-fail/);
  assert.match(block(r.stdout, 'e-pass.test.ts'), /^✔ /);
  assert.match(r.stdout, /^2 files, 3 tests, 1 failed; wall /m);
});

test('--timings ends with the files ranked by CPU time, each with its CPU and wall time and layer', () => {
  const r = runner('--unit', '--isolate', '--timings', `${fixtures}/b-fail.test.ts`, `${fixtures}/e-pass.test.ts`);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const report = r.stdout.slice(r.stdout.indexOf('The 20 files with the most CPU time'));
  assert.ok(report.length < r.stdout.length, `no --timings report in:\n${r.stdout}`);
  const rows = report.split('\n').filter((l) => / unit test\/scripts\/fixtures\//.test(l));
  assert.equal(rows.length, 2, report);
  for (const row of rows) assert.match(row, /^\s*\d+\.\d s\s+\d+\.\d s {2}unit test\/scripts\/fixtures\/runner\/[be]-/);
  // Each file's own block says its CPU time too (it ran in a process of its own).
  assert.match(block(r.stdout, 'e-pass.test.ts'), /^✔ \S+ \(\d+\.\d s, CPU \d+\.\d s\)/);
});

test("the slow layer's files share a pool worker, and a file's CPU time counts the children it waited for", () => {
  const r = runner('--slow', '--concurrency=1', slowFixtures);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const child = block(r.stdout, 'a-child-cpu.test.ts', slowFixtures);
  const pass = block(r.stdout, 'b-pass.test.ts', slowFixtures);
  const pid = (text: string) => /test process (\d+)/.exec(text)?.[1];
  assert.ok(pid(child) && pid(child) === pid(pass), `one process ran both files:\n${child}\n${pass}`);
  // The child used 0.6 s of CPU (its own count) before the file ended.
  const cpu = Number(/^✔ \S+ \(\d+\.\d s, CPU (\d+\.\d) s\)/.exec(child)?.[1]);
  assert.ok(cpu >= 0.6, `the file's CPU time counts its child's:\n${child}`);
  assert.match(r.stdout, /^slow layer \d+\.\d s wall \(2 files, 1 at a time\); whole run /m);
});

test('in the slow layer too, a crashed, hung or blocked file (in a test or its import) fails alone', () => {
  const r = runner('--slow', '--concurrency=1', '--file-limit=3000', slowFailing);
  const out = r.stdout;
  assert.equal(r.status, 1, out + r.stderr);
  assert.match(block(out, 'a-exit.test.ts', slowFailing), /^✖ [\s\S]*exited with code 3/);
  assert.match(block(out, 'c-hang.test.ts', slowFailing), /^✖ [\s\S]*timed out after 3000ms/);
  assert.match(block(out, 'd-blocked.test.ts', slowFailing), /^✖ [\s\S]*still running after 3 s: killed/);
  assert.match(block(out, 'b-import-blocked.test.ts', slowFailing), /^✖ [\s\S]*still running after 3 s: killed/);
  assert.match(block(out, 'e-pass.test.ts', slowFailing), /^✔ [\s\S]*✔ e passes/);
  assert.match(out, /^5 files, 2 tests, 4 failed; wall /m);
});

test('with --beside=1, a slow-layer slot runs beside the unit layer (by default: after it)', (t) => {
  // Each fixture passes only while the other runs: it marks its start and waits for the other's mark.
  const beside = 'test/scripts/fixtures/runner-beside';
  const files = [`${beside}/unit-waits.test.ts`, `${beside}/slow-waits.test.ts`];
  const marks = () => {
    const dir = mkdtempSync(join(tmpdir(), 'boxbot-beside-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    return { ...env, BOXBOT_RUNNER_BESIDE_DIR: dir };
  };
  const limits = ['--workers=1', '--concurrency=1', '--file-limit=3000'];
  const side = runnerIn(marks(), ...limits, '--beside=1', ...files);
  assert.equal(side.status, 0, side.stdout + side.stderr);
  assert.match(block(side.stdout, 'unit-waits.test.ts', beside), /^✔ /);
  assert.match(block(side.stdout, 'slow-waits.test.ts', beside), /^✔ /);
  // The unit layer's wall time is still printed at the end, saying that slow files ran beside it.
  assert.match(
    side.stdout,
    /^unit layer \d+\.\d s wall \(1 files, 1 at a time; \d+ slow files? ended beside it, 1 at a time\); slow layer /m,
  );
  assert.match(side.stdout, /^CPU time of the test processes: both layers, side by side \d+\.\d s$/m);

  const after = runnerIn(marks(), ...limits, ...files);
  assert.equal(after.status, 1, after.stdout + after.stderr);
  assert.match(block(after.stdout, 'unit-waits.test.ts', beside), /^✖ [\s\S]*timed out after 3000ms/);
  assert.match(after.stdout, /^unit layer \d+\.\d s wall \(1 files, 1 at a time\); slow layer /m);
});
