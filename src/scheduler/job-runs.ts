// The runs of the scheduler's jobs: the overlap policy (skip or queue), launching a run in its
// worker thread with its request (history, workspace taint, budget), the worker's messages
// (charges and reservations through the daily budget rule, workspace writes, the result), the
// timers that end a stuck worker, and the run's delivery and log entry when it ends.

import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { decodeUserKey, platformOf } from '../adapters/index.ts';
import type { Reservation } from '../agent/loop/cost-meter.ts';
import { holdsOtherThan, type WorkspaceRecords, workspaceTaint } from '../agent/workspace-record.ts';
import type { Secrets } from '../config/env.ts';
import type { LoadedConfig } from '../config/load.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { isPretty } from '../core/log.ts';
import { type BudgetHooks, budgetHooks } from '../runner/budget-rule.ts';
import type { DailySpend } from '../runner/daily-spend.ts';
import type { Persist } from '../runner/persist.ts';
import { encodeName, type JobRecord, type Store } from '../store/index.ts';
import type { BreeHooks, JobBree } from './bree-jobs.ts';
import type { SchedulerClock } from './clock.ts';
import { cronFields } from './cron.ts';
import { digestInputOf } from './digest.ts';
import { SchedulerError } from './errors.ts';
import { jobBudgetRule } from './job-budget.ts';
import { transcriptOf } from './job-prompt.ts';
import { type BudgetLimit, runBudget } from './run-budget.ts';
import { oneLine, runText, type WorkerRunResult } from './run-text.ts';
import type { Deliver, RunEvent, RunLogEntry, RunReport, RunTrigger, SchedulerEvent } from './types.ts';
import { webhookAnswerId } from './webhook-journal.ts';
import { isWorkerMessage, type ReservedMessage, type RunRequest } from './worker-protocol.ts';

/** What the runs need of the scheduler. */
export interface JobRunsOptions {
  store: Store;
  loaded: LoadedConfig;
  /** Fills a recorded channel's log from the platform since a time (a digest reaching before recording began). */
  backfill?: (channel: string, from: string) => Promise<unknown>;
  secrets: Secrets;
  /** The secrets' values, kept out of notices and logs. */
  secretValues: string[];
  deliver?: Deliver;
  log: Logger;
  emit(e: SchedulerEvent): void;
  clock: SchedulerClock;
  workspacesDir: string;
  startupTimeoutMs: number;
  graceMs: number;
  maxQueued: number;
  sandboxWorkers: number;
  spend: DailySpend;
  /** How a run's spending is written (retried until the store takes it). */
  persist: Persist;
  workspaceRecords: WorkspaceRecords;
  /** The worker threads (made after the runs: its hooks are theirs). */
  bree(): JobBree;
  /** The latest record seen per job (a run records the one it starts with). */
  known: Map<string, JobRecord>;
  stopping(): boolean;
  /** A job has no run left to start (the scheduler may reschedule what changed meanwhile). */
  idle(): void;
}

/** The runs of all jobs. */
export interface JobRuns {
  /** A run request (tick, catch-up or manual); returns the refusal when the overlap policy drops it. */
  tick(id: string, trigger: RunTrigger, waiter?: Waiter, more?: RunExtra): SchedulerError | undefined;
  /** What the worker threads report (Bree's hooks). */
  hooks: BreeHooks;
  /** From the tick until the run is logged. */
  busy(id: string): boolean;
  /** Refuses the runs a job has queued (with `error`). */
  dropQueued(id: string, error: Error): void;
  /** At a stop: refuses every queued run. */
  drain(): void;
  /** Resolves once no bookkeeping is in flight. */
  settled(): Promise<void>;
}

/** Whoever waits for a run's report (a manual run's caller). */
export interface Waiter {
  resolve(report: RunReport): void;
  reject(error: Error): void;
}

interface Pending {
  trigger: RunTrigger;
  waiters: Waiter[];
  /** A webhook run's request body and the run's id (logged). */
  event?: RunEvent;
  runId?: string;
}

/** What a webhook's run carries beside its trigger. */
type RunExtra = Pick<Pending, 'event' | 'runId'>;

