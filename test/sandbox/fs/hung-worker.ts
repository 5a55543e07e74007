// A sandbox worker stand-in for terminate.test.ts: opens descriptors inside a call, then hangs
// the way a guest that runs into its timeout does, so the parent must terminate it.
import { parentPort, workerData } from 'node:worker_threads';
import { callOn } from './harness.ts';

const { ws, count } = workerData as { ws: string; count: number };
const call = callOn(ws);
const root = call.dir();
for (let i = 0; i < count; i++) root.openAt({}, 'f.txt', {}, { read: true });
parentPort!.postMessage('holding');
for (;;) root.statAt({ symlinkFollow: true }, 'd/../d/../f.txt');
