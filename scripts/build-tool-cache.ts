// Builds the bundled tools' shared compile and spec cache (tools/dist/cache) in a checkout: run
// by the install step (scripts/prepare.js) after scripts/build-tools.ts, and by `npm run build:tools`.
import { buildBundledToolCache } from '../src/agent/tools/bundled-cache.ts';

const { failed } = await buildBundledToolCache();
// In a checkout a tool that cannot be prepared is a broken build (a stale tools/dist): say so and fail.
if (failed.length) {
  process.stderr.write(
    `boxbot: bundled tools that could not be prepared: ${failed.join(', ')} (rebuild: npm run build:tools)\n`,
  );
  process.exitCode = 1;
}
