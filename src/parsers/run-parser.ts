// Runs a parser of untrusted bytes (parser-child.ts) in a child process, never in the gateway's
// heap: a crafted file can make a parser build a string larger than V8 allows, and V8 then aborts
// the whole process (a worker thread would take the gateway down with it). The child starts with
// an empty environment, gets the bytes on stdin and is held to caps: V8's heap and the process's
// resident memory, CPU time, wall time, and the bytes it may print. On an overrun it is killed
// and the outcome names the cap, so the caller can tell the user why the file was not read.
// Resident memory and CPU time are watched through /proc (Linux); elsewhere the heap cap and the
// wall time still hold. At most `maxParallel` children run at once; others wait their turn.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { entryFile } from '../core/package-paths.ts';
import type { ParserName } from './parser-child.ts';

export type { ParserName };

/** What one parse may use. */
export interface ParseLimits {
  /** V8's heap, and how far the child's resident memory may grow once its code is loaded, in MB. */
  memoryMb: number;
  /** CPU time once its code is loaded, in ms. */
  cpuMs: number;
  /** Wall time, in ms (from spawn to the last byte). */
  timeoutMs: number;
  /** Bytes the child may print (its one JSON line). */
  maxOutputBytes: number;
}

/** The caps when config says nothing (media.extract). */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  memoryMb: 256,
  cpuMs: 20_000,
  timeoutMs: 30_000,
  maxOutputBytes: 1024 * 1024,
};

/** Which cap a killed child passed; `crash`: it died on its own; `cancelled`: the caller's signal. */
export type ParseFailure = 'memory' | 'cpu' | 'time' | 'output' | 'crash' | 'cancelled' | 'error';

/** A parse's outcome: the parser's value, or why there is none (`why` is one line for a user). */
export type ParseOutcome = { ok: true; value: unknown } | { ok: false; failure: ParseFailure; why: string };

/** The child's entry file (src/, dist/ or the bundle: core/package-paths.ts). */
export const PARSER_CHILD_FILE = entryFile('parsers/parser-child');

/** How often resident memory and CPU time are read. */
const WATCH_MS = 50;
/** Enough of the child's stderr to recognise V8's fatal memory errors. */
const MAX_STDERR = 16 * 1024;

let running = 0;
const waiting: (() => void)[] = [];

/**
 * Parses `bytes` with `parser` in a fresh child process under `limits`. `parserFile` (tests: the
 * compiled copy of src/) replaces the child's entry file, so a child started from src/ skips tsx.
 * Example: const r = await runParser('pdf-text', bytes, 20_000, DEFAULT_PARSE_LIMITS);
 */
