import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { entryFile } from '../core/package-paths.ts';

/** The worker's entry file (src/, dist/ or the bundle: core/package-paths.ts). */
export const WORKER_FILE = entryFile('scheduler/worker');

/** Starts a worker thread on `file`; a `.ts` file gets tsx's loader registered first. */
export function createJobWorker(file: string, options: WorkerOptions = {}): Worker {
  if (!file.endsWith('.ts')) return new Worker(file, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code =
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return ` +
    `import(${JSON.stringify(pathToFileURL(file).href)}); });`;
  return new Worker(code, { ...options, eval: true });
}
