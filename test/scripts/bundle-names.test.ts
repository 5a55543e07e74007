// The runtime bundle's names (scripts/bundle-options.js): boxbot's own code is bundled without
// esbuild's `keepNames` (its closures are not wrapped in a naming call), while each dependency's
// file keeps its names as before, even when the bundle renames a class that two packages define;
// and the bundle script refuses a bundle that renamed one of boxbot's error classes.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { dependencyNamesKept, renamedErrorClasses } from '../../scripts/bundle-options.js';

test("a dependency's class keeps its name when the bundle renames it; boxbot's code has no naming calls", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'boxbot-names-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const pkg of ['one', 'two']) {
    await mkdir(join(dir, 'node_modules', pkg), { recursive: true });
    await writeFile(join(dir, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, main: 'index.js' }));
    // A class that checks its own name at run time, as discord.js's Collection does.
    await writeFile(
      join(dir, 'node_modules', pkg, 'index.js'),
      'export class Thing { ok() { return this.constructor.name === "Thing"; } }\n',
    );
  }
  await writeFile(
    join(dir, 'entry.ts'),
    [
      "import { Thing as A } from 'one';",
      "import { Thing as B } from 'two';",
      'export const made = () => [new A(), new B()];',
      'export function hot(n: number) { const add = (x: number) => x + n; return add(1); }',
    ].join('\n'),
  );
  await build({
    absWorkingDir: dir,
    entryPoints: [join(dir, 'entry.ts')],
    outfile: join(dir, 'out.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    keepNames: false,
    plugins: [dependencyNamesKept],
    logLevel: 'error',
  });
  const code = await readFile(join(dir, 'out.mjs'), 'utf8');
  assert.match(code, /Thing2/, 'the bundle renamed one of the two classes');
  const out = (await import(pathToFileURL(join(dir, 'out.mjs')).href)) as {
    made: () => { ok(): boolean }[];
    hot: (n: number) => number;
  };
  assert.deepEqual(
    out.made().map((x) => x.ok()),
    [true, true],
    'both report the name their package gave them',
  );
  assert.equal(out.hot(2), 3);
  const own = code.slice(code.indexOf('// entry.ts'));
  assert.doesNotMatch(own, /__name/, "boxbot's own code is not wrapped in naming calls");
});

test("a bundle that renamed one of boxbot's error classes is named, one that kept them passes", () => {
  const root = join(import.meta.dirname, '..', '..');
  const all = renamedErrorClasses(root, '');
  assert.ok(all.includes('StoreError') && all.includes('ConfigError'), 'the classes are read from src/');
  const kept = all.map((n) => `var ${n}=class extends BoxbotError{}`).join(';');
  assert.deepEqual(renamedErrorClasses(root, kept), []);
  const renamed = kept.replace('var StoreError=class', 'var StoreError2=class');
  assert.deepEqual(renamedErrorClasses(root, renamed), ['StoreError']);
});
