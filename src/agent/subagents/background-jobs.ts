// Sub-agents started in the background during one run: each gets an id the model uses with
// `agent_result`. When the owning run ends, whatever still runs is aborted (nobody could fetch it).

import { errorMessage } from '../../core/errors.ts';
import type { AgentResult } from '../loop/types.ts';

/** A background sub-agent, finished or not. */
export interface BackgroundJob {
  id: string;
  description: string;
  result?: AgentResult;
  error?: string;
}

/** The background sub-agents of one run. */
export interface BackgroundJobs {
  /** A new sub-agent id (foreground ones use it for their events too). */
  nextId(): string;
  /** Starts `run` under its own signal (tied to `parent`); returns at once. */
  start(id: string, description: string, parent: AbortSignal, run: (signal: AbortSignal) => Promise<AgentResult>): void;
  get(id: string): BackgroundJob | undefined;
  /** Waits up to `ms` for the job; resolves with it either way (check `result`). */
  wait(id: string, ms: number, signal: AbortSignal): Promise<BackgroundJob | undefined>;
  /** Aborts every job still running and waits for them to settle. */
  abortAll(): Promise<void>;
}

/** Creates the job table of a run. */
export function createBackgroundJobs(): BackgroundJobs {
  let counter = 0;
  const jobs = new Map<string, { job: BackgroundJob; done: Promise<void>; ctl: AbortController }>();
  return {
    nextId: () => `agent-${++counter}`,
    start(id, description, parent, run) {
      const ctl = new AbortController();
      const job: BackgroundJob = { id, description };
      const done = run(AbortSignal.any([parent, ctl.signal])).then(
        (r) => {
          job.result = r;
        },
        (e: unknown) => {
          job.error = errorMessage(e);
        },
      );
      jobs.set(id, { job, done, ctl });
    },
    get: (id) => jobs.get(id)?.job,
    async wait(id, ms, signal) {
      const entry = jobs.get(id);
      if (!entry) return undefined;
      if (entry.job.result || entry.job.error !== undefined) return entry.job;
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      await Promise.race([
        entry.done,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ms);
          onAbort = () => resolve();
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      return entry.job;
    },
    async abortAll() {
      for (const { ctl } of jobs.values()) ctl.abort();
      await Promise.all([...jobs.values()].map((j) => j.done));
    },
  };
}
