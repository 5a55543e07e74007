// The scheduler: jobs from the store, scheduled by Bree, each run in its own worker thread; the
// result (or a failure notice) is delivered to the job's target conversation and logged. Owns the
// overlap policy, lastRunAt before every run, catch-up at start, and picking up store changes.
// A run spends from its target conversation's daily budget, like the conversation's own runs.
// Example:
//   const s = createScheduler({ store, loaded, secrets, deliver: (key, text, id) => gateway.post(targetOf(key), text,
//   id) });
//   await s.start(); await s.add({ name: 'digest', cron: '0 9 * * 1-5', prompt: '/daily-digest', target: 'slack:T1:C2'
//   });
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { decodeConversationKey, type Platform } from '../adapters/index.ts';
import { createWorkspaceRecords, holdsOtherThan, type Reservation, workspaceTaint } from '../agent/index.ts';
import { type Secrets, secretValues } from '../config/env.ts';
import type { LoadedConfig } from '../config/load.ts';
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { isPretty, silentLogger } from '../core/log.ts';
import { createDailySpend, type DailyLimit, type DailySpend } from '../runner/daily-spend.ts';
import { persister } from '../runner/persist.ts';
import { budgetChannelOf, conversationPolicy, resolvePolicy } from '../runner/policy.ts';
import { encodeName, type JobRecord, type Store, type UsageSubject } from '../store/index.ts';
import { JobBree } from './bree-jobs.ts';
import { type SchedulerClock, systemClock } from './clock.ts';
import { cronFields, missedRun } from './cron.ts';
import { digestInputOf } from './digest.ts';
import { SchedulerError } from './errors.ts';
import { transcriptOf } from './job-prompt.ts';
import { type BudgetLimit, runBudget } from './run-budget.ts';
import { oneLine, type RunCharge, runText, type WorkerRunResult } from './run-text.ts';
import type {
  Deliver,
  JobInput,
  JobLogEntry,
  RunLogEntry,
  RunReport,
  RunTrigger,
  SchedulerEvent,
  TargetCheck,
} from './types.ts';
import { newJobId, validateJobInput } from './validate.ts';
import { WORKER_FILE } from './worker-file.ts';
import { isWorkerMessage, type ReservedMessage, type RunRequest } from './worker-protocol.ts';

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
  runNow(id: string): Promise<{ done: Promise<RunReport> }>;
  get(id: string): Promise<JobRecord | undefined>;
  list(): Promise<JobRecord[]>;
  /** The job's run logs, oldest first. */
  logs(id: string, limit?: number): Promise<JobLogEntry[]>;
  /** Re-reads the jobs from the store now. */
  sync(): Promise<void>;
}

interface Waiter {
  resolve(report: RunReport): void;
  reject(error: Error): void;
}

interface Pending {
  trigger: RunTrigger;
  waiters: Waiter[];
}

interface ActiveRun extends Pending {
  job: JobRecord;
  startedAt: string;
  request: RunRequest;
  /** Which budget capped the run (its notice names it when the run is stopped or skipped by it). */
  limitedBy: BudgetLimit;
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
  const platform = `${job.target.slice(0, job.target.indexOf(':'))}:`;
  return job.createdBy?.startsWith(platform) ? job.createdBy.slice(platform.length) : `job:${job.id}`;
}

const scheduleOf = (j: JobRecord) => `${j.cron}|${j.timezone ?? ''}|${j.enabled}`;

/**
 * The occurrence a run is for, named alike by every replica: the scheduled minute (second, for a
 * cron with seconds), the nearest one since timers fire a little off; or the catch-up after the
 * job's last run; none for a manual run (each of those is wanted).
 */
