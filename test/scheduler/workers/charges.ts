// A job worker that answers at once with two model calls charged, each posted as the real worker
// posts them (scheduler tests of how a run's spending is recorded, without a model or a sandbox).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: unknown) => {
  if (typeof m !== 'object' || m === null) return;
  parentPort!.postMessage({ type: 'started' });
  const usage = { inputTokens: 100, outputTokens: 10 };
  parentPort!.postMessage({ type: 'charge', charge: { model: 'openai/gpt-4o', usage, costUsd: 0.02 } });
  parentPort!.postMessage({ type: 'charge', charge: { model: 'openai/gpt-4o-mini', usage, costUsd: 0.01 } });
  parentPort!.postMessage({
    type: 'result',
    result: { outcome: 'final', text: 'done', usage: { inputTokens: 200, outputTokens: 20 }, costUsd: 0.03 },
  });
  parentPort!.postMessage('done');
});