interface ActiveRun extends Pending {
  job: JobRecord;
  startedAt: string;
  request: RunRequest;
  /** Which budget capped the run (its notice names it when the run is stopped or skipped by it). */
  limitedBy: BudgetLimit;
  /** The run's daily budget rule, as the meter hooks of a chat run are (the worker's calls go through it). */
  budget: BudgetHooks;
  /** What the worker's model calls in flight hold in the ledger, by the worker's id; given back at the end. */
  reservations: Map<number, Reservation>;
  worker?: Worker;
  result?: WorkerRunResult;
  workerError?: string;
  killed?: { outcome: string; reason: string };
  timer?: NodeJS.Timeout;
}

interface JobState {
  /** From the tick until the run is logged (ticks meanwhile follow the overlap policy). */
  busy: boolean;
  run?: ActiveRun;
  queue: Pending[];
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };
/**
 * Who a job's run is in its target's workspace record: its creator's user id there (a chat's
 * record names users without their platform), else the job itself (made by the CLI or the API).
 */
export function writerOf(job: Pick<JobRecord, 'id' | 'target' | 'createdBy'>): string {
  const by = job.createdBy ? decodeUserKey(job.createdBy) : undefined;
  return by?.platform === platformOf(job.target) ? by.userId : `job:${job.id}`;
}

/**
 * The occurrence a run is for, named alike by every replica: the scheduled minute (second, for a
 * cron with seconds), the nearest one since timers fire a little off; or the catch-up after the
 * job's last run; none for a manual run (each of those is wanted).
 */
function slotOf(trigger: RunTrigger, job: JobRecord, now: Date): string | undefined {
  // A webhook's runs are claimed by their delivery id instead (webhook-trigger.ts).
  if (trigger === 'manual' || trigger === 'webhook' || !job.cron) return undefined;
  const unit = cronFields(job.cron) === 6 ? 1000 : 60_000;
  if (trigger === 'schedule') return `at:${new Date(Math.round(now.getTime() / unit) * unit).toISOString()}`;
  if (trigger === 'catch-up') return `catch-up:${job.lastRunAt ?? job.createdAt ?? 'never'}`;
  return undefined;
}

/**
 * Why the target workspace's files are untrusted for the job's creator, by the same record the
 * conversation's runs read. A workspace that was never recorded but holds files counts as
 * holding files of unknown senders; a record that cannot be read, as others' files.
 */
async function workspaceTaintOf(
  o: Pick<JobRunsOptions, 'workspaceRecords' | 'log'>,
  job: JobRecord,
  workspace: string,
): Promise<string | undefined> {
  try {
    const record = await o.workspaceRecords.get(job.target);
    if (!record && (await holdsOtherThan(workspace, []).catch(() => false)))
      return 'files in the conversation’s workspace saved before boxbot recorded who put them there';
    return workspaceTaint(record, writerOf(job));
  } catch (e) {
    o.log.warn({ job: job.id, err: errorMessage(e) }, 'workspace record not read');
    return 'files in the conversation’s workspace (who put them there could not be read)';
  }
}

/** A digest job's history for the run starting at `startedAt` (undefined: not a digest job). */
function digestOf(o: JobRunsOptions, job: JobRecord, startedAt: string): ReturnType<typeof digestInputOf> {
  const source = {
    config: o.loaded.config,
    channelLog: o.store.channelLog,
    logs: (id: string) => o.store.jobs.logs(id),
    ...(o.backfill ? { backfill: o.backfill } : {}),
  };
  return digestInputOf(source, job, new Date(startedAt));
}

/**
 * Posts a run's text through the gateway's outbox. A webhook run's entry is named by its run id
 * and, once durable, its event is marked run before anything is sent: from then on the outbox
 * alone delivers the answer (resumed at the next start, as chat replies are), and a death before
 * the run's log entry cannot run the event, and post its answer, again (webhook-journal.ts).
 */
