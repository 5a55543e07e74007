// Keeps Bree in line with the jobs in the store: new jobs scheduled (and caught up once if a run
// was missed while boxbot was down), changed ones rescheduled once their run is over, removed
// ones dropped. Reads go one at a time, whoever asks (start, the reload timer, a change, a run's end).
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { JobRecord, Store } from '../store/index.ts';
import type { JobBree } from './bree-jobs.ts';
import type { SchedulerClock } from './clock.ts';
import { missedRun } from './cron.ts';
import type { SchedulerEvent } from './types.ts';

/** What syncing needs of the scheduler. */
export interface JobSyncOptions {
  store: Store;
  bree: Pick<JobBree, 'has' | 'remove' | 'addJob' | 'start'>;
  clock: SchedulerClock;
  log: Logger;
  emit(e: SchedulerEvent): void;
  /** The latest record seen per job (kept here). */
  known: Map<string, JobRecord>;
  /** Whether a run of the job is going on (its schedule then changes after it). */
  busy(id: string): boolean;
  /** Runs a job once now: a run was missed while boxbot was down. */
  catchUp(id: string): void;
  stopping(): boolean;
}

/** The store-to-Bree sync of one scheduler. */
export interface JobSync {
  /** Re-reads the jobs from the store now. */
  sync(): Promise<void>;
  /** A job changed while its run went on: a sync is due once it is over. */
  dirty(): boolean;
  /** Resolves once the sync in progress (if any) has ended. */
  settled(): Promise<void>;
}

const scheduleOf = (j: JobRecord) => `${j.cron}|${j.timezone ?? ''}|${j.enabled}`;

/** Creates the sync. */
export function createJobSync(o: JobSyncOptions): JobSync {
  const { known } = o;
  /** The schedule Bree has per job. */
  const scheduled = new Map<string, string>();
  let dirty = false;
  // One chain, not a KeyedLock: there is a single key (the jobs list), and a failed read must be
  // logged here while the caller of sync() still sees it reject.
  let syncing: Promise<void> = Promise.resolve();

  /**
   * Catch-up rule: an occurrence after the job was last known to be handled (its last run's
   * start or end, whichever is later, else its creation) and before `now` was missed while
   * boxbot was down. Ticks during a run were handled by the overlap policy, hence the end.
   */
  async function missedSinceLastRun(job: JobRecord, now: Date): Promise<boolean> {
    if (!job.cron) return false;
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
    const now = o.clock.now();
    const seen = new Set<string>();
    const caughtUp: string[] = [];
    for (const job of jobs) {
      seen.add(job.id);
      const first = !known.has(job.id);
      known.set(job.id, job);
      const schedule = scheduleOf(job);
      if (scheduled.get(job.id) === schedule) continue;
      if (o.busy(job.id)) {
        dirty = true; // rescheduled once the run is over
        continue;
      }
      try {
        if (o.bree.has(job.id)) await o.bree.remove(job.id);
        await o.bree.addJob(job);
        scheduled.set(job.id, schedule);
        // A webhook job has no timer: only its requests start it.
        if (job.enabled && job.cron) await o.bree.start(job.id);
      } catch (e) {
        // Remembered as is, so the error is logged once, not at every reload, until the job changes.
        scheduled.set(job.id, schedule);
        o.log.error({ job: job.id, err: errorMessage(e).split('\n')[0] }, 'job cannot be scheduled');
        continue;
      }
      if (first && job.enabled && (await missedSinceLastRun(job, now))) {
        o.log.info({ job: job.id }, 'a run was missed while boxbot was down: catching up once');
        caughtUp.push(job.id);
        o.catchUp(job.id);
      }
    }
    for (const id of [...known.keys()]) {
      if (seen.has(id)) continue;
      known.delete(id);
      scheduled.delete(id);
      if (o.bree.has(id)) await o.bree.remove(id);
    }
    o.emit({ type: 'synced', jobIds: [...seen], caughtUp });
  }

  function sync(): Promise<void> {
    if (o.stopping()) return Promise.resolve();
    const run = syncing.then(syncOnce);
    syncing = run.catch((e: unknown) => o.log.error({ err: errorMessage(e) }, 'scheduler: reading jobs failed'));
    return run;
  }

  return { sync, dirty: () => dirty, settled: () => syncing };
}
