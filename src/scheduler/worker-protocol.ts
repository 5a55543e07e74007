// Messages between the scheduler (main thread) and a job's worker thread. Bree's own strings
// ('cancel' in, 'done' out) travel on the same port.
import type { LoadedConfig } from '../config/load.ts';
import type { JobRecord } from '../store/index.ts';
import type { DigestInput } from './digest.ts';
import type { RunCharge, WorkerRunResult } from './run-text.ts';
import type { RunEvent } from './types.ts';

/** Main → worker: everything one run needs (the worker reads no files of the store). */
export interface RunRequest {
  type: 'run';
  job: JobRecord;
  loaded: LoadedConfig;
  /** Provider keys and base URLs; the worker passes them to its providers only. */
  secrets: Record<string, string | undefined>;
  /** The target conversation's workspace (the policy's workspace). */
  workspace: string;
  /** The target conversation's recent messages (see job-prompt.ts). */
  transcript: string;
  /** A webhook run's request body, for `{{event}}` (untrusted: see webhook-event.ts). */
  event?: RunEvent;
  /** A digest job's channel history from the channel log, which replaces `transcript` (see digest.ts). */
  digest?: DigestInput;
  /**
   * Why the workspace's files are untrusted for the job's creator (others put files there: see
   * agent/workspace-record.ts); absent: all of it is theirs. The worker reads no store to know.
   */
  workspaceUntrusted?: string;
  logLevel: string;
  /** Human log lines (the gateway's are: it runs on a terminal); the worker's stderr is never a TTY. */
  logPretty: boolean;
  /** Sandbox threads of the worker's own runtime. */
  sandboxWorkers: number;
  /**
   * The run's budget: the smallest of the job's own and what the target conversation's and the
   * job creator's daily budgets have left today (see run-budget.ts); absent: none applies.
   */
  budgetUsd?: number;
}

/** Worker → main. */
export type WorkerMessage =
  /** The runtime is built and the agent starts (the run's timeout counts from here). */
  | { type: 'started' }
  /**
   * One model call as charged, sent when it is made: the scheduler records it at once, so what a
   * run spent counts even when its worker is terminated or crashes before its result.
   */
  | { type: 'charge'; charge: RunCharge }
  /**
   * Before each model call: hold `estimateUsd` against the daily budgets the run counts toward
   * (the process's one ledger, shared with chat runs); answered with `reserved`.
   */
  | { type: 'reserve'; id: number; estimateUsd: number }
  /** The call's charge was posted (or the call failed): reservation `id` is given back. */
  | { type: 'release'; id: number }
  /** A call that may write in the workspace is about to run (`tainted`: the run read untrusted content). */
  | { type: 'writing'; tainted: boolean }
  | { type: 'result'; result: WorkerRunResult };

/** Main → worker: the answer to `reserve` (false: a daily budget is taken up; make no call). */
export interface ReservedMessage {
  type: 'reserved';
  id: number;
  ok: boolean;
}

const WORKER_TYPES = new Set(['started', 'charge', 'reserve', 'release', 'writing', 'result']);

/** True for a message of the protocol (not one of Bree's strings). */
export function isWorkerMessage(m: unknown): m is WorkerMessage {
  if (typeof m !== 'object' || m === null) return false;
  return WORKER_TYPES.has((m as { type?: unknown }).type as string);
}
