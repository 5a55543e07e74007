// Builds the bundled tools' shared compile and spec cache (tools/dist/cache) in a checkout: run
// by the install step (scripts/prepare.js) after scripts/build-tools.ts, and by `npm run build:tools`.
import { buildBundledToolCache } from '../src/agent/tools/bundled-cache.ts';

await buildBundledToolCache();
