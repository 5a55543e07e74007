#!/usr/bin/env node
// The `boxbot` command (started by bin/boxbot.cjs, which sizes libuv's thread pool first). Runs
// the compiled CLI (built by `npm install` in a checkout; shipped built in the packed tarball).
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
  process.stderr.write('boxbot: not built (no dist/): run `npm ci` in the checkout, or install the packed tarball\n');
  process.exit(1);
}
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
