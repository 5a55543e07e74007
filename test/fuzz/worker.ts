// The worker side of isolate.ts: runs one target and posts its report; before each input it
// bumps the shared case counter and writes the input's text where the watchdog can read it.
import { workerData as data, parentPort } from 'node:worker_threads';
import type { FuzzTarget } from './harness.ts';
import { runTarget, showInput } from './harness.ts';
import type { WorkerTask } from './isolate.ts';

const task = data as WorkerTask;
const counter = new Int32Array(task.shared, 0, 2);
const bytes = new Uint8Array(task.shared, 8);
const encoder = new TextEncoder();

const { targetNamed } = (await import(task.module)) as { targetNamed(name: string): FuzzTarget<never> };
const report = await runTarget(targetNamed(task.target), {
  ...task.opts,
  onCase(input) {
    const { written } = encoder.encodeInto(showInput(input, Infinity), bytes);
    Atomics.store(counter, 1, written);
    Atomics.add(counter, 0, 1);
  },
});
parentPort!.postMessage(report);
