// Recreates the bundled tools' names after an install from the packed tarball: npm pack leaves
// symlinks out, so tools/dist/<name>.wasm → components/<component>.wasm (made by
// scripts/build-tools.ts, which a tarball install does not run) must be linked again. Run as
// `postinstall`; plain JavaScript because tsx is a devDependency. Reads the same tool.json
// manifests as build-tools.ts and only links components that are there; never fails an install.
// Then, when the bundled tools' shared compile cache is missing (the tarball leaves it out: it
// is larger than the tools), builds it with the compiled code in dist/, so a fresh data dir
// starts without compiling; without it each data dir compiles on its first start instead.
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const toolsDir = fileURLToPath(new URL('../tools', import.meta.url));
const distDir = join(toolsDir, 'dist');
let linked = 0;
try {
  for (const d of existsSync(toolsDir) ? readdirSync(toolsDir, { withFileTypes: true }) : []) {
    if (!d.isDirectory() || !existsSync(join(distDir, 'components', `${d.name}.wasm`))) continue;
    const manifestPath = join(toolsDir, d.name, 'tool.json');
    const names = existsSync(manifestPath)
      ? (JSON.parse(readFileSync(manifestPath, 'utf8')).tools ?? [d.name])
      : [d.name];
    const target = join('components', `${d.name}.wasm`);
    for (const name of names) {
      const path = join(distDir, `${name}.wasm`);
      try {
        if (readlinkSync(path) === target) continue;
      } catch {
        // absent or not a link
      }
      rmSync(path, { force: true });
      symlinkSync(target, path);
      linked++;
    }
  }
  if (linked) console.log(`boxbot: linked ${linked} bundled tool names`);
} catch (e) {
  console.warn(`boxbot: could not link the bundled tools (${e.message}); boxbot tool list will show fewer tools`);
}

const cacheBuilder = fileURLToPath(new URL('../dist/agent/tools/bundled-cache.js', import.meta.url));
if (existsSync(cacheBuilder) && !existsSync(join(distDir, 'cache', 'specs'))) {
  try {
    const { buildBundledToolCache } = await import(cacheBuilder);
    const { failed } = await buildBundledToolCache();
    if (failed.length) console.warn(`boxbot: bundled tools not prepared: ${failed.join(', ')}; see the lines above`);
  } catch (e) {
    console.warn(
      `boxbot: could not prepare the bundled tools (${e.message}); each data dir compiles them at first start`,
    );
  }
}
