// A job worker whose "agent" makes one model call as the real worker does: it asks the scheduler
// to reserve the call's estimate first, makes (and charges) the call only when that is granted,
// and gives the reservation back after the charge (scheduler tests of the shared ledger).
import { parentPort } from 'node:worker_threads';

const usage = { inputTokens: 100, outputTokens: 10 };
parentPort!.on('message', (m: unknown) => {
  if (typeof m !== 'object' || m === null) return;
  const msg = m as { type?: string; id?: number; ok?: boolean };
  if (msg.type === 'run') {
    parentPort!.postMessage({ type: 'started' });
    parentPort!.postMessage({ type: 'reserve', id: 1, estimateUsd: 0.02 });
    return;
  }
  if (msg.type !== 'reserved' || msg.id !== 1) return;
  if (msg.ok) {
    parentPort!.postMessage({ type: 'charge', charge: { model: 'openai/gpt-4o', usage, costUsd: 0.02 } });
    parentPort!.postMessage({ type: 'release', id: 1 });
    parentPort!.postMessage({ type: 'result', result: { outcome: 'final', text: 'done', usage, costUsd: 0.02 } });
  } else {
    const none = { inputTokens: 0, outputTokens: 0 };
    parentPort!.postMessage({
      type: 'result',
      result: { outcome: 'budget-exceeded', text: '', usage: none, costUsd: 0 },
    });
  }
  parentPort!.postMessage('done');
});
