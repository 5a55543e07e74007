// Builds the tests' guest programs (test/guests/*.js and *.wat) into .cache/guests/.
// Run by `npm test` before the suite; cached by content hash.
import { readdir } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGuest } from './componentize.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const srcDir = join(root, 'test', 'guests');
const outDir = join(root, '.cache', 'guests');

const files = (await readdir(srcDir)).filter((f) => ['.js', '.wat'].includes(extname(f))).sort();
let built = 0;
for (const f of files) {
  const out = join(outDir, `${basename(f, extname(f))}.wasm`);
  const started = Date.now();
  const r = await buildGuest(join(srcDir, f), out);
  if (r.built) {
    built++;
    console.log(`built test guest ${f} (${Date.now() - started} ms)`);
  }
}
console.log(`test guests: ${files.length} (${built} rebuilt) in .cache/guests/`);
