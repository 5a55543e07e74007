// The fuzz harness: runs one target's check over generated inputs with fast-check, counting
// crashes (the check threw: the code broke its contract or an invariant) and hangs (one input
// took longer than the hang limit) instead of stopping at the first, then shrinks the first
// finding to a minimal input with the same seed. Hangs that never return are caught a level up
// (isolate.ts runs a target in a worker it can end).
import fc from 'fast-check';

/** One parser of outside input under test: what to feed it and what must hold afterwards. */
export interface FuzzTarget<T = unknown> {
  name: string;
  /** Inputs: arbitrary bytes or text, and structurally plausible ones built from recorded fixtures. */
  input: fc.Arbitrary<T>;
  /** Runs the parser on `input`; throws when the parser broke its contract (an escaped error, a bad output). */
  check(input: T): void | Promise<void>;
}

/** What went wrong on one input. */
export interface Finding {
  kind: 'crash' | 'hang';
  /** The input, printed (JSON for plain data, fast-check's notation otherwise), cut at a million characters. */
  input: string;
  /** The error's message, or how long the input took. */
  error: string;
}

/** One target's run. */
export interface FuzzReport {
  target: string;
  seed: number;
  runs: number;
  crashes: number;
  hangs: number;
  ms: number;
  /** The first few findings as they came. */
  findings: Finding[];
  /** The first finding shrunk to a minimal input (when there was one and shrinking finished). */
  minimal?: Finding;
  /** The run was ended early (an input never returned or ran out of memory). */
  stopped?: boolean;
}

/** How a target is run. */
export interface RunOptions {
  runs: number;
  seed: number;
  /** One input using more CPU than this (ms) is a hang (default 1,000). */
  hangMs?: number;
  /** Called with each input before it is checked (isolate.ts keeps it where a watchdog can read it). */
  onCase?: (input: unknown) => void;
  /** How long shrinking may take, in ms (default 60,000). */
  shrinkMs?: number;
}

const KEPT_FINDINGS = 3;
const SHOWN_CHARS = 1_000_000;

class Hang extends Error {}

/** An input printed for a report: JSON when it is plain data, fast-check's notation otherwise. */
export function showInput(input: unknown, max = SHOWN_CHARS): string {
  let text: string;
  try {
    text = input instanceof Uint8Array ? `bytes:${Buffer.from(input).toString('base64')}` : fc.stringify(input);
  } catch {
    text = String(input);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/**
 * Runs `check(input)`; a rejection or a throw is a crash. A hang is an input that used more than
 * `hangMs` of CPU (CPU, not wall time: on a busy machine a fast input can wait long for a core), or
 * whose check did not settle within ten times that.
 */
async function once<T>(target: FuzzTarget<T>, input: T, hangMs: number): Promise<Finding | undefined> {
  const cpu = process.cpuUsage();
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = target.check(input);
    if (result instanceof Promise) {
      await Promise.race([
        result,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Hang()), hangMs * 10);
        }),
      ]);
    }
  } catch (e) {
    if (e instanceof Hang) return { kind: 'hang', input: showInput(input), error: `no answer after ${hangMs * 10} ms` };
    return { kind: 'crash', input: showInput(input), error: describe(e) };
  } finally {
    clearTimeout(timer);
  }
  const used = process.cpuUsage(cpu);
  const ms = (used.user + used.system) / 1000;
  return ms > hangMs ? { kind: 'hang', input: showInput(input), error: `took ${Math.round(ms)} ms of CPU` } : undefined;
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return `threw a non-error: ${showInput(e, 200)}`;
  const where = e.stack?.split('\n').find((l) => l.includes('/src/'));
  return `${e.name}: ${e.message}${where ? ` (${where.trim()})` : ''}`;
}

/**
 * Runs `target` over `runs` inputs from `seed`; never throws for what the target does.
 * @example await runTarget(markdownTarget, { runs: 1000, seed: 42 }) // { crashes: 0, hangs: 0, ... }
 */
export async function runTarget<T>(target: FuzzTarget<T>, opts: RunOptions): Promise<FuzzReport> {
  const hangMs = opts.hangMs ?? 1_000;
  const report: FuzzReport = {
    target: target.name,
    seed: opts.seed,
    runs: 0,
    crashes: 0,
    hangs: 0,
    ms: 0,
    findings: [],
  };
  const started = performance.now();
  let firstFailing = -1;
  await fc.assert(
    fc.asyncProperty(target.input, async (input) => {
      opts.onCase?.(input);
      const finding = await once(target, input, hangMs);
      report.runs++;
      if (!finding) return;
      if (finding.kind === 'crash') report.crashes++;
      else report.hangs++;
      if (firstFailing < 0) firstFailing = report.runs;
      if (report.findings.length < KEPT_FINDINGS) report.findings.push(finding);
    }),
    { seed: opts.seed, numRuns: opts.runs },
  );
  report.ms = Math.round(performance.now() - started);
  if (firstFailing > 0) report.minimal = await shrink(target, opts, hangMs, firstFailing);
  return report;
}

/** The first failing input again (same seed), shrunk by fast-check to a minimal one. */
async function shrink<T>(
  target: FuzzTarget<T>,
  opts: RunOptions,
  hangMs: number,
  numRuns: number,
): Promise<Finding | undefined> {
  let last: Finding | undefined;
  await fc.check(
    fc.asyncProperty(target.input, async (input) => {
      opts.onCase?.(input);
      const finding = await once(target, input, hangMs);
      if (finding) last = finding;
      return finding === undefined;
    }),
    { seed: opts.seed, numRuns, interruptAfterTimeLimit: opts.shrinkMs ?? 60_000, markInterruptAsFailure: false },
  );
  return last;
}