export async function runParser(
  parser: ParserName,
  bytes: Uint8Array,
  maxChars: number,
  limits: ParseLimits,
  o: { signal?: AbortSignal; maxParallel?: number; parserFile?: string } = {},
): Promise<ParseOutcome> {
  const maxParallel = o.maxParallel ?? 2;
  while (running >= maxParallel) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await parseOnce(parser, bytes, maxChars, limits, o.parserFile ?? PARSER_CHILD_FILE, o.signal);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function parseOnce(
  parser: ParserName,
  bytes: Uint8Array,
  maxChars: number,
  limits: ParseLimits,
  parserFile: string,
  signal?: AbortSignal,
): Promise<ParseOutcome> {
  if (signal?.aborted) return Promise.resolve({ ok: false, failure: 'cancelled', why: 'reading it was cancelled' });
  const loader = parserFile.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${limits.memoryMb}`,
      '--disallow-code-generation-from-strings',
      ...loader,
      parserFile,
      parser,
      String(maxChars),
    ],
    { env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] },
  );
  return new Promise((done) => {
    let settled = false;
    const resolve = (r: ParseOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (watch) clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      done(r);
    };
    let killedFor: ParseFailure | undefined;
    const kill = (why: ParseFailure) => {
      killedFor ??= why;
      child.kill('SIGKILL');
    };
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > limits.maxOutputBytes) kill('output');
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < MAX_STDERR) err += b.toString('utf8').slice(0, MAX_STDERR - err.length);
    });
    child.stdin.on('error', () => undefined); // a child that died before reading everything
    child.stdin.end(bytes);
    const timer = setTimeout(() => kill('time'), limits.timeoutMs);
    // Memory and CPU time are counted from `ready` (the reader loaded, no input read yet): what
    // the runtime and the parser's own code take to start is not the document's doing.
    let watch: NodeJS.Timeout | undefined;
    const ready = child.stdio[3] as Readable;
    ready.once('data', () => {
      if (child.pid === undefined) return;
      const pid = child.pid;
      void usageOf(pid).then((base) => {
        if (!base || killedFor || child.exitCode !== null || child.signalCode !== null) return;
        watch = setInterval(() => {
          void usageOf(pid).then((now) => {
            if (!now) return;
            if (now.rssMb - base.rssMb > limits.memoryMb) kill('memory');
            else if (now.cpuMs - base.cpuMs > limits.cpuMs) kill('cpu');
          });
        }, WATCH_MS);
      });
    });
    ready.on('error', () => undefined);
    const onAbort = () => kill('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      // Not started at all (no process to wait for: 'close' may never come), or a failed kill.
      if (child.pid === undefined)
        resolve({ ok: false, failure: 'crash', why: `the reader could not start (${e.message})` });
      else kill('crash');
    });
    child.on('close', (code, sig) => {
      if (killedFor) return resolve(failure(killedFor, limits));
      // V8's own fatal errors (heap exhausted, a string or array over its size limit) abort the process.
      if (/out of memory|invalid size|allocation failed|invalid (string|array buffer) length/i.test(err))
        return resolve(failure('memory', limits));
      const line = Buffer.concat(out).toString('utf8');
      try {
        const r = JSON.parse(line) as { ok: boolean; value?: unknown; error?: string };
        if (r.ok) return resolve({ ok: true, value: r.value });
        return resolve({ ok: false, failure: 'error', why: String(r.error ?? 'unknown error').slice(0, 300) });
      } catch {
        const how = sig ? `signal ${sig}` : `exit code ${code}`;
        return resolve({ ok: false, failure: 'crash', why: `the reader stopped unexpectedly (${how})` });
      }
    });
  });
}

function failure(f: ParseFailure, limits: ParseLimits): ParseOutcome {
  const s = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);
  const size = (n: number) => (n < 1024 ? `${n} bytes` : `${Math.round(n / 1024)} KB`);
  const why: Record<ParseFailure, string> = {
    memory: `it needed more than ${limits.memoryMb} MB of memory`,
    cpu: `it needed more than ${s(limits.cpuMs)} of processing time`,
    time: `reading it took longer than ${s(limits.timeoutMs)}`,
    output: `what it holds is larger than ${size(limits.maxOutputBytes)} of text`,
    crash: 'the reader stopped unexpectedly',
    cancelled: 'reading it was cancelled',
    error: 'the reader failed',
  };
  return { ok: false, failure: f, why: why[f] };
}

/** What a process has used: resident memory (MB) and CPU time (ms). */
interface Usage {
  rssMb: number;
  cpuMs: number;
}

/** The usage of process `pid`, from /proc; undefined where there is none (not Linux, or it ended). */
async function usageOf(pid: number): Promise<Usage | undefined> {
  try {
    const [status, sched] = await Promise.all([
      readFile(`/proc/${pid}/status`, 'utf8'),
      readFile(`/proc/${pid}/schedstat`, 'utf8'),
    ]);
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const cpuNs = Number(sched.split(' ')[0] ?? 0);
    return { rssMb: rssKb / 1024, cpuMs: cpuNs / 1e6 };
  } catch {
    return undefined;
  }
}