function deliverRun(
  o: Pick<JobRunsOptions, 'deliver' | 'store' | 'log'>,
  run: ActiveRun,
  text: string,
): Promise<string[]> {
  const id = run.job.id;
  const event = run.event;
  if (!event || !run.runId) return o.deliver!(run.job.target, text, `job:${id}:${run.startedAt}`);
  const handOver = () =>
    o.store.hookDeliveries.finish(event.hook, event.delivery).catch((e: unknown) => {
      // Still journaled: the sweep finds the answer in the outbox (or the log entry) and only finishes it.
      o.log.warn({ job: id, delivery: event.delivery, err: errorMessage(e) }, 'webhook event not marked as run');
    });
  return o.deliver!(run.job.target, text, webhookAnswerId(id, run.runId), handOver);
}

/** Creates the runs of a scheduler. */
export function createJobRuns(o: JobRunsOptions): JobRuns {
  const { log, emit, clock, secretValues: secrets, startupTimeoutMs, graceMs, maxQueued, known } = o;
  const states = new Map<string, JobState>();
  const inflight = new Set<Promise<void>>();
  const stateOf = (id: string): JobState => {
    let s = states.get(id);
    if (!s) states.set(id, (s = { busy: false, queue: [] }));
    return s;
  };

  const hooks: BreeHooks = {
    tick: (id) => void tick(id, 'schedule'),
    created(id, worker) {
      const run = states.get(id)?.run;
      if (!run) return;
      run.worker = worker;
      worker.postMessage(run.request);
      arm(id, run, startupTimeoutMs, {
        outcome: 'error',
        reason: `its worker did not start within ${Math.round(startupTimeoutMs / 1000)}s`,
      });
    },
    message(id, m) {
      const run = states.get(id)?.run;
      if (!run || !isWorkerMessage(m)) return;
      if (m.type === 'started')
        arm(id, run, run.job.timeoutMs + graceMs, {
          outcome: 'timeout',
          reason: 'its worker did not stop at the timeout and was terminated',
        });
      // Charged when the worker reports the call (not from its result, which a terminated or
      // crashed worker never sends), under the model that answered it.
      else if (m.type === 'charge') run.budget.onCharge(m.charge.model, m.charge.usage, m.charge.costUsd);
      else if (m.type === 'reserve') {
        const reply: ReservedMessage = { type: 'reserved', id: m.id, ok: reserve(run, m.id, m.estimateUsd) };
        run.worker?.postMessage(reply);
      } else if (m.type === 'release') {
        run.reservations.get(m.id)?.release();
        run.reservations.delete(m.id);
      } else if (m.type === 'writing') wrote(run.job, m.tainted);
      else run.result = m.result;
    },
    error(id, e) {
      const run = states.get(id)?.run;
      if (run && !run.workerError) run.workerError = oneLine(errorMessage(e), secrets);
    },
    deleted: (id) => track(finish(id)),
  };

  function track(p: Promise<void>): void {
    const q = p.catch((e: unknown) => log.error({ err: errorMessage(e) }, 'scheduler: run bookkeeping failed'));
    inflight.add(q);
    void q.finally(() => inflight.delete(q));
  }

  /** Terminates the run's worker if it is still there after `ms`. */
  function arm(id: string, run: ActiveRun, ms: number, why: { outcome: string; reason: string }): void {
    clearTimeout(run.timer);
    run.timer = setTimeout(() => {
      // A result already posted is kept; the worker is ended either way (e.g. stuck closing).
      if (states.get(id)?.run !== run) return;
      log.warn({ job: id, reason: why.reason }, 'terminating a job worker');
      run.killed = why;
      void run.worker?.terminate();
    }, ms);
    run.timer.unref?.();
  }

  /** A run request (tick, catch-up or manual); returns the refusal when the overlap policy drops it. */
  function tick(id: string, trigger: RunTrigger, waiter?: Waiter, more?: RunExtra): SchedulerError | undefined {
    if (o.stopping()) return new SchedulerError('stopped', 'the scheduler is stopping');
    const state = stateOf(id);
    const pending: Pending = { trigger, waiters: waiter ? [waiter] : [], ...more };
    if (!state.busy) {
      begin(id, state, pending);
      return undefined;
    }
    const overlap = known.get(id)?.overlap ?? 'skip';
    if (overlap === 'queue' && state.queue.length < maxQueued) {
      state.queue.push(pending);
      log.info({ job: id, depth: state.queue.length }, 'job still running: run queued');
      emit({ type: 'queued', jobId: id, depth: state.queue.length });
      return undefined;
    }
    log.info(
      { job: id, overlap },
      overlap === 'queue' ? 'job queue full: tick dropped' : 'job still running: tick skipped',
    );
    emit({ type: 'skipped', jobId: id });
    return new SchedulerError(
      'busy',
      `job "${id}" is already running${overlap === 'queue' ? ` and ${maxQueued} runs are queued` : ' (overlap: skip)'}`,
    );
  }

  function begin(id: string, state: JobState, pending: Pending): void {
    state.busy = true;
    track(
      launch(id, state, pending).catch(async (e: unknown) => {
        // Nothing was started: free the job and tell whoever waits.
        for (const r of state.run?.reservations.values() ?? []) r.release();
        state.run = undefined;
        state.busy = false;
        for (const w of pending.waiters) w.reject(e as Error);
        log.error({ job: id, err: errorMessage(e) }, 'job run could not start');
        next(id, state);
      }),
    );
  }

  /** Records that a run of `job` is about to write in its target's workspace (stop waits for it). */
  function wrote(job: JobRecord, tainted: boolean): void {
    track(o.workspaceRecords.writing(job.target, writerOf(job), tainted));
  }

  async function launch(id: string, state: JobState, pending: Pending): Promise<void> {
    const stored = await o.store.jobs.get(id);
    if (!stored) throw new SchedulerError('not-found', `no job "${id}"`);
    if (o.stopping()) throw new SchedulerError('stopped', 'the scheduler stopped before the run started');
    const startedAt = clock.now().toISOString();
    // Several replicas on one database: only the one that claims this occurrence runs it (the
    // leader's scheduler normally, but also when two briefly both think they lead).
    const slot = slotOf(pending.trigger, stored, clock.now());
    if (slot && o.store.jobs.claimTick && !(await o.store.jobs.claimTick(id, slot))) {
      log.info({ job: id, slot }, 'this occurrence was run by another replica');
      state.busy = false;
      emit({ type: 'skipped', jobId: id });
      next(id, state);
      return;
    }
    // Recorded before the worker starts: a restart after this point never runs this tick again.
    const job = await o.store.jobs.update(id, { lastRunAt: startedAt });
    known.set(id, job);
    const history = (await o.store.conversations.get(job.target))?.messages ?? [];
    const rule = jobBudgetRule(o.spend, o.loaded.config, job, () => clock.now().getTime());
    await rule.prepare();
    const { budgetUsd, limitedBy } = runBudget({
      jobUsd: job.budgetUsd,
      conversationLeftUsd: rule.left('conversation'),
      creatorLeftUsd: rule.left('user'),
    });
    const workspace = join(o.workspacesDir, encodeName(job.target));
    const workspaceUntrusted = await workspaceTaintOf(o, job, workspace);
    const digest = await digestOf(o, job, startedAt);
    const request: RunRequest = {
      type: 'run',
      job,
      loaded: o.loaded,
      secrets: { ...o.secrets },
      workspace,
      transcript: transcriptOf(history),
      ...(digest ? { digest } : {}),
      ...(pending.event ? { event: pending.event } : {}),
      ...(workspaceUntrusted ? { workspaceUntrusted } : {}),
      logLevel: log.level,
      logPretty: isPretty(log),
      sandboxWorkers: o.sandboxWorkers,
      ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    };
    const run: ActiveRun = {
      ...pending,
      job,
      startedAt,
      request,
      limitedBy,
      reservations: new Map(),
      // A call refused by a daily budget names it; the creator's when both are taken up.
      budget: budgetHooks(rule, o.persist, () => {
        run.limitedBy = rule.takenUp().some((t) => t.limit.kind === 'user') ? 'creator' : 'conversation';
      }),
    };
    state.run = run;
    emit({ type: 'run-start', jobId: id, trigger: pending.trigger, startedAt });
    log.info({ job: id, trigger: pending.trigger }, 'job run started');
    // A daily budget already spent (a job's own budget is positive): the run is skipped, and says why.
    if (budgetUsd !== undefined && budgetUsd <= 0) {
      state.run.result = { outcome: 'budget-exceeded', text: '', usage: NO_USAGE, costUsd: 0 };
      await finish(id);
      return;
    }
    if (!o.bree().has(id)) await o.bree().addJob(job);
    if (o.stopping()) throw new SchedulerError('stopped', 'the scheduler stopped before the run started');
    await o.bree().spawn(id);
    if (!state.run.worker) {
      // Bree did not start a worker (it says why in its log); end the run as a failure.
      state.run.workerError = 'the job worker could not be started';
      await finish(id);
    }
  }

  /**
   * Holds one model call's estimated cost for the run in the ledger the chat runs share, unless
   * the target conversation's or the creator's daily budget is taken up (spent plus held by calls
   * in flight); a refusal names that budget in the run's notice.
   */
  function reserve(run: ActiveRun, id: number, estimateUsd: number): boolean {
    const r = run.budget.reserve(estimateUsd);
    if (!r) return false;
    run.reservations.set(id, r);
    return true;
  }

  async function finish(id: string): Promise<void> {
    const state = states.get(id);
    const run = state?.run;
    if (!state || !run) return;
    state.run = undefined;
    clearTimeout(run.timer);
    // A worker that ended inside a model call (terminated, crashed) never gave its reservation back.
    for (const r of run.reservations.values()) r.release();
    run.reservations.clear();
    const result: WorkerRunResult = run.result ?? {
      outcome: run.killed?.outcome ?? 'error',
      text: '',
      error: run.killed?.reason ?? run.workerError ?? 'the job worker exited without a result',
      usage: NO_USAGE,
      costUsd: 0,
    };
    const { text, failed } = runText(run.job, result, secrets, run.limitedBy);
    let delivered: string | null = null;
    let deliverError: string | undefined;
    if (o.deliver) {
      try {
        delivered = (await deliverRun(o, run, text))[0] ?? null;
      } catch (e) {
        deliverError = oneLine(errorMessage(e), secrets);
        log.error({ job: id, target: run.job.target, err: deliverError }, 'job result not delivered');
      }
    }
    const error = [
      failed ? oneLine(result.error ?? text, secrets) : undefined,
      deliverError ? `not delivered: ${deliverError}` : undefined,
    ]
      .filter(Boolean)
      .join('; ');
    const entry: RunLogEntry = {
      jobId: id,
      startedAt: run.startedAt,
      finishedAt: clock.now().toISOString(),
      outcome: result.outcome,
      delivered,
      ...(error ? { error } : {}),
      usage: result.usage,
      costUsd: result.costUsd,
      ...(result.digest ? { digest: result.digest } : {}),
      trigger: run.trigger,
      ...(run.runId ? { runId: run.runId } : {}),
    };
    // A job removed while it ran has no log any more.
    if (await o.store.jobs.get(id)) await o.store.jobs.appendLog(entry);
    log.info({ job: id, outcome: entry.outcome, delivered, costUsd: entry.costUsd }, 'job run finished');
    const report: RunReport = { entry, text, failed };
    emit({ type: 'run-end', jobId: id, report });
    for (const w of run.waiters) w.resolve(report);
    state.busy = false;
    next(id, state);
  }

  function next(id: string, state: JobState): void {
    if (o.stopping()) {
      for (const p of state.queue.splice(0))
        for (const w of p.waiters) w.reject(new SchedulerError('stopped', 'the scheduler stopped'));
      return;
    }
    const pending = state.queue.shift();
    if (pending) begin(id, state, pending);
    else o.idle();
  }

  return {
    tick,
    hooks,
    busy: (id) => states.get(id)?.busy ?? false,
    dropQueued(id, error) {
      for (const p of states.get(id)?.queue.splice(0) ?? []) for (const w of p.waiters) w.reject(error);
    },
    drain() {
      for (const [id, state] of states) next(id, state);
    },
    async settled() {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
  };
}
