#!/usr/bin/env node
// The `boxbot` command (started by bin/boxbot.cjs, which sizes libuv's thread pool first). Runs
// the bundled CLI, dist/bundle (scripts/bundle.js): built by `npm install` in a checkout, shipped
// built in the packed tarball, so both run the same code.
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/bundle/cli-main.js', import.meta.url))) {
  process.stderr.write(
    'boxbot: not built (no dist/bundle/): run `npm ci` in the checkout, or install the packed tarball\n',
  );
  process.exit(1);
}
const { main } = await import('../dist/bundle/cli-main.js');
process.exitCode = await main(process.argv.slice(2));
