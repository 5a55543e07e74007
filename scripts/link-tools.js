// Recreates the bundled tools' names after an install from the packed tarball: npm pack leaves
// symlinks out, so tools/dist/<name>.wasm → components/<component>.wasm (made by
// scripts/build-tools.ts, which a tarball install does not run) must be linked again. Run as
// `postinstall`; plain JavaScript because tsx is a devDependency. Reads the same tool.json
// manifests as build-tools.ts and only links components that are there; never fails an install.
// The bundled tools' compile cache is not built here: it is larger than the tools (78 MB), so an
// install (from the tarball or in a checkout) leaves it out and each data dir compiles the tools at
// its first start (into <dataDir>/cache, saying so once). `npm run build:tools` builds a shared one
// in a checkout.
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
