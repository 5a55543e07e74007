// The worker thread of one job run (Bree starts it): waits for the run request, runs the job,
// posts each model call's charge as it is made, then the result, then 'done' so Bree ends the
// thread. Bree's 'cancel' aborts the run.
import { parentPort } from 'node:worker_threads';
import { secretValues } from '../config/env.ts';
import { createLogger, registerSecrets } from '../log.ts';
import { runJob } from './run-job.ts';
import type { RunRequest, WorkerMessage } from './worker-protocol.ts';

const port = parentPort;
if (!port) throw new Error('src/scheduler/worker is a worker thread entry; the scheduler starts it');

const controller = new AbortController();
const post = (m: WorkerMessage | 'done') => port.postMessage(m);

port.on('message', (m: unknown) => {
  if (m === 'cancel') controller.abort(new Error('the run was cancelled'));
  else if (typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'run') void run(m as RunRequest);
});

async function run(req: RunRequest): Promise<void> {
  registerSecrets(secretValues(req.secrets));
  const log = createLogger({ level: req.logLevel, pretty: req.logPretty }).child({ scope: 'job', job: req.job.id });
  try {
    const result = await runJob(req, {
      signal: controller.signal,
      log,
      onStarted: () => post({ type: 'started' }),
      onCharge: (charge) => post({ type: 'charge', charge }),
      onWriting: (tainted) => post({ type: 'writing', tainted }),
    });
    post({ type: 'result', result });
  } finally {
    post('done');
  }
}
