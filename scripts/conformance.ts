// `npm run conformance -- <wasi-testsuite checkout>`: runs every WASI preview1 test of the
// official suite through the sandbox the way `boxbot tool run` does, prints passed/failed per
// test and a summary. The suite is a public repository and never part of this one: check out its
// prod/testsuite-base branch (the built .wasm files) anywhere and pass its path.
// Exit code: 0 when every failure is a known exception, 1 otherwise, 2 without a usable checkout.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../src/sandbox/index.ts';
import { type ConformanceOutcome, findPreview1Tests, runConformanceTest } from './conformance-suite.ts';

/**
 * Tests expected to fail, and why: none today. What used to fail, and how it was fixed:
 * Preview1 modules run through the preview1 adapter that jco ships (Wasmtime runs them natively).
 * The adapter needs two pages of the module's memory for its stack and state; taken with
 * `memory.grow` at the top of memory, they were claimed and overwritten by runtimes that take
 * everything up to `memory.size` (AssemblyScript's heap: its args_get and environ_get tests
 * failed with "assertion failed at adapter line 2858"). The module's memory is now moved up past
 * those pages and the adapter translates its pointers (src/sandbox/wasm/memory-shift.ts and
 * adapter-pointers.ts), so those tests pass; the empty-write fd check is patched as well (see
 * src/sandbox/wasm/adapter-patch.ts). File times are set to the nanosecond (src/sandbox/host/
 * fs-times.ts), so the three timestamp tests pass too.
 */
const KNOWN_EXCEPTIONS: Readonly<Record<string, string>> = {};

/** The least the suite must pass: its 72 preview1 tests less the known exceptions. */
const EXPECTED_MIN_PASSED = 72 - Object.keys(KNOWN_EXCEPTIONS).length;

const root = fileURLToPath(new URL('..', import.meta.url));
const checkout = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (!checkout) {
  console.error('usage: npm run conformance -- <path to a wasi-testsuite checkout, branch prod/testsuite-base>');
  console.error(
    'no checkout given: the suite is not part of this repository; clone WebAssembly/wasi-testsuite and check out ' +
      'prod/testsuite-base',
  );
  process.exit(2);
}
let tests;
try {
  tests = await findPreview1Tests(checkout);
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

const sandbox = createSandbox({
  cacheDir: join(root, '.cache', 'conformance-sandbox'),
  workers: Math.min(2, availableParallelism()),
});
const outcomes: ConformanceOutcome[] = [];
try {
  // Two at a time: each test is a separate call with a fresh instance, so order does not matter.
  let next = 0;
  const lane = async () => {
    while (next < tests.length) {
      const test = tests[next++]!;
      const outcome = await runConformanceTest(sandbox, test);
      outcomes.push(outcome);
      const known = KNOWN_EXCEPTIONS[outcome.id];
      const mark = outcome.passed ? 'passed' : known ? 'failed (known)' : 'FAILED';
      console.log(`${mark.padEnd(14)} ${outcome.id}${outcome.passed ? '' : `: ${outcome.reason}`}`);
    }
  };
  await Promise.all([lane(), lane()]);
} finally {
  await sandbox.close();
}

const passed = outcomes.filter((o) => o.passed).length;
const unexpected = outcomes.filter((o) => !o.passed && !KNOWN_EXCEPTIONS[o.id]);
const knownFailed = outcomes.filter((o) => !o.passed && KNOWN_EXCEPTIONS[o.id]);
const knownPassed = Object.keys(KNOWN_EXCEPTIONS).filter((id) => outcomes.some((o) => o.id === id && o.passed));
console.log('');
console.log(`${passed} of ${outcomes.length} passed (expected at least ${EXPECTED_MIN_PASSED} of 72)`);
for (const o of knownFailed) console.log(`known exception ${o.id}: ${KNOWN_EXCEPTIONS[o.id]}`);
for (const id of knownPassed) console.log(`listed as a known exception but passed: ${id}`);
if (unexpected.length) console.log(`unexpected failures: ${unexpected.map((o) => o.id).join(', ')}`);
process.exit(unexpected.length ? 1 : 0);
