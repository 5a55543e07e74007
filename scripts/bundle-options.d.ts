// Types of scripts/bundle-options.js, for the tests that build a bundle with its options.
import type { BuildOptions } from 'esbuild';

/** The entries, by their module path under src/. */
export declare const ENTRIES: string[];
/** The options that bundle `root`/src into `outdir`, given the package's package.json `pkg`. */
export declare function bundleOptions(
  root: string,
  outdir: string,
  pkg: { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> },
): BuildOptions & { metafile: true };
/** The plugin that compiles each dependency's file with `keepNames` (boxbot's sources go without). */
export declare const dependencyNamesKept: import('esbuild').Plugin;
/** boxbot's error classes (read from `root`/src) that the bundle code `text` renamed. */
export declare function renamedErrorClasses(root: string, text: string): string[];
