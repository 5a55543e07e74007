// Where jco-transpile comes from: the installed package in a checkout (a devDependency), else the
// copy `npm run build` puts in dist/vendor/jco-transpile (scripts/build-vendor.js), which an
// install from the packed tarball runs on. The copy leaves out binaryen (93 MB), which jco-transpile
// runs only for options boxbot never passes.
import { pathToFileURL } from 'node:url';
import { packagePath } from '../core/package-paths.ts';

type Transpile = typeof import('@bytecodealliance/jco-transpile');
type WasmTools = typeof import('@bytecodealliance/jco-transpile/wasm-tools');

const notInstalled = (e: unknown) =>
  (e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
  String((e as Error).message).includes("'@bytecodealliance/jco-transpile");

async function load<T>(specifier: string, file: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (e) {
    if (!notInstalled(e)) throw e;
    return (await import(pathToFileURL(packagePath('dist', 'vendor', 'jco-transpile', 'dist', file)).href)) as T;
  }
}

/** jco-transpile's transpiler (`transpileBytes`). */
export const loadTranspile = (): Promise<Transpile> => load<Transpile>('@bytecodealliance/jco-transpile', 'index.js');

/** jco-transpile's wasm-tools (`componentNew`). */
export const loadWasmTools = (): Promise<WasmTools> =>
  load<WasmTools>('@bytecodealliance/jco-transpile/wasm-tools', 'wasm-tools.js');
