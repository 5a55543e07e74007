// The node:test reporter of the unit layer's pool workers (scripts/test-worker.ts). Each test file
// runs as a top-level suite named by its path; when one ends, this sends the parent
// (scripts/run-tests.ts) a `file` report over IPC: whether it passed, its duration, its test counts
// and its results rendered like Node's spec reporter, with what its tests printed, so the parent
// prints each file's block whole. It writes nothing to its own destination.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';

/** What the worker captured of stdout and stderr, per file, under `globalThis[OUTPUT_KEY]`. */
export interface CapturedOutput {
  current: string | undefined;
  byFile: Map<string, string>;
  /** The worker's CPU time (µs, workerCpuMicros) when each file started. */
  cpuAt: Map<string, number>;
  /**
   * The same when each file's tests and hooks ended: read then, since this reporter reads its
   * events later, while the next file already runs (its CPU would count twice).
   */
  cpuEnd: Map<string, number>;
}
export const OUTPUT_KEY = Symbol.for('boxbot.test-output');

/**
 * CPU time (user + system, µs) of this process (all its threads, worker threads included) and of
 * the child processes it has reaped, from Linux's /proc in ticks of 10 ms; elsewhere the process's
 * own (process.cpuUsage). Read when a file starts and when it ends, the difference is the file's:
 * the children it started and waited for count, the next file's import (made while this one runs)
 * counts too, and a child reaped only after its file ended counts for the file running then.
 */
export function workerCpuMicros(): number {
  try {
    // After the name, the state is field 3: utime, stime, cutime and cstime (14 to 17) are at 11 to 14.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i]), 0);
    if (Number.isFinite(ticks)) return ticks * 10_000;
  } catch {
    // not Linux
  }
  const cpu = process.cpuUsage();
  return cpu.user + cpu.system;
}

/** One report of a worker to its parent: a file started (sent by the worker) or ended (by this). */
export type WorkerReport =
  | { type: 'start'; file: string }
  | {
      type: 'file';
      file: string;
      ok: boolean;
      ms: number;
      /** The worker's CPU time in the file (ms), with its reaped children's (workerCpuMicros). */
      cpuMs: number | undefined;
      tests: number;
      failed: number;
      text: string;
    };

interface TestEvent {
  type: string;
  data: {
    name?: string;
    nesting: number;
    message?: string;
    skip?: string | boolean;
    todo?: string | boolean;
    details?: { duration_ms?: number; type?: string; error?: Error & { cause?: unknown; failureType?: string } };
  };
}

const indent = (text: string, by: string): string => text.replace(/^(?=.)/gm, by);

function describeError(error: (Error & { cause?: unknown }) | undefined): string {
  if (!error) return '';
  const shown = error.cause ?? error;
  return typeof shown === 'string' ? `'${shown}'` : inspect(shown, { depth: 4 });
}

export default async function* report(source: AsyncIterable<TestEvent>): AsyncGenerator<string, void> {
  let file: { name: string; lines: string[]; tests: number; failed: number } | undefined;
  const open: { name: string; nesting: number; shown: boolean }[] = [];
  for await (const { type, data } of source) {
    if (data.nesting === 0) {
      if (type === 'test:dequeue' && data.name) {
        file = { name: data.name, lines: [], tests: 0, failed: 0 };
      } else if ((type === 'test:pass' || type === 'test:fail') && file && data.name === file.name) {
        if (type === 'test:fail') file.lines.push(indent(describeError(data.details?.error), '  '));
        const captured = (globalThis as Record<symbol, CapturedOutput | undefined>)[OUTPUT_KEY];
        const output = captured?.byFile.get(file.name);
        captured?.byFile.delete(file.name);
        const cpuAt = captured?.cpuAt.get(file.name);
        captured?.cpuAt.delete(file.name);
        const cpuNow = captured?.cpuEnd.get(file.name) ?? workerCpuMicros();
        captured?.cpuEnd.delete(file.name);
        if (output) file.lines.push('  output:', indent(output.trimEnd(), '    '));
        const line: WorkerReport = {
          type: 'file',
          file: file.name,
          ok: type === 'test:pass',
          ms: Math.round(data.details?.duration_ms ?? 0),
          cpuMs: cpuAt === undefined ? undefined : Math.round((cpuNow - cpuAt) / 1000),
          tests: file.tests,
          failed: file.failed,
          text: file.lines.join('\n'),
        };
        process.send?.(line);
        file = undefined;
      }
      continue;
    }
    if (!file) continue;
    const pad = '  '.repeat(data.nesting - 1);
    if (type === 'test:start') {
      open.push({ name: data.name ?? '', nesting: data.nesting, shown: false });
    } else if (type === 'test:diagnostic') {
      file.lines.push(`${pad}ℹ ${data.message ?? ''}`);
    } else if (type === 'test:pass' || type === 'test:fail') {
      // A suite's result comes after its tests': show its name above them, as Node's spec does.
      for (const o of open) {
        if (o.nesting < data.nesting && !o.shown) {
          file.lines.push(`${'  '.repeat(o.nesting - 1)}▶ ${o.name}`);
          o.shown = true;
        }
      }
      const at = open.findLastIndex((o) => o.nesting === data.nesting);
      if (at >= 0) open.splice(at);
      const suite = data.details?.type === 'suite';
      const ms = `(${(data.details?.duration_ms ?? 0).toFixed(1)} ms)`;
      const mark = type === 'test:fail' ? '✖' : data.skip || data.todo ? '﹣' : '✔';
      const note = data.skip ? ' # SKIP' : data.todo ? ' # TODO' : '';
      file.lines.push(`${pad}${mark} ${data.name}${note} ${ms}`);
      if (type === 'test:fail') file.lines.push(indent(describeError(data.details?.error), `${pad}  `));
      if (!suite) {
        file.tests++;
        if (type === 'test:fail') file.failed++;
      }
    }
  }
}
