// Where a job's worker code lives and how its thread is started: the compiled `worker.js` next
// to this module in production (dist/), or `worker.ts` through tsx's loader when boxbot runs
// from its TypeScript sources (tests, `tsx src/...`).
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The worker entry next to this module, in the same form (.js or .ts) this module runs as. */
export const WORKER_FILE = fileURLToPath(
  new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/** Starts a worker thread on `file`; a `.ts` file gets tsx's loader registered first. */
export function createJobWorker(file: string, options: WorkerOptions = {}): Worker {
  if (!file.endsWith('.ts')) return new Worker(file, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code =
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return ` +
    `import(${JSON.stringify(pathToFileURL(file).href)}); });`;
  return new Worker(code, { ...options, eval: true });
}
