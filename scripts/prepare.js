// `prepare` (run by `npm install`/`npm ci` in a source checkout and by `npm pack`): bundles
// src/ into dist/bundle, bundles the dashboard into dist/admin, copies jco-transpile into dist/vendor and
// builds the bundled tools into tools/dist/. It does not compile the tools for the sandbox: each
// data dir does that at its first start (about 10 s, saying so once), as an install from the
// tarball does; `npm run build:tools` builds a cache every data dir of a checkout shares
// (tools/dist/cache), for a checkout that starts many data dirs. All need the dev dependencies
// (TypeScript, tsx, esbuild, componentize-js, jco-transpile). With them omitted (`npm install --omit=dev`) an
// existing build is kept as it is, and a checkout with no build fails here with what to do,
// rather than with "tsx: not found". Plain JavaScript because tsx may be absent. A consumer of
// the packed tarball never runs this: the tarball ships dist/ and tools/dist/.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const installed = (name) => existsSync(join(root, 'node_modules', name, 'package.json'));
const built =
  existsSync(join(root, 'dist', 'bundle', 'cli-main.js')) &&
  existsSync(join(root, 'dist', 'vendor', 'jco-transpile')) &&
  existsSync(join(root, 'tools', 'dist', 'components'));

if (
  !['typescript', 'tsx', 'esbuild', '@bytecodealliance/componentize-js', '@bytecodealliance/jco-transpile'].every(
    installed,
  )
) {
  if (built) {
    console.log('boxbot: dev dependencies omitted; keeping the existing build in dist/ and tools/dist/');
    process.exit(0);
  }
  console.error(
    'boxbot: building from source needs the dev dependencies (TypeScript, esbuild, componentize-js).\n' +
      '  Run `npm ci` (without --omit=dev), then `npm prune --omit=dev` for a runtime-only node_modules;\n' +
      '  or install the packed tarball (`npm pack`), which ships dist/ and tools/dist/ already built.',
  );
  process.exit(1);
}

// Each step says what it does before it starts and how long it took, so an install that takes
// minutes on a small machine never looks stuck (npm shows this script's output as it comes).
// Two lanes run side by side, since neither reads what the other writes: the JavaScript (the
// runtime bundle, the dashboard and the jco-transpile copy) and the tools (componentize-js into
// tools/dist/, through tsx, or the per-user build cache). Each is mostly one single-threaded
// process, so on two cores the install takes the longer lane, not the sum.
const steps = [
  // The runtime bundle is made from src/ by esbuild itself (its TypeScript transform, a second or
  // two): tsc's emit into dist/ took 14 to 26 s and only fed it. `npm run build` still emits dist/
  // (the benches load it); `npm run typecheck` and `npm test` check the types.
  {
    lane: 'js',
    what: 'bundling the runtime into dist/bundle/ (esbuild: what bin/boxbot.js runs; see scripts/bundle.js)',
    args: [join(root, 'scripts', 'bundle.js')],
  },
  {
    lane: 'tools',
    what:
      'building the bundled WASM tools into tools/dist/ ' +
      '(esbuild + componentize-js; unchanged ones kept, or copied from the per-user build cache)',
    args: ['--import', 'tsx', join(root, 'scripts', 'build-tools.ts')],
  },
  {
    lane: 'js',
    what: 'bundling the dashboard into dist/admin/ (esbuild: Preact, htm, uPlot)',
    args: [join(root, 'scripts', 'build-dashboard.js')],
  },
  {
    lane: 'js',
    what: 'copying jco-transpile into dist/vendor/ (the tool compiler, without binaryen: see scripts/build-vendor.js)',
    args: [join(root, 'scripts', 'build-vendor.js')],
  },
];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const began = Date.now();
const children = new Set();

/** Runs step `i`, its output's lines prefixed with its number (the two lanes' lines interleave). */
function run(i) {
  const { what, args } = steps[i];
  const label = `boxbot install: step ${i + 1} of ${steps.length}`;
  console.log(`${label}: ${what}`);
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: from }).on('line', (line) => to.write(`  [step ${i + 1}] ${line}\n`));
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      if (code === 0) {
        console.log(`${label} done in ${seconds(Date.now() - start)}`);
        resolve();
      } else {
        const e = new Error(`${label} failed (exit ${code ?? signal}) after ${seconds(Date.now() - start)}`);
        reject(Object.assign(e, { exitCode: code ?? 1 }));
      }
    });
  });
}

/** Runs a lane's steps in order. */
async function lane(name) {
  for (const [i, step] of steps.entries()) if (step.lane === name) await run(i);
}

try {
  await Promise.all([lane('js'), lane('tools')]);
} catch (e) {
  for (const child of children) child.kill();
  console.error(e.message);
  process.exit(e.exitCode ?? 1);
}
console.log(`boxbot install: built in ${seconds(Date.now() - began)}; next: npm link, then boxbot setup`);
