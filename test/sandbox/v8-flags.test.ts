// A process that has a sandbox keeps TurboFan off jco's instance-building function (compiled
// again and again for nothing, on the cores the calls need) and optimizes everything else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a hot function named `name` and a twin in a process that made a sandbox; says which TurboFan took. */
function optimizedAfterSandbox(name: string): { glue: boolean; other: boolean } {
  const script = join(tempDir('boxbot-v8-'), 'probe.mjs');
  writeFileSync(
    script,
    `
const { createSandbox } = await import(${JSON.stringify(join(root, 'src', 'sandbox', 'index.ts'))});
const sandbox = createSandbox({ cacheDir: ${JSON.stringify(tempDir('boxbot-cache-'))}, workers: 1 });
await sandbox.close();
const status = new Function('f', 'return %GetOptimizationStatus(f)');
const make = (n) => new Function('return function ' + n + '(x) { return (x * 31 + 7) % 13; }')();
const drive = (f) => { for (let k = 0; k < 200000; k++) f(k); };
const glue = make(${JSON.stringify(name)});
const other = make('boxbotProbeTwin');
// TurboFan compiles in the background: both are driven alike until the twin is optimized (a slow machine takes
// longer; the ceiling only ends a hang), then the glue's status is read.
const optimized = (f) => (status(f) & 64) !== 0;
const end = Date.now() + 60000;
do {
  drive(glue);
  drive(other);
  await new Promise((r) => setTimeout(r, 20));
} while (!optimized(other) && Date.now() < end);
// Bit 64 of V8's optimization status: compiled by TurboFan.
process.stdout.write(JSON.stringify({ glue: optimized(glue), other: optimized(other) }));
`,
  );
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', script], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { glue: boolean; other: boolean };
}

describe('sandbox: V8 settings', () => {
  it("TurboFan leaves jco's instance-building function alone and optimizes a twin of it", () => {
    assert.deepEqual(optimizedAfterSandbox('_initGenerator'), { glue: false, other: true });
  });
});