function slotOf(trigger: RunTrigger, job: JobRecord, now: Date): string | undefined {
  const unit = cronFields(job.cron) === 6 ? 1000 : 60_000;
  if (trigger === 'schedule') return `at:${new Date(Math.round(now.getTime() / unit) * unit).toISOString()}`;
  if (trigger === 'catch-up') return `catch-up:${job.lastRunAt ?? job.createdAt ?? 'never'}`;
  return undefined;
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
  const secrets = secretValues(o.secrets);
  const workspacesDir = o.workspacesDir ?? join(o.loaded.dataDir, 'workspaces');
  const startupTimeoutMs = o.startupTimeoutMs ?? 120_000;
  const graceMs = o.graceMs ?? 10_000;
  const maxQueued = o.maxQueued ?? 5;
  const clock = o.clock ?? systemClock;
  const states = new Map<string, JobState>();
  /** The latest record seen per job, and the schedule Bree has for it. */
  const known = new Map<string, JobRecord>();
  const scheduled = new Map<string, string>();
  const inflight = new Set<Promise<void>>();
  let started = false;
  let stopping = false;
  let dirty = false;
  let reloadTimer: NodeJS.Timeout | undefined;
  const stopped = new AbortController();
  // A run's spending is written like the gateway's usage charges: retried until the store takes
  // it (or the scheduler stops), and counted meanwhile, so a failing store neither loses it nor
  // lets the next run of a spent budget start.
  const persist = persister({
    log,
    stopping: stopped.signal,
    backoffMs: o.storeRetry?.backoffMs ?? 500,
    maxBackoffMs: o.storeRetry?.maxBackoffMs ?? 30_000,
  });
  const spend = o.spend ?? createDailySpend(o.store.usage, { now: () => clock.now().getTime(), log });
  const workspaceRecords = createWorkspaceRecords(o.store.kv);
  // One chain, not a KeyedLock: there is a single key (the jobs list), and a failed read must be
  // logged here while the caller of sync() still sees it reject.
  let syncing: Promise<void> = Promise.resolve();

  const stateOf = (id: string): JobState => {
    let s = states.get(id);
    if (!s) states.set(id, (s = { busy: false, queue: [] }));
    return s;
  };

  const bree = new JobBree(
    o.workerFile ?? WORKER_FILE,
    {
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
        else if (m.type === 'charge') charge(run, m.charge);
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
    },
    log,
    clock.timers,
  );

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
  function tick(id: string, trigger: RunTrigger, waiter?: Waiter): SchedulerError | undefined {
    if (stopping) return new SchedulerError('stopped', 'the scheduler is stopping');
    const state = stateOf(id);
    const pending: Pending = { trigger, waiters: waiter ? [waiter] : [] };
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

  /**
   * Why the target workspace's files are untrusted for the job's creator, by the same record the
   * conversation's runs read. A workspace that was never recorded but holds files counts as
   * holding files of unknown senders; a record that cannot be read, as others' files.
   */
  async function workspaceTaintOf(job: JobRecord, workspace: string): Promise<string | undefined> {
    try {
      const record = await workspaceRecords.get(job.target);
      if (!record && (await holdsOtherThan(workspace, []).catch(() => false)))
        return 'files in the conversation’s workspace saved before boxbot recorded who put them there';
      return workspaceTaint(record, writerOf(job));
    } catch (e) {
      log.warn({ job: job.id, err: errorMessage(e) }, 'workspace record not read');
      return 'files in the conversation’s workspace (who put them there could not be read)';
    }
  }

  /** Records that a run of `job` is about to write in its target's workspace (stop waits for it). */
  function wrote(job: JobRecord, tainted: boolean): void {
    track(workspaceRecords.writing(job.target, writerOf(job), tainted));
  }

  async function launch(id: string, state: JobState, pending: Pending): Promise<void> {
    const stored = await o.store.jobs.get(id);
    if (!stored) throw new SchedulerError('not-found', `no job "${id}"`);
    if (stopping) throw new SchedulerError('stopped', 'the scheduler stopped before the run started');
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
    const { budgetUsd, limitedBy } = runBudget({
      jobUsd: job.budgetUsd,
      conversationLeftUsd: await budgetLeft(job.target),
      creatorLeftUsd: await creatorBudgetLeft(job),
    });
    const workspace = join(workspacesDir, encodeName(job.target));
    const workspaceUntrusted = await workspaceTaintOf(job, workspace);
    const digest = await digestInputOf(
      {
        config: o.loaded.config,
        channelLog: o.store.channelLog,
        logs: (id) => o.store.jobs.logs(id),
        ...(o.backfill ? { backfill: o.backfill } : {}),
      },
      job,
      new Date(startedAt),
    );
    const request: RunRequest = {
      type: 'run',
      job,
      loaded: o.loaded,
      secrets: { ...o.secrets },
      workspace,
      transcript: transcriptOf(history),
      ...(digest ? { digest } : {}),
      ...(workspaceUntrusted ? { workspaceUntrusted } : {}),
      logLevel: log.level,
      logPretty: isPretty(log),
      sandboxWorkers: o.sandboxWorkers ?? 1,
      ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    };
    state.run = { ...pending, job, startedAt, request, limitedBy, reservations: new Map() };
    emit({ type: 'run-start', jobId: id, trigger: pending.trigger, startedAt });
    log.info({ job: id, trigger: pending.trigger }, 'job run started');
    // A daily budget already spent (a job's own budget is positive): the run is skipped, and says why.
    if (budgetUsd !== undefined && budgetUsd <= 0) {
      state.run.result = { outcome: 'budget-exceeded', text: '', usage: NO_USAGE, costUsd: 0 };
      await finish(id);
      return;
    }
    if (!bree.has(id)) await bree.addJob(job);
    if (stopping) throw new SchedulerError('stopped', 'the scheduler stopped before the run started');
    await bree.spawn(id);
    if (!state.run.worker) {
      // Bree did not start a worker (it says why in its log); end the run as a failure.
      state.run.workerError = 'the job worker could not be started';
      await finish(id);
    }
  }

  /**
   * What the daily budget of conversation `key` (its policy as the config says now) has left
   * today; undefined when it has none. A job's runs count toward it like the conversation's own,
   * and a thread's budget is its channel's: the channel's own spending and all its threads'.
   */
  async function budgetLeft(key: string): Promise<number | undefined> {
    const budget = conversationBudget(key);
    if (budget === undefined) return undefined;
    const channel = budgetChannelOf(key);
    const spent = (await spentToday({ conversationKey: channel })) + (await spentToday({ spaceKey: channel }));
    return Math.max(0, budget - spent);
  }

  /** The daily budget of conversation `key`, as its policy says now. */
  function conversationBudget(key: string): number | undefined {
    return conversationPolicy(o.loaded.config, key).budget?.conversationUsdPerDay;
  }

  /**
   * What the daily budget of the job's creator has left today, as for their own messages in the
   * target conversation (their policy there; another platform's defaults for a job they made for
   * elsewhere); undefined when there is no creator (older jobs) or no such budget.
   */
  async function creatorBudgetLeft(job: JobRecord): Promise<number | undefined> {
    const budget = creatorBudget(job);
    if (budget === undefined || !job.createdBy) return undefined;
    return Math.max(0, budget - (await spentToday({ userKey: job.createdBy })));
  }

  /** The daily budget of the job's creator, as for their own messages in the target conversation. */
  function creatorBudget(job: JobRecord): number | undefined {
    if (!job.createdBy) return undefined;
    const at = job.createdBy.indexOf(':');
    const platform = job.createdBy.slice(0, at) as Platform;
    const userId = job.createdBy.slice(at + 1);
    const target = decodeConversationKey(job.target);
    const where =
      target.platform === platform
        ? { chatId: target.chatId, ...(target.threadId ? { threadId: target.threadId } : {}) }
        : { chatId: '' };
    return resolvePolicy(o.loaded.config, { platform, userId, ...where }).budget?.userUsdPerDay;
  }

  /**
   * Holds one model call's estimated cost for the run in the ledger the chat runs share, unless
   * the target conversation's or the creator's daily budget is taken up (spent plus held by calls
   * in flight); a refusal names that budget in the run's notice.
   */
  function reserve(run: ActiveRun, id: number, estimateUsd: number): boolean {
    const conversation = { conversationKey: run.job.target };
    const creator = run.job.createdBy ? { userKey: run.job.createdBy } : undefined;
    // A job in a thread holds against its channel's budget too (the channel's own and its threads' spending).
    const channel = budgetChannelOf(run.job.target);
    const space = channel !== run.job.target ? [{ spaceKey: channel }] : [];
    const chatUsd = conversationBudget(run.job.target);
    const creatorUsd = creatorBudget(run.job);
    const limits: DailyLimit[] = [
      ...(creator && creatorUsd !== undefined ? [{ kind: 'user' as const, subjects: [creator], usd: creatorUsd }] : []),
      ...(chatUsd !== undefined
        ? [
            {
              kind: 'conversation' as const,
              subjects: [{ conversationKey: channel }, { spaceKey: channel }],
              usd: chatUsd,
            },
          ]
        : []),
    ];
    const r = spend.reserve([conversation, ...space, ...(creator ? [creator] : [])], estimateUsd, limits);
    if ('refused' in r) {
      run.limitedBy = r.refused.kind === 'conversation' ? 'conversation' : 'creator';
      return false;
    }
    run.reservations.set(id, r);
    return true;
  }

  /** What the subject spent today: the store's figure and the charges of this process not written yet. */
  async function spentToday(subject: UsageSubject): Promise<number> {
    await spend.prepare([subject]);
    return spend.today(subject);
  }

  /**
   * One model call of a run, charged when the worker reports it (not from its result, which a
   * terminated or crashed worker never sends): to the target conversation (its daily budget,
   * /usage), as its own runs are, under the model that answered the call.
   */
  function charge(run: ActiveRun, c: RunCharge): void {
    const channel = budgetChannelOf(run.job.target);
    spend.charge(
      {
        conversationKey: run.job.target,
        // A job in a thread spends from its channel's budget too, as the thread's own runs do.
        ...(channel !== run.job.target ? { spaceKey: channel } : {}),
        // The creator's daily budget counts what their job spends, as their own messages do.
        ...(run.job.createdBy ? { userKey: run.job.createdBy } : {}),
        model: c.model,
        usage: c.usage,
        ...(c.costUsd !== undefined ? { costUsd: c.costUsd } : {}),
        at: clock.now().toISOString(),
      },
      persist,
    );
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
        delivered = (await o.deliver(run.job.target, text, `job:${id}:${run.startedAt}`))[0] ?? null;
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
    if (stopping) {
      for (const p of state.queue.splice(0))
        for (const w of p.waiters) w.reject(new SchedulerError('stopped', 'the scheduler stopped'));
      return;
    }
    const pending = state.queue.shift();
    if (pending) begin(id, state, pending);
    else if (dirty && started) void sync();
  }

  /**
   * Catch-up rule: an occurrence after the job was last known to be handled (its last run's
   * start or end, whichever is later, else its creation) and before `now` was missed while
   * boxbot was down. Ticks during a run were handled by the overlap policy, hence the end.
   */
  async function missedSinceLastRun(job: JobRecord, now: Date): Promise<boolean> {
    const last = (await o.store.jobs.logs(job.id, 1))[0];
    const times = [job.lastRunAt, last?.finishedAt].filter((t): t is string => !!t).map((t) => Date.parse(t));
    const since = times.length ? Math.max(...times) : job.createdAt ? Date.parse(job.createdAt) : undefined;
    return since !== undefined && Number.isFinite(since) && missedRun(job.cron, new Date(since), now, job.timezone);
  }

  /**
   * Brings Bree in line with the store: new jobs added (and caught up), changed ones rescheduled, removed ones dropped.
   */
  async function syncOnce(): Promise<void> {
    const jobs = await o.store.jobs.list();
    dirty = false;
    const now = clock.now();
    const seen = new Set<string>();
    const caughtUp: string[] = [];
    for (const job of jobs) {
      seen.add(job.id);
      const first = !known.has(job.id);
      known.set(job.id, job);
      const schedule = scheduleOf(job);
      if (scheduled.get(job.id) === schedule) continue;
      if (stateOf(job.id).busy) {
        dirty = true; // rescheduled once the run is over
        continue;
      }
      try {
        if (bree.has(job.id)) await bree.remove(job.id);
        await bree.addJob(job);
        scheduled.set(job.id, schedule);
        if (job.enabled) await bree.start(job.id);
      } catch (e) {
        // Remembered as is, so the error is logged once, not at every reload, until the job changes.
        scheduled.set(job.id, schedule);
        log.error({ job: job.id, err: errorMessage(e).split('\n')[0] }, 'job cannot be scheduled');
        continue;
      }
      if (first && job.enabled && (await missedSinceLastRun(job, now))) {
        log.info({ job: job.id }, 'a run was missed while boxbot was down: catching up once');
        caughtUp.push(job.id);
        void tick(job.id, 'catch-up');
      }
    }
    for (const id of [...known.keys()]) {
      if (seen.has(id)) continue;
      known.delete(id);
      scheduled.delete(id);
      if (bree.has(id)) await bree.remove(id);
    }
    emit({ type: 'synced', jobIds: [...seen], caughtUp });
  }

  function sync(): Promise<void> {
    if (stopping) return Promise.resolve();
    const run = syncing.then(syncOnce);
    syncing = run.catch((e: unknown) => log.error({ err: errorMessage(e) }, 'scheduler: reading jobs failed'));
    return run;
  }

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
      await syncing;
      for (const [id, state] of states) next(id, state);
      // Bree asks running workers to cancel; a worker that does not react is terminated.
      const force = setTimeout(() => {
        for (const w of bree.workers.values()) void w.terminate();
      }, graceMs);
      await bree.stop();
      clearTimeout(force);
      // The runs are over: a spending write still failing is given up (logged) rather than holding the stop.
      stopped.abort();
      while (inflight.size) await Promise.allSettled([...inflight]);
      // A ledger of its own is drained here; a shared one by its owner (main), after the gateway stops.
      if (!o.spend) await spend.flush();
    },
    async add(input) {
      const fields = await validateJobInput(input, o.isKnownTarget);
      const job: JobRecord = { id: newJobId(fields.name), ...fields, createdAt: clock.now().toISOString() };
      await o.store.jobs.put(job);
      log.info({ job: job.id, cron: job.cron, target: job.target }, 'job added');
      if (started) await sync();
      return job;
    },
    async update(id, patch) {
      const current = await mustGet(id);
      const { timezone: _tz, model: _model, budgetUsd: _budget, ...base } = current;
      const merged: JobInput = { ...current, ...patch };
      // Only a changed target is checked against the running channels (a stored one may be down for now).
      const fields = await validateJobInput(merged, merged.target === current.target ? undefined : o.isKnownTarget);
      const job: JobRecord = { ...base, ...fields };
      await o.store.jobs.put(job);
      if (started) await sync();
      return job;
    },
    async remove(id) {
      const existed = await o.store.jobs.remove(id);
      const state = states.get(id);
      for (const p of state?.queue.splice(0) ?? [])
        for (const w of p.waiters) w.reject(new SchedulerError('not-found', `job "${id}" was removed`));
      if (started) await sync();
      else if (bree.has(id)) await bree.remove(id);
      return existed;
    },
    async runNow(id) {
      known.set(id, await mustGet(id));
      let waiter!: Waiter;
      const done = new Promise<RunReport>((resolve, reject) => (waiter = { resolve, reject }));
      const refused = tick(id, 'manual', waiter);
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
