// The esbuild options of the runtime bundle (scripts/bundle.js builds dist/bundle with them), shared
// with the tests' bundle of the current sources (test/compiled-src.ts), so the CLI tests start the
// code as the package ships it. Plain JavaScript: `prepare` runs scripts/bundle.js without tsx.
import { join } from 'node:path';

/** The entries, by their module path under src/ (see entryFile in src/core/package-paths.ts). */
export const ENTRIES = ['cli/main', 'sandbox/worker', 'scheduler/worker', 'parsers/parser-child'];
/** Optional native add-ons some dependencies try to load (each has a pure-JavaScript fallback). */
const OPTIONAL_NATIVE = ['bufferutil', 'utf-8-validate', 'zlib-sync', 'pg-native', '@discordjs/voice'];

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
    keepNames: true,
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
