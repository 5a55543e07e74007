// Bundles the runtime (src/, through esbuild's own TypeScript transform: no tsc emit needed first)
// with its pure-JavaScript dependencies into dist/bundle, the code bin/boxbot.js runs in a checkout
// and in the packed tarball alike. Each file that starts a
// thread or a process is its own entry, named as src/core/package-paths.ts expects
// (`sandbox/worker` → dist/bundle/sandbox-worker.js); code they share is split into chunks there,
// and the CLI's commands stay lazily loaded. Left out, and so kept as real dependencies of the
// package (package.json `dependencies`): what reads its own folder at run time or is native
// (oxc-minify, preview2-shim: both imported by the jco-transpile copy in dist/vendor; markdown-it:
// its browser build is served to the web chat). The optional SDKs (Bedrock, Vertex, Gemini) are
// imported by a variable name, so they are never bundled: each is loaded from node_modules when a
// user has installed it. Two dependencies start a worker from a file beside their own code, which a
// bundle does not have: pino's transports and discord.js's worker sharding; boxbot uses neither.
// Plain JavaScript: `prepare` runs it (esbuild is a dev dependency).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions, renamedErrorClasses } from './bundle-options.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'bundle');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const started = Date.now();
rmSync(out, { recursive: true, force: true });
const result = await build(bundleOptions(root, out, pkg));
// What the bundle holds and leaves out, for test/package/install.test.ts (dist/ outside the bundle
// is not packed): the packages inlined, and every import left to be resolved at run time.
const packageOf = (path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
const inlined = new Set(Object.keys(result.metafile.inputs).map(packageOf).filter(Boolean));
const externals = new Set();
for (const o of Object.values(result.metafile.outputs))
  for (const i of o.imports) if (i.external) externals.add(i.path);
writeFileSync(
  join(root, 'dist', 'bundle-contents.json'),
  `${JSON.stringify({ inlined: [...inlined].sort(), externals: [...externals].sort() }, null, 2)}\n`,
);
const code = Object.keys(result.metafile.outputs)
  .filter((f) => f.endsWith('.js'))
  .map((f) => readFileSync(join(root, f), 'utf8'))
  .join('\n');
const renamed = renamedErrorClasses(root, code);
if (renamed.length) {
  console.error(
    `boxbot: the bundle renamed error classes ${renamed.join(', ')} (a name used twice): ` +
      'their errors would report the new name; rename one of them in src/',
  );
  process.exit(1);
}
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
const files = Object.keys(result.metafile.outputs).length;
console.log(
  `boxbot: runtime bundled into dist/bundle (${files} files, ${(bytes / 2 ** 20).toFixed(1)} MiB) ` +
    `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
