// A job worker that starts its "agent" and never finishes, ignoring cancel (scheduler tests: it is
// terminated once the job's timeout and the grace period are over).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: unknown) => {
  if (typeof m === 'object' && m !== null) {
    parentPort!.postMessage({ type: 'started' });
    setInterval(() => undefined, 60_000);
  }
});
