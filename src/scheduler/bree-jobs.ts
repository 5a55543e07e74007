// Bree, adapted to the scheduler: Bree keeps the cron timers (5/6 fields, time zones) and the
// worker threads; every tick goes to the scheduler first (overlap policy, lastRunAt), which then
// starts the worker through `spawn`. Workers start through createJobWorker (.js or .ts).
import type { Worker } from 'node:worker_threads';
import Bree from 'bree';
import type { Logger } from '../core/log.ts';
import type { TickTimers } from './clock.ts';
import { hasSeconds, standardCron } from './cron.ts';
import { createJobWorker } from './worker-file.ts';

/** What Bree reports to the scheduler. */
export interface BreeHooks {
  /** A cron tick of job `name` (instead of Bree starting a worker right away). */
  tick(name: string): void;
  /** A worker thread was created for `name`. */
  created(name: string, worker: Worker): void;
  message(name: string, message: unknown): void;
  /** A worker error or a non-zero exit. */
  error(name: string, error: unknown): void;
  /** The worker of `name` is gone (done, exited or terminated). */
  deleted(name: string): void;
}

/** A job as Bree needs it. */
export interface BreeJob {
  id: string;
  /** Absent for a webhook job: Bree then only starts its worker when asked (`spawn`), never on a timer. */
  cron?: string;
  timezone?: string;
}

/** Bree with ticks routed through the scheduler. */
export class JobBree extends Bree {
  /** Starts the worker of `name` now (Bree's own run). */
  readonly spawn: (name: string) => Promise<void>;

  constructor(
    private readonly workerFile: string,
    hooks: BreeHooks,
    log: Logger,
    /** Timers replacing Bree's cron timers (a test clock); they fire through the same `run`. */
    timers?: TickTimers,
  ) {
    super({
      root: false,
      doRootCheck: false,
      // Bree's messages are about worker threads coming and going: debug detail for boxbot.
      logger: {
        info: (m: unknown) => log.debug({ bree: String(m) }, 'bree'),
        warn: (m: unknown) => log.warn({ bree: String(m) }, 'bree'),
        error: (m: unknown) => log.debug({ bree: String(m) }, 'bree'),
      },
      errorHandler: (error, data) => hooks.error(data.name, error),
      workerMessageHandler: (data) => hooks.message(data.name, data.message),
    });
    const run = this.run;
    this.spawn = (name) => run(name);
    // Bree's timers call this.run(name) on every tick.
    this.run = async (name?: string) => {
      if (name === undefined) return run();
      hooks.tick(name);
    };
    if (timers) {
      const stop = this.stop;
      this.start = async (name?: string) => {
        if (name === undefined) {
          for (const j of this.config.jobs) await this.start(j.name);
          return;
        }
        if (!this.has(name)) throw new Error(`Job ${name} does not exist`);
        timers.start(name, () => void this.run(name));
      };
      // Bree's remove() and stop() both come through here (it binds its methods to the instance).
      this.stop = async (name?: string) => {
        timers.stop(name);
        return stop(name);
      };
    }
    this.createWorker = (filename, options) => createJobWorker(filename, options);
    this.on('worker created', (name: string) => {
      const worker = this.workers.get(name);
      if (worker) hooks.created(name, worker);
    });
    this.on('worker deleted', (name: string) => hooks.deleted(name));
  }

  /** True if Bree knows job `id`. */
  has(id: string): boolean {
    return this.config.jobs.some((j) => j.name === id);
  }

  /** Adds a job (not started); throws with Bree's reasons if it is invalid. */
  async addJob(job: BreeJob): Promise<void> {
    await this.add({
      name: job.id,
      path: this.workerFile,
      // Without a cron, `timeout: false` keeps Bree from running the job once at start.
      ...(job.cron ? { cron: standardCron(job.cron), hasSeconds: hasSeconds(job.cron) } : { timeout: false }),
      ...(job.timezone ? { timezone: job.timezone } : {}),
    });
  }
}
