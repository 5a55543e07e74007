// The scheduler: jobs from the store, scheduled by Bree, each run in its own worker thread; the
// result (or a failure notice) is delivered to the job's target conversation and logged. This file
// wires the parts and keeps the jobs' CRUD: the runs (overlap policy, lastRunAt before every run,
// the worker's messages, the daily budget rule) are job-runs.ts; catch-up at start and picking up
// store changes are job-sync.ts.
// Example:
//   const s = createScheduler({ store, loaded, secrets, deliver: (key, text, id) => gateway.post(targetOf(key), text,
//   id) });
//   await s.start(); await s.add({ name: 'digest', cron: '0 9 * * 1-5', prompt: '/daily-digest', target: 'slack:T1:C2'
//   });
import { join } from 'node:path';
import { createWorkspaceRecords } from '../agent/workspace-record.ts';
import { type Secrets, secretValues } from '../config/env.ts';
import type { LoadedConfig } from '../config/load.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { silentLogger } from '../core/log.ts';
import { createDailySpend, type DailySpend } from '../runner/daily-spend.ts';
import { persister } from '../runner/persist.ts';
import type { JobRecord, Store } from '../store/index.ts';
import { JobBree } from './bree-jobs.ts';
import { type SchedulerClock, systemClock } from './clock.ts';
import { SchedulerError } from './errors.ts';
import { createJobRuns, type Waiter } from './job-runs.ts';
import { createJobSync } from './job-sync.ts';
import type { Deliver, JobInput, JobLogEntry, RunNowOptions, RunReport, SchedulerEvent, TargetCheck } from './types.ts';
import { checkHookFree, mergeJob, newJobId, validateJobInput } from './validate.ts';
import { WORKER_FILE } from './worker-file.ts';

/** How a scheduler is wired. */
export interface SchedulerOptions {
  store: Store;
  loaded: LoadedConfig;
  secrets: Secrets;
  /**
   * Posts a run's text to its target (the gateway's `post`). Without it runs are logged, not delivered
   * (`boxbot job run`).
   */
  deliver?: Deliver;
  /**
   * Whether a target can receive posts (e.g. its platform's channel is running); used when jobs are added or changed.
   */
  isKnownTarget?: TargetCheck;
  log?: Logger;
  onEvent?: (event: SchedulerEvent) => void;
  /**
   * How often the store is re-read for jobs added or changed by other processes (`boxbot job add`); default 5000 ms, 0
   * = never.
   */
  reloadMs?: number;
  /** Conversation workspaces (default `<dataDir>/workspaces`, as the gateway's). */
  workspacesDir?: string;
  /** The worker entry (default: worker.js/.ts next to this module; tests pass their own). */
  workerFile?: string;
  /**
   * A worker that has not started its agent after this long is terminated (default 120,000 ms: a cold tool cache
   * compiles first).
   */
  startupTimeoutMs?: number;
  /** A worker still running this long after its job's timeout is terminated (default 10,000 ms). */
  graceMs?: number;
  /** Runs a `queue` job may have waiting (default 5; ticks beyond are dropped with a warning). */
  maxQueued?: number;
  /** Sandbox threads per job worker (default 1). */
  sandboxWorkers?: number;
  /** The time and the cron ticks (default: the wall clock and Bree's timers; tests set and fire their own). */
  clock?: SchedulerClock;
  /** How a failed write of a run's spending is retried: first wait (default 500 ms), doubling up to the max (30 s). */
  storeRetry?: { backoffMs?: number; maxBackoffMs?: number };
  /**
   * The process's daily-spend ledger, shared with the gateway's runs so each counts the other's
   * charges not yet written (main passes one); default: a ledger of the scheduler's own.
   */
  spend?: DailySpend;
  /** Fills a recorded channel's log from the platform since a time (a digest reaching before recording began). */
  backfill?: (channel: string, from: string) => Promise<unknown>;
}

/** A running scheduler. */
export interface Scheduler {
  /** Loads the jobs from the store, runs missed ones once (catch-up), and starts their timers. */
  start(): Promise<void>;
  /** Stops the timers; runs in flight are cancelled and their notice delivered. */
  stop(): Promise<void>;
  /** Validates and stores a new job; throws JobValidationError naming the field. */
  add(input: JobInput): Promise<JobRecord>;
  /** Changes fields of a job (validated as a whole). */
  update(id: string, patch: Partial<JobInput>): Promise<JobRecord>;
  /** Removes a job and its logs (a run in flight is cancelled); false if there was none. */
  remove(id: string): Promise<boolean>;
  /**
   * Runs a job now: resolves once the run is started or queued, with `done` resolving when it has
   * finished. Throws SchedulerError `not-found`, or `busy` when it is running and overlap is `skip`.
   */
  runNow(id: string, opts?: RunNowOptions): Promise<{ done: Promise<RunReport> }>;
  get(id: string): Promise<JobRecord | undefined>;
  list(): Promise<JobRecord[]>;
  /** The job's run logs, oldest first. */
  logs(id: string, limit?: number): Promise<JobLogEntry[]>;
  /** Re-reads the jobs from the store now. */
  sync(): Promise<void>;
}

