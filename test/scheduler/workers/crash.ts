// A job worker that crashes on its run request (scheduler tests: a crash posts a notice).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: unknown) => {
  if (typeof m === 'object' && m !== null) throw new Error('boom: the worker fell over');
});
