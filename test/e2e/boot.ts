// A whole boxbot (startBoxbot, as `npm start` runs it) on a temp data folder that outlives it,
// so a test can stop it mid-run and start a fresh process image on the same state; logs are
// captured. Compiled WASM tools are shared between runs through a content-addressed warm cache.
import {
  copyFileSync,
  type Dirent,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/core/log.ts';
import { type Boxbot, startBoxbot } from '../../src/main.ts';
import { compiledJobWorker, compiledParserChild, compiledSandboxWorker } from '../compiled-src.ts';
import { type LlmEmulator, startLlmEmulator } from '../emulators/llm/index.ts';
import { tempDir } from '../helpers.ts';

/** A boxbot that can be restarted on the same data folder. */
export interface RestartableBoxbot {
  /** The running instance (replaced by `restart`). */
  app: Boxbot;
  llm: LlmEmulator;
  dir: string;
  dataDir: string;
  /** Every log line of every instance so far, parsed (pino JSON). */
  logs: { level: number; msg: string; [k: string]: unknown }[];
  /** Stops the running instance (if any) and starts a new one on the same config and data. */
  restart(): Promise<void>;
  /** Stops the running instance only. */
  stop(): Promise<void>;
  /** Stops everything and removes the temp folder. */
  close(): Promise<void>;
}

// Compiled tool modules and tool specs are cached under names that carry their content hash
// and pipeline/parser version, written then renamed, never changed in place: hard links into a
// shared folder are as safe as the cache itself, and save ~30 s of compiling per fresh start.
const WARM_CACHE = join(tmpdir(), 'boxbot-e2e-warm-cache');

/**
 * Links every file of `from` missing in `to`; files before folders and meta.json last, so a reader never sees metadata
 * without its modules.
 */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  const entries = readdirSync(from, { withFileTypes: true }).filter(
    (e) => !e.name.includes('.tmp-') && !e.name.startsWith('.incoming-'),
  );
  const rank = (e: Dirent) => (e.isDirectory() ? 2 : e.name === 'meta.json' ? 1 : 0);
  for (const e of entries.sort((a, b) => rank(a) - rank(b))) {
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory()) linkTree(src, dst);
    else if (e.isFile() && !existsSync(dst)) {
      try {
        linkSync(src, dst);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') copyFileSync(src, dst);
      }
    }
  }
}

/** Fills `cacheDir` from the shared warm cache of compiled tools (before a start). */
export function warmToolCache(cacheDir: string): void {
  if (existsSync(WARM_CACHE)) linkTree(WARM_CACHE, cacheDir);
}

/** Adds what a start compiled into `cacheDir` to the shared warm cache (after a start). */
export function keepToolCache(cacheDir: string): void {
  if (existsSync(cacheDir)) linkTree(cacheDir, WARM_CACHE);
}

/** Starts boxbot with `config` (over a temp dataDir, port 0, an OpenAI model on a fresh LLM emulator) and `env`. */
export async function bootBoxbot(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<RestartableBoxbot> {
  const dir = tempDir('boxbot-e2e-'); // also removed at exit if a test never reaches close()
  const dataDir = join(dir, 'data');
  const cacheDir = join(dataDir, 'cache');
  warmToolCache(cacheDir);
  const llm = await startLlmEmulator();
  const file = join(dir, 'boxbot.config.json');
  writeFileSync(file, JSON.stringify({ dataDir, http: { port: 0 }, model: 'openai/gpt-4o-mini', ...config }));
  const logs: RestartableBoxbot['logs'] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger({ level: 'info', destination: sink });
  const start = () =>
    startBoxbot({
      configFile: file,
      env: { OPENAI_API_KEY: 'sk-test-e2e-0000000000', OPENAI_BASE_URL: llm.openaiBaseURL, ...env },
      log,
      workers: 1,
      sandboxWorkerFile: compiledSandboxWorker(),
      parserFile: compiledParserChild(),
      jobWorkerFile: compiledJobWorker(),
    });
  let running: Boxbot | undefined;
  try {
    running = await start();
  } catch (e) {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  keepToolCache(cacheDir);
  const h: RestartableBoxbot = {
    app: running,
    llm,
    dir,
    dataDir,
    logs,
    async stop() {
      const app = running;
      running = undefined;
      await app?.stop();
    },
    async restart() {
      await h.stop();
      running = await start();
      h.app = running;
    },
    async close() {
      await h.stop();
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}
