// The esbuild options of the runtime bundle (scripts/bundle.js builds dist/bundle with them), shared
// with the tests' bundle of the current sources (test/compiled-src.ts), so the CLI tests start the
// code as the package ships it. Plain JavaScript: `prepare` runs scripts/bundle.js without tsx.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The entries, by their module path under src/ (see entryFile in src/core/package-paths.ts). */
export const ENTRIES = ['cli/main', 'sandbox/worker', 'scheduler/worker', 'parsers/parser-child'];
/** Optional native add-ons some dependencies try to load (each has a pure-JavaScript fallback). */
const OPTIONAL_NATIVE = ['bufferutil', 'utf-8-validate', 'zlib-sync', 'pg-native', '@discordjs/voice'];

/**
 * Compiles each dependency's file with `keepNames` before it is bundled, so a function or class
 * the bundle renames (two `APIError`s become `APIError2`) still reports its own name, as with
 * `keepNames` on the whole bundle; boxbot's own sources are left without it.
 */
export const dependencyNamesKept = {
  name: 'dependency-names-kept',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const { code } = await build.esbuild.transform(source, {
        loader: 'js',
        keepNames: true,
        target: 'node20',
        sourcefile: args.path,
      });
      return { contents: code, loader: 'js' };
    });
  },
};

/** The options that bundle `root`/src into `outdir`, given the package's package.json `pkg`. */
export function bundleOptions(root, outdir, pkg) {
  return {
    absWorkingDir: root,
    entryPoints: Object.fromEntries(ENTRIES.map((e) => [e.replaceAll('/', '-'), join(root, 'src', `${e}.ts`)])),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // boxbot's own functions keep their names without help (esbuild does not minify identifiers),
    // and `keepNames` would wrap every closure made on the hot path in a call that defines its name
    // (measured: 6-11% of the gateway's CPU per message). Dependencies get it file by file instead,
    // as they had it: some compare class names at run time (discord.js's Collection).
    keepNames: false,
    plugins: [dependencyNamesKept],
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'eof',
    metafile: true,
    logLevel: 'warning',
    external: [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
      ...OPTIONAL_NATIVE,
      'tsx',
    ],
    // CommonJS dependencies inlined into ES modules still call require() for Node's built-ins and
    // read __dirname/__filename: give each output file its own.
    banner: {
      js: [
        "import { createRequire as __boxbotRequire } from 'node:module';",
        "import { fileURLToPath as __boxbotPath } from 'node:url';",
        "import { dirname as __boxbotDir } from 'node:path';",
        'const require = __boxbotRequire(import.meta.url);',
        'const __filename = __boxbotPath(import.meta.url);',
        'const __dirname = __boxbotDir(__filename);',
      ].join(' '),
    },
  };
}

/**
 * boxbot's error classes the bundle renamed (a name taken twice: `StoreError2`): an error's name is
 * its class's (BoxbotError sets it from `new.target.name`), and without `keepNames` a renamed class
 * reports the new name. Read from src/ (`class X extends …Error`) and the bundle's code `text`.
 */
export function renamedErrorClasses(root, text) {
  const names = new Set();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts'))
        for (const m of readFileSync(path, 'utf8').matchAll(/\bclass (\w+) extends \w*Error\b/g)) names.add(m[1]);
    }
  };
  walk(join(root, 'src'));
  // Declared as written (`class X …`) or as esbuild writes a module's class (`var X = class …`).
  return [...names].filter((n) => !new RegExp(`\\bclass ${n}[ {]|\\b${n} ?= ?class\\b`).test(text)).sort();
}
