// `prepare` (run by `npm install`/`npm ci` in a source checkout and by `npm pack`): compiles
// src/ into dist/, bundles the dashboard into dist/admin, builds the bundled tools into
// tools/dist/ and compiles them for the sandbox into the cache every data dir shares
// (tools/dist/cache). The first three need the dev dependencies
// (TypeScript, tsx, esbuild, componentize-js). With them omitted (`npm install --omit=dev`) an
// existing build is kept as it is, and a checkout with no build fails here with what to do,
// rather than with "tsx: not found". Plain JavaScript because tsx may be absent. A consumer of
// the packed tarball never runs this: the tarball ships dist/ and tools/dist/.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const installed = (name) => existsSync(join(root, 'node_modules', name, 'package.json'));
const built = existsSync(join(root, 'dist', 'cli', 'main.js')) && existsSync(join(root, 'tools', 'dist', 'components'));

if (!['typescript', 'tsx', 'esbuild', '@bytecodealliance/componentize-js'].every(installed)) {
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

const run = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
run([join(root, 'scripts', 'build-dashboard.js')]);
run(['--import', 'tsx', join(root, 'scripts', 'build-tools.ts')]);
run(['--import', 'tsx', join(root, 'scripts', 'build-tool-cache.ts')]);
