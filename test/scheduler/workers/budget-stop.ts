// A job worker whose "agent" makes one model call and is then stopped by its budget, as the real
// worker reports it (scheduler tests of the notice naming the budget that was the limit).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: unknown) => {
  if (typeof m !== 'object' || m === null) return;
  parentPort!.postMessage({ type: 'started' });
  const usage = { inputTokens: 100, outputTokens: 10 };
  parentPort!.postMessage({ type: 'charge', charge: { model: 'openai/gpt-4o', usage, costUsd: 0.01 } });
  parentPort!.postMessage({ type: 'result', result: { outcome: 'budget-exceeded', text: '', usage, costUsd: 0.01 } });
  parentPort!.postMessage('done');
});
