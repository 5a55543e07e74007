// Shared test helpers: paths of the built test guests and a minimal grant.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_LIMITS, type SandboxGrant } from '../src/sandbox/index.ts';
import { compiledBundle, compiledSrc } from './compiled-src.ts';
import { hashTree } from './hash-tree.ts';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The built guest `name` (from test/guests/<name>.js|.wat, built by `npm test`). */
export function guest(name: string): string {
  const path = join(root, '.cache', 'guests', `${name}.wasm`);
  if (!existsSync(path)) throw new Error(`test guest ${name} is not built: run npx tsx scripts/build-guests.ts`);
  return path;
}

/** A grant with nothing in it but what `over` adds. */
export function grant(over: Partial<SandboxGrant> = {}): SandboxGrant {
  return {
    args: [],
    env: {},
    mounts: [],
    network: { allow: [], block: ['private'] },
    limits: { ...DEFAULT_LIMITS, timeoutMs: 20_000 },
    ...over,
  };
}

const madeDirs: string[] = [];

/** A fresh temporary directory, removed when the test file's process exits. */
export function tempDir(prefix = 'boxbot-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (madeDirs.push(dir) === 1) {
    process.once('exit', () => {
      for (const d of madeDirs) {
        try {
          rmSync(d, { recursive: true, force: true });
        } catch {
          // best effort: a leftover temp folder is not a test failure
        }
      }
    });
  }
  return dir;
}

/**
 * The module a `boxbot` command runs (`main(argv)`) unbundled: src/cli/main.ts compiled to JavaScript
 * (test/compiled-src.ts), each source file and package its own module, for the tests that look at
 * which packages a command loads (a bundle has them inlined).
 */
export function cliMain(): string {
  return join(compiledSrc(), 'cli', 'main.js');
}

const argvFor = (main: string, args: string[]): string[] => [
  '-e',
  `import(${JSON.stringify(pathToFileURL(main).href)}).then(async (m) => ` +
    `{ process.exitCode = await m.main(process.argv.slice(1)); })`,
  '--',
  ...args,
];

/**
 * Node arguments that run the `boxbot` command with `args` as bin/boxbot.js runs it: from the bundle
 * (test/compiled-src.ts compiledBundle: the current sources bundled as the package ships them), so
 * CLI tests need no build and a child process loads a few files rather than every module of src/.
 */
export function boxbotArgv(args: string[]): string[] {
  return argvFor(join(compiledBundle(), 'cli-main.js'), args);
}

/** Node arguments that run the `boxbot` command with `args` from the unbundled modules (cliMain). */
export function boxbotModulesArgv(args: string[]): string[] {
  return argvFor(cliMain(), args);
}

/** A short hash of the sources that build tool specs and compiled tools (a change there starts a fresh cache). */
function specSourcesHash(): string {
  const hash = createHash('sha256');
  const dir = join(root, 'src', 'agent', 'tools');
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  hash.update(readFileSync(join(root, 'src', 'sandbox', 'compile.ts')));
  return hash.digest('hex').slice(0, 12);
}

/**
 * The cache every test shares (compiled tools in `sandbox/`, tool snapshots and specs in `tools/`):
 * both are keyed by content hash (specs also by tool name and parser version) and written
 * atomically, so test files and runs reuse them instead of compiling every bundled tool and
 * running its --help through the sandbox again. Its name carries a hash of the code that builds
 * them, so editing the help parser never leaves a test reading specs the old parser built.
 */
export const SHARED_CACHE = join(root, '.cache', `test-data-cache-${specSourcesHash()}`);

let compileCache: string | undefined;

/**
 * A sandbox compile cache (`cacheDir`) the test files share, within a run and across runs, so each
 * test guest is compiled once rather than once per file (a JavaScript guest costs seconds of CPU).
 * Entries are keyed by the guest's content, and the folder's name by a hash of src/sandbox/ and the
 * lock file (the compiler and jco): editing the pipeline starts a fresh one, never a stale hit.
 * Files that test the cache itself make their own.
 */
export function sharedCompileCache(): string {
  if (compileCache) return compileCache;
  const hash = createHash('sha256');
  hashTree(hash, join(root, 'src', 'sandbox'), root);
  hash.update(readFileSync(join(root, 'package-lock.json')));
  compileCache = join(root, '.cache', `test-compile-cache-${hash.digest('hex').slice(0, 12)}`);
  return compileCache;
}

/** Makes `<dataDir>/cache` (boxbot's cache folder) a link to the shared test cache; returns `dataDir`. */
export function shareCache(dataDir: string): string {
  mkdirSync(SHARED_CACHE, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  symlinkSync(SHARED_CACHE, join(dataDir, 'cache'));
  return dataDir;
}

/** Decodes bytes as UTF-8. */
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);

/**
 * Polls until `cond()` holds (sync or async); fails naming `what` after `ms`. No timing assertion: the limit only stops
 * a hang.
 */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/**
 * Reads a Server-Sent Events body in the background: `onData` gets each event's parsed `data:`
 * JSON, `onComment` each comment block (`: connected`). Ends quietly when the stream is aborted.
 */
export function readEventStream(
  body: ReadableStream<Uint8Array>,
  onData: (data: unknown) => void,
  onComment: (comment: string) => void = () => {},
): void {
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          if (block.startsWith(':')) onComment(block.slice(1).trim());
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) onData(JSON.parse(data.slice(6)));
        }
      }
    } catch {
      // aborted at close
    }
  })();
}
