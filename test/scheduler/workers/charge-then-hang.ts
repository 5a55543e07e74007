// A job worker whose "agent" makes one model call (charged, and posted as the real worker posts
// it), then never finishes, ignoring cancel (scheduler tests: the money spent before it was
// terminated is still charged).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (m: unknown) => {
  if (typeof m !== 'object' || m === null) return;
  parentPort!.postMessage({ type: 'started' });
  const usage = { inputTokens: 100, outputTokens: 10 };
  parentPort!.postMessage({ type: 'charge', charge: { model: 'openai/gpt-4o', usage, costUsd: 0.02 } });
  setInterval(() => undefined, 60_000);
});
