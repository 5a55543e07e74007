// Copies the run-time part of jco-transpile (its JavaScript, the two WebAssembly components it runs,
// its package.json and licence) into dist/vendor/jco-transpile, as the dashboard's bundle carries
// Preact. jco-transpile is then a devDependency: installed as a dependency it pulls in binaryen
// (93 MB), which it only runs for its `optimize` and asm.js options, which boxbot never passes
// (src/sandbox/compile.ts). The copy's own imports (oxc-minify, @bytecodealliance/preview2-shim)
// are boxbot's dependencies. src/sandbox/jco.ts loads the package when it is installed (a
// checkout, the tests) and this copy otherwise (an install from the packed tarball).
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const from = join(root, 'node_modules', '@bytecodealliance', 'jco-transpile');
const to = join(root, 'dist', 'vendor', 'jco-transpile');
if (!existsSync(join(from, 'package.json'))) {
  console.error('boxbot: @bytecodealliance/jco-transpile is not installed: run `npm ci` (with the dev dependencies)');
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
for (const f of ['package.json', 'LICENSE']) cpSync(join(from, f), join(to, f));
// Source maps and type declarations are not needed to run it.
const keep = (name) => !name.endsWith('.map') && !name.endsWith('.d.ts');
for (const dir of ['dist', 'vendor'])
  cpSync(join(from, dir), join(to, dir), { recursive: true, filter: (src) => keep(src) });
const files = readdirSync(to, { recursive: true }).length;
console.log(`boxbot: jco-transpile copied into dist/vendor/jco-transpile (${files} files)`);
