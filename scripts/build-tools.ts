// Builds the bundled tools (tools/<name>/main.js) into WASI components at tools/dist/<name>.wasm.
// Run by `npm install` (the `prepare` script); unchanged sources are not rebuilt.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGuest } from './componentize.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const toolsDir = join(root, 'tools');
const names = existsSync(toolsDir)
  ? readdirSync(toolsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'dist' && existsSync(join(toolsDir, d.name, 'main.js')))
      .map((d) => d.name)
      .sort()
  : [];
let built = 0;
for (const name of names) {
  const started = Date.now();
  const r = await buildGuest(join(toolsDir, name, 'main.js'), join(toolsDir, 'dist', `${name}.wasm`));
  if (r.built) {
    built++;
    console.log(`built tool ${name} (${Date.now() - started} ms)`);
  }
}
console.log(names.length ? `bundled tools: ${names.join(', ')} (${built} rebuilt)` : 'bundled tools: none yet');