/** Creates a scheduler; call `start()` to schedule, or use `runNow` alone (CLI). */
export function createScheduler(o: SchedulerOptions): Scheduler {
  const log = o.log ?? silentLogger;
  const emit = (e: SchedulerEvent) => {
    try {
      o.onEvent?.(e);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'scheduler event listener failed');
    }
  };
  const graceMs = o.graceMs ?? 10_000;
  const clock = o.clock ?? systemClock;
  /** The latest record seen per job. */
  const known = new Map<string, JobRecord>();
  let started = false;
  let stopping = false;
  let reloadTimer: NodeJS.Timeout | undefined;
  const stopped = new AbortController();
  const spend = o.spend ?? createDailySpend(o.store.usage, { now: () => clock.now().getTime(), log });
  const runs = createJobRuns({
    store: o.store,
    loaded: o.loaded,
    ...(o.backfill ? { backfill: o.backfill } : {}),
    secrets: o.secrets,
    secretValues: secretValues(o.secrets),
    ...(o.deliver ? { deliver: o.deliver } : {}),
    log,
    emit,
    clock,
    workspacesDir: o.workspacesDir ?? join(o.loaded.dataDir, 'workspaces'),
    startupTimeoutMs: o.startupTimeoutMs ?? 120_000,
    graceMs,
    maxQueued: o.maxQueued ?? 5,
    sandboxWorkers: o.sandboxWorkers ?? 1,
    spend,
    // A run's spending is written like the gateway's usage charges: retried until the store takes
    // it (or the scheduler stops), and counted meanwhile, so a failing store neither loses it nor
    // lets the next run of a spent budget start.
    persist: persister({
      log,
      stopping: stopped.signal,
      backoffMs: o.storeRetry?.backoffMs ?? 500,
      maxBackoffMs: o.storeRetry?.maxBackoffMs ?? 30_000,
    }),
    workspaceRecords: createWorkspaceRecords(o.store.kv),
    bree: () => bree,
    known,
    stopping: () => stopping,
    idle: () => {
      if (jobs.dirty() && started) void sync();
    },
  });
  const bree = new JobBree(o.workerFile ?? WORKER_FILE, runs.hooks, log, clock.timers);
  const jobs = createJobSync({
    store: o.store,
    bree,
    clock,
    log,
    emit,
    known,
    busy: runs.busy,
    catchUp: (id) => void runs.tick(id, 'catch-up'),
    stopping: () => stopping,
  });
  const sync = jobs.sync;

  async function mustGet(id: string): Promise<JobRecord> {
    const job = await o.store.jobs.get(id);
    if (!job) throw new SchedulerError('not-found', `no job "${id}"`);
    return job;
  }

  return {
    async start() {
      if (started) return;
      started = true;
      await sync();
      if ((o.reloadMs ?? 5000) > 0) {
        reloadTimer = setInterval(() => void sync().catch(() => undefined), o.reloadMs ?? 5000);
        reloadTimer.unref();
      }
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      clearInterval(reloadTimer);
      await jobs.settled();
      runs.drain();
      // Bree asks running workers to cancel; a worker that does not react is terminated.
      const force = setTimeout(() => {
        for (const w of bree.workers.values()) void w.terminate();
      }, graceMs);
      await bree.stop();
      clearTimeout(force);
      // The runs are over: a spending write still failing is given up (logged) rather than holding the stop.
      stopped.abort();
      await runs.settled();
      // A ledger of its own is drained here; a shared one by its owner (main), after the gateway stops.
      if (!o.spend) await spend.flush();
    },
    async add(input) {
      const fields = await validateJobInput(input, o.isKnownTarget);
      const job: JobRecord = { id: newJobId(fields.name), ...fields, createdAt: clock.now().toISOString() };
      await checkHookFree(o.store.jobs, job);
      await o.store.jobs.put(job);
      log.info({ job: job.id, cron: job.cron, target: job.target }, 'job added');
      if (started) await sync();
      return job;
    },
    async update(id, patch) {
      const current = await mustGet(id);
      const { timezone: _tz, model: _model, budgetUsd: _budget, cron: _cron, trigger: _trigger, ...base } = current;
      const merged = mergeJob(current, patch);
      // Only a changed target is checked against the running channels (a stored one may be down for now).
      const fields = await validateJobInput(merged, merged.target === current.target ? undefined : o.isKnownTarget);
      const job: JobRecord = { ...base, ...fields };
      await checkHookFree(o.store.jobs, job);
      await o.store.jobs.put(job);
      if (started) await sync();
      return job;
    },
    async remove(id) {
      const existed = await o.store.jobs.remove(id);
      runs.dropQueued(id, new SchedulerError('not-found', `job "${id}" was removed`));
      if (started) await sync();
      else if (bree.has(id)) await bree.remove(id);
      return existed;
    },
    async runNow(id, opts = {}) {
      known.set(id, await mustGet(id));
      let waiter!: Waiter;
      const done = new Promise<RunReport>((resolve, reject) => (waiter = { resolve, reject }));
      const refused =
        opts.trigger === 'webhook'
          ? runs.tick(id, 'webhook', waiter, { event: opts.event, runId: opts.runId })
          : runs.tick(id, 'manual', waiter);
      if (refused) throw refused;
      void done.catch(() => undefined); // the caller may not wait
      return { done };
    },
    get: (id) => o.store.jobs.get(id),
    list: () => o.store.jobs.list(),
    async logs(id, limit) {
      await mustGet(id);
      return o.store.jobs.logs(id, limit);
    },
    sync,
  };
}
