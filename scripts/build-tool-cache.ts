// Builds the bundled tools' shared compile and spec cache (tools/dist/cache) in a checkout: run by
// `npm run build:tools` after scripts/build-tools.ts. The install (scripts/prepare.js) leaves it out:
// each data dir then compiles the bundled tools at its first start.
import { buildBundledToolCache } from '../src/agent/tools/bundled-cache.ts';

const { failed } = await buildBundledToolCache();
// In a checkout a tool that cannot be prepared is a broken build (a stale tools/dist): say so and fail.
if (failed.length) {
  process.stderr.write(
    `boxbot: bundled tools that could not be prepared: ${failed.join(', ')} (rebuild: npm run build:tools)\n`,
  );
  process.exitCode = 1;
}
