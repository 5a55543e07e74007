// The worker thread of one job run (Bree starts it): waits for the run request, runs the job,
// posts each model call's charge as it is made, then the result, then 'done' so Bree ends the
// thread. Before each model call it asks the scheduler to reserve the call's estimated cost.
// Bree's 'cancel' aborts the run.
import { parentPort } from 'node:worker_threads';
import type { Reservation } from '../agent/index.ts';
import { secretValues } from '../config/env.ts';
import { createLogger, registerSecrets } from '../core/log.ts';
import { runJob } from './run-job.ts';
import type { ReservedMessage, RunRequest, WorkerMessage } from './worker-protocol.ts';

const port = parentPort;
if (!port) throw new Error('src/scheduler/worker is a worker thread entry; the scheduler starts it');

const controller = new AbortController();
const post = (m: WorkerMessage | 'done') => port.postMessage(m);

// Reservations asked of the scheduler, by id, until it answers.
const asked = new Map<number, (ok: boolean) => void>();
let lastId = 0;

port.on('message', (m: unknown) => {
  if (m === 'cancel') controller.abort(new Error('the run was cancelled'));
  else if (typeof m !== 'object' || m === null) return;
  else if ((m as { type?: unknown }).type === 'run') void run(m as RunRequest);
  else if ((m as { type?: unknown }).type === 'reserved') {
    const r = m as ReservedMessage;
    asked.get(r.id)?.(r.ok === true);
    asked.delete(r.id);
  }
});

/** Holds a model call's estimated cost in the scheduler's ledger; undefined when a daily budget is taken up. */
function reserve(estimateUsd: number): Promise<Reservation | undefined> {
  const id = ++lastId;
  return new Promise((resolve) => {
    asked.set(id, (ok) => resolve(ok ? { release: () => post({ type: 'release', id }) } : undefined));
    post({ type: 'reserve', id, estimateUsd });
  });
}

async function run(req: RunRequest): Promise<void> {
  registerSecrets(secretValues(req.secrets));
  const log = createLogger({ level: req.logLevel, pretty: req.logPretty }).child({ scope: 'job', job: req.job.id });
  try {
    const result = await runJob(req, {
      signal: controller.signal,
      log,
      onStarted: () => post({ type: 'started' }),
      onCharge: (charge) => post({ type: 'charge', charge }),
      reserve,
      onWriting: (tainted) => post({ type: 'writing', tainted }),
    });
    post({ type: 'result', result });
  } finally {
    post('done');
  }
}
