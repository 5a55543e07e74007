// One long-lived process of a layer's pool (started by scripts/run-tests.ts): it asks its parent
// for a test file over IPC, imports it inside a suite named by the file, and so pays tsx's start
// once instead of once per file. In the unit layer it asks for the next file while this one runs
// (its files mostly wait on sockets and timers, and the next one's import fills that time); in the
// slow layer the parent sends the next file when this one has ended, so the CPU time the worker
// reads at a file's start and end is that file's alone. The file's suite makes its top-level
// before/after hooks its own (not the whole process's) and bounds the file's time. What the tests
// print is kept per file, for scripts/test-reporter.ts to put under the file.
import { after, before, describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type CapturedOutput, OUTPUT_KEY, type WorkerReport, workerCpuMicros } from './test-reporter.ts';

/** A file's suite running longer than this (ms, the first argument) fails, and the next file starts. */
const fileLimitMs = Number(process.argv[2]);
/** Ask for the next file while one runs (the second argument, `prefetch`), or wait for the parent. */
const prefetch = process.argv[3] === 'prefetch';

/** A file to run; when there are none left, the parent disconnects instead. */
type FromParent = { file: string };

const captured: CapturedOutput = { current: undefined, byFile: new Map(), cpuAt: new Map(), cpuEnd: new Map() };
(globalThis as Record<symbol, unknown>)[OUTPUT_KEY] = captured;
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const file = captured.current;
    if (file === undefined) return write(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    captured.byFile.set(file, (captured.byFile.get(file) ?? '') + text);
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof stream.write;
}

const send = (message: WorkerReport | { next: true }): void => {
  process.send?.(message);
};

process.on('message', ({ file }: FromParent) => {
  // Called from the IPC handler, outside any test, so the suite is at the top level.
  describe(file, { timeout: fileLimitMs }, async () => {
    // Without prefetching, nothing else runs here now: the file's import counts as its own.
    if (!prefetch) captured.cpuAt.set(file, workerCpuMicros());
    before(() => {
      captured.current = file;
      if (prefetch) captured.cpuAt.set(file, workerCpuMicros());
      send({ type: 'start', file }); // now, not through the reporter: the file may block the event loop
      if (prefetch) send({ next: true }); // the next file is imported while this one runs
    });
    await import(pathToFileURL(file).href);
    // Registered after the file's own top-level hooks, so it runs after them.
    after(() => {
      captured.cpuEnd.set(file, workerCpuMicros());
    });
  });
});

send({ next: true });
